// Repeated, interleaved pipeline runs and their statistics (median, min, max): the one
// implementation behind `lowerscope-cli bench` and the app's A/B comparison, so both measure
// the same way and their figures can be compared.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/passes/pass_record.h"
#include "core/session/lowering_session.h"
#include "core/util/status.h"

namespace ls::session {

/// Median (mean of the two middle values for an even count), min, max and mean of samples;
/// all 0 and n = 0 for no samples.
struct SampleStats {
  int64_t median = 0, min = 0, max = 0, mean = 0;
  size_t n = 0;
  int64_t spread() const { return max - min; }
};
SampleStats sampleStats(std::vector<int64_t> samples);

/// How often each configuration runs: `warmup` unmeasured runs, then `repeat` measured ones.
/// The defaults are `lowerscope-cli bench`'s.
struct RepeatOptions {
  int repeat = 5;
  int warmup = 1;
};

/// One measured run of one configuration.
struct RunSample {
  int64_t pmNs = 0;   ///< pass-manager wall time (RunResult::totalNs)
  /// CPU time of the calling thread over the run (timedRun: LoweringSession::run): unlike the
  /// wall times it does not grow while other threads or processes hold the cores.
  int64_t cpuNs = 0;
  int64_t e2eNs = 0;  ///< the whole timed body (timedRun: the run; bench: load + run + serialize)
  std::vector<passes::PassRecord> records;
  uint64_t cacheHits = 0, cacheMisses = 0;
  std::string failure;  ///< the failed pass's message (the run stopped there)
};

/// Runs configuration `config`, repetition `rep` (warm-ups included), and returns its sample.
using RunBody = std::function<Result<RunSample>(size_t config, int rep)>;
/// Called before each run: (runs done, runs in total, configuration, repetition).
using RepeatProgress = std::function<void(size_t done, size_t total, size_t config, int rep)>;

/// Runs `configs` configurations interleaved (A B A B ...: drift of the machine hits all of
/// them alike), `warmup` + `repeat` rounds, and returns the measured samples per
/// configuration (result[config][k], k < repeat). The first error stops the runs. A set
/// `cancel` stops before the next run with the error "cancelled".
Result<std::vector<std::vector<RunSample>>> runInterleaved(size_t configs, const RepeatOptions& opts, const RunBody& body,
                                                           const RepeatProgress& progress = {},
                                                           const std::atomic<bool>* cancel = nullptr);

/// The graph of repeated runs, loaded afresh for every run: each run gets nodes and a constant
/// store of its own, shared with no earlier run and no caller (a pass that edits a shared node
/// version in place copies it first, which a freshly loaded graph never needs). `lowerscope-cli
/// bench` loads its file this way for every run, and the app's A/B repeats load their prepared
/// graph so, from .lsg bytes made once, so both time the same work. Constants are not copied
/// out of the .lsg: they view the mapped file (fromFile, io::FileAccess::Map) or the bytes
/// made once (fromGraph), which every loaded graph shares read-only.
class RunInput {
 public:
  static RunInput fromFile(std::string path);
  /// `g` as .lsg bytes (`name` for load errors).
  static Result<RunInput> fromGraph(const ir::Graph& g, std::string name);
  Result<ir::Graph> load() const;

 private:
  std::string path_;   ///< a graph file, or
  std::shared_ptr<const std::string> lsg_;  ///< .lsg bytes
  std::string name_;
};

/// The session configuration of a timed run: no trace recording and no statistics, as bench
/// measures (the rest of `c` unchanged).
SessionConfig timingConfig(SessionConfig c);

/// One timed run of `lowering` over an already prepared graph; e2eNs covers this call.
/// `finalGraph` (optional) receives the graph after the last good pass.
Result<RunSample> timedRun(const LoweringSession& lowering, ir::Graph g, const std::string& model,
                           ir::Graph* finalGraph = nullptr);

/// What an E2E run writes (`lowerscope-cli bench --serialize`); None: nothing (load + lower).
enum class SerializeAs { Lsg, Tosa, None };

/// The E2E run `lowerscope-cli bench` times, which the app's A/B repeats run too, so that both
/// measure the same thing (the serialisation between two runs leaves the caches as a user's
/// load, lower, write leaves them: without it the next run's passes find their caches warmer):
/// `input` loaded, lowered (timedRun), and the final graph serialised in memory (.tosa as
/// `lower --tosa` writes it: missing data synthesised, integer-only for the INT profile).
/// e2eNs runs from the load until the serialised bytes are complete, before anything is
/// freed. After a failed pass the graph it left is what is serialised.
Result<RunSample> timedE2eRun(const LoweringSession& lowering, const RunInput& input, const std::string& model,
                              SerializeAs as = SerializeAs::Lsg);

/// Per-pass total times (scan + run + verify) over the runs of one configuration, by record
/// index (the pipeline of one configuration is the same in every run). Runs that stopped
/// early contribute to the passes they reached.
std::vector<SampleStats> passStats(const std::vector<RunSample>& runs);
/// Pass-manager wall times of the runs.
SampleStats totalStats(const std::vector<RunSample>& runs);

}  // namespace ls::session
