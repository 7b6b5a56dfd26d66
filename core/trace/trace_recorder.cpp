// TraceRecorder: source graph, records and snapshots of a pipeline run.
#include "core/trace/trace_recorder.h"

namespace ls::trace {

void TraceRecorder::beforePipeline(const RunInfo& info, const ir::Graph& g) {
  trace_ = Trace();
  trace_.model = info.model;
  trace_.pipeline = info.pipeline;
  if (info.ctx) {
    trace_.profile = info.ctx->profile;
    trace_.target = info.ctx->target;
    trace_.options = info.ctx->engine;
  }
  trace_.source = std::make_shared<const ir::Graph>(g);
}

Status TraceRecorder::afterPass(const Pass&, PassRecord& rec, const ir::Graph& g) {
  if (rec.status == PassStatus::Changed) {
    rec.snapshot = int32_t(trace_.snapshots.size());
    trace_.snapshots.push_back(std::make_shared<const ir::Graph>(g));
  }
  trace_.records.push_back(rec);
  return Status::ok();
}

}  // namespace ls::trace
