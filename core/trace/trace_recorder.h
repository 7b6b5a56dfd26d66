// TraceRecorder: the instrumentation that builds a Trace (source graph, every pass record, a
// snapshot after every changed pass) while a PassManager runs.
#pragma once

#include "core/passes/pass_manager.h"
#include "core/trace/trace.h"

namespace ls::trace {

using passes::Pass;
using passes::RunInfo;
using passes::PassStatus;

/// Trace recorder: keeps the source graph, every record and a snapshot after every changed pass.
class TraceRecorder : public passes::Instrumentation {
 public:
  void beforePipeline(const RunInfo& info, const ir::Graph& g) override;
  Status afterPass(const Pass&, PassRecord& rec, const ir::Graph& g) override;
  void passSkipped(const Pass&, PassRecord& rec, const ir::Graph&) override { trace_.records.push_back(rec); }
  void passFailed(const Pass&, PassRecord& rec, const ir::Graph&) override { trace_.records.push_back(rec); }
  void afterPipeline(const RunInfo&, const ir::Graph&, int64_t totalNs) override { trace_.totalNs = totalNs; }
  Trace& trace() { return trace_; }
  Trace take() { return std::move(trace_); }

 private:
  Trace trace_;
};

}  // namespace ls::trace
