// RunJob: loads a graph or trace file and runs a pipeline on a worker thread, with progress
// and cancel, so the UI never blocks. No ImGui: tested in tests/viewers/run_job_test.cpp.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/passes/pass.h"
#include "core/session/repeat_runs.h"
#include "core/trace/trace.h"
#include "core/util/progress.h"
#include "core/util/status.h"

namespace ls::viewmodel {

/// What to run: pipeline name, profile, target, engine switches, disabled passes.
struct RunConfig {
  std::string pipeline;
  passes::Profile profile = passes::Profile::FP;
  passes::Target target = passes::Target::Generic;
  passes::EngineOptions engine;
  std::vector<std::string> disabled;
  bool verify = false;  ///< verifier instrumentation after every changed pass
  /// INT profile: a float graph (no q/dq ops) is quantized first, as `lowerscope-cli lower`
  /// does; the trace's source is then the quantized graph.
  bool quantize = true;
  bool operator==(const RunConfig&) const = default;
};

/// "tosa" when registered, else "generic", else the first registered pipeline.
std::string defaultPipeline();
/// Short description: "tosa fp/generic" plus " no-skip", " no-fast-copy", " no-cache".
std::string describe(const RunConfig& c);

/// True for paths the app opens as a trace (.lstrace, or bytes starting with the identifier).
bool isTracePath(const std::string& path);

using TracePtr = std::shared_ptr<const trace::Trace>;

/// The measured repeats of an A/B comparison: A's and B's configurations run interleaved by
/// session::runInterleaved (the same schedule, warm-up and medians as `lowerscope-cli bench`),
/// each over the source prepared once (quantized once for INT, as bench does), timed
/// without trace recording. Immutable once published.
struct AbRepeats {
  uint64_t generation = trace::nextGeneration();  ///< identity for caches (never an address)
  RunConfig a, b;
  session::RepeatOptions options;
  std::vector<session::RunSample> runsA, runsB;
};
using AbRepeatsPtr = std::shared_ptr<const AbRepeats>;

/// One job at a time. Thread rules: start/cancel/progress/take/busy are called from the UI
/// thread; the worker publishes under a mutex. The finished trace is immutable and every graph
/// in it has its lazy indices built, so any thread may read it.
class RunJob {
 public:
  enum class Phase : uint8_t { Idle, Loading, Running, Finished, COUNT };
  struct Progress {
    Phase phase = Phase::Idle;
    size_t index = 0, count = 0;  ///< pass index / count while running
    /// With count == 0: passName is a stage before the passes ("quantize: calibration") and
    /// this the fraction of it done, in [0, 1].
    double fraction = 0.0;
    std::string passName;
    std::string what;             ///< file or model being processed
  };
  struct Outcome {
    Result<TracePtr> trace = Status::error("no run");
    /// The loaded graph, also when the run could not start (unknown pipeline).
    std::shared_ptr<const ir::Graph> source;
    bool fromTraceFile = false;
    bool cancelled = false;
    std::string path;
    RunConfig config;
    std::string quantized;  ///< the quantizer's summary when the run quantized the graph first
    std::vector<std::string> warnings;  ///< non-fatal load findings (unknown ops, newer format fields)
    AbRepeatsPtr repeats;  ///< startCompare: the timed repeats of A and B (null on error/cancel)
    std::string repeatsError;  ///< why the repeats are missing
  };

  RunJob() = default;
  ~RunJob();
  RunJob(const RunJob&) = delete;
  RunJob& operator=(const RunJob&) = delete;

  /// Loads `path` (a .lstrace is loaded as is; a graph is loaded and run with `cfg`).
  /// Returns false when a job is still running.
  bool startFile(std::string path, RunConfig cfg);
  /// Runs `cfg` over an already loaded graph.
  bool startGraph(std::shared_ptr<const ir::Graph> source, std::string model, RunConfig cfg);
  /// Comparison run B: one recorded run of `b` (the trace shown as B), then `opts.repeat`
  /// timed runs each of `a` and `b` interleaved (after `opts.warmup` unmeasured ones).
  bool startCompare(std::shared_ptr<const ir::Graph> source, std::string model, RunConfig a, RunConfig b,
                    session::RepeatOptions opts);
  void cancel() { cancel_.store(true); }
  bool busy() const;
  Progress progress() const;
  /// The outcome of the finished job, once; nullopt while running or when already taken.
  std::optional<Outcome> take();
  /// Blocks until the job is finished (tests and headless tools only).
  void join();
  /// Called on the worker thread when a job finishes (e.g. to wake the UI loop).
  std::function<void()> onFinished;

  /// The timed A/B repeats synchronously on the calling thread (startCompare's body; tests).
  static Result<AbRepeats> runRepeats(const ir::Graph& source, const std::string& model, const RunConfig& a, const RunConfig& b,
                                      const session::RepeatOptions& opts, const std::atomic<bool>* cancel,
                                      const std::function<void(size_t, size_t, const std::string&)>& progress);
  /// Runs a pipeline synchronously on the calling thread (the worker's body; also used by tests).
  static Outcome runNow(std::shared_ptr<const ir::Graph> source, const std::string& model, const RunConfig& cfg,
                        const std::atomic<bool>* cancel, const std::function<void(size_t, size_t, const std::string&)>& progress,
                        const StageProgressFn& stage = {});

 private:
  void launch(std::function<Outcome()> body, std::string what);
  /// Publishes a pass (index, count, name) or a stage (count 0, fraction) from the worker.
  void publish(size_t index, size_t count, std::string_view name, double fraction);

  mutable std::mutex mu_;
  std::thread thread_;
  std::atomic<bool> cancel_{false};
  std::atomic<bool> running_{false};
  Progress progress_;
  std::optional<Outcome> outcome_;
};

}  // namespace ls::viewmodel
