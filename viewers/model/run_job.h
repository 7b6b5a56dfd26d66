// RunJob: loads a graph or trace file and runs a pipeline on a worker thread, with progress
// and cancel, so the UI never blocks. No ImGui: tested in tests/viewers/run_job_test.cpp.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/passes/pass.h"
#include "core/quant/quantizer.h"
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
  /// INT calibration on the user's data (a .npy file or directory; empty: seeded inputs) and
  /// the activation observers (session::SessionConfig's fields of the same names).
  std::string calibration;
  quant::ActivationObserver observer = quant::ActivationObserver::Histogram;
  bool operator==(const RunConfig&) const = default;
};

/// "tosa" when registered, else "generic", else the first registered pipeline.
std::string defaultPipeline();
/// Short description: "tosa fp/generic" plus " no-skip", " no-fast-copy", " cache".
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
  /// Returns false when a job is still running. A loaded graph is published before the run
  /// (takeLoaded); with `holdAfterLoad` the worker then waits until release() (or cancel, or
  /// kHoldTimeout) before it runs, so the caller can lay the graph out and draw it first
  /// without competing with the timed passes for the cores.
  bool startFile(std::string path, RunConfig cfg, bool holdAfterLoad = false);
  static constexpr std::chrono::milliseconds kHoldTimeout{5000};
  /// The graph startFile loaded, once, while its run is still to come or in flight (null
  /// otherwise). Its lazy indices are built, so the UI thread may read it.
  std::shared_ptr<const ir::Graph> takeLoaded();
  /// Lets a held startFile job run its pipeline.
  void release();
  /// The job waits for release().
  bool holding() const { return holding_.load(); }
  /// Runs `cfg` over an already loaded graph.
  bool startGraph(std::shared_ptr<const ir::Graph> source, std::string model, RunConfig cfg);
  /// Comparison run B: one recorded run of `b` (the trace shown as B), then `opts.repeat`
  /// timed runs each of `a` and `b` interleaved (after `opts.warmup` unmeasured ones).
  bool startCompare(std::shared_ptr<const ir::Graph> source, std::string model, RunConfig a, RunConfig b,
                    session::RepeatOptions opts);
  void cancel();
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
  /// `stage`: progress of long stages (quantisation); `extra`: instrumentations added to the run
  /// (tests time the passes with them).
  static Outcome runNow(std::shared_ptr<const ir::Graph> source, const std::string& model, const RunConfig& cfg,
                        const std::atomic<bool>* cancel, const std::function<void(size_t, size_t, const std::string&)>& progress,
                        const StageProgressFn& stage = {}, const std::vector<passes::Instrumentation*>& extra = {});

 private:
  void launch(std::function<Outcome()> body, std::string what);
  /// Publishes a pass (index, count, name) or a stage (count 0, fraction) from the worker.
  void publish(size_t index, size_t count, std::string_view name, double fraction);

  mutable std::mutex mu_;
  std::condition_variable released_;
  bool release_ = false;       ///< guarded by mu_
  std::atomic<bool> holding_{false};
  std::shared_ptr<const ir::Graph> loaded_;  ///< guarded by mu_
  std::thread thread_;
  std::atomic<bool> cancel_{false};
  std::atomic<bool> running_{false};
  Progress progress_;
  std::optional<Outcome> outcome_;
};

}  // namespace ls::viewmodel
