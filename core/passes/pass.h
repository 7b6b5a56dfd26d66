// Pass API: name, options, statistics, declared target ops, should_run with skip reasons,
// and the result of a run. Base of retrace passes (retrace.h) and in-place passes (editor.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/graph.h"
#include "core/ops/registry.h"
#include "core/util/status.h"

namespace ls::passes {

enum class Profile : uint8_t { FP, INT, COUNT };
enum class Target : uint8_t { Generic, U55, U85, COUNT };
std::string_view profileName(Profile p);  // "fp", "int"
std::string_view targetName(Target t);    // "generic", "u55", "u85"
std::optional<Profile> parseProfile(std::string_view s);
std::optional<Target> parseTarget(std::string_view s);

enum class PassStatus : uint8_t { Changed, Unchanged, Skipped, Failed, COUNT };
std::string_view passStatusName(PassStatus s);  // "changed", "unchanged", "skipped", "failed"

/// Why a pass did not run. Skipped is not unchanged: every view and export keeps them apart.
enum class SkipReason : uint8_t {
  None,
  NoTargetOps,        ///< no node of a declared target op in the graph or nested graphs
  TargetsDisallowed,  ///< every target node carries the "disallow transform" flag
  Profile,            ///< the pass does not apply to this profile (e.g. INT-only on FP)
  Target,             ///< the pass does not apply to this hardware target
  Precondition,       ///< a pass-specific cheap check said there is nothing to do
  Disabled,           ///< disabled by the user
  Cancelled,          ///< the run was cancelled before this pass
  NotReached,         ///< an earlier pass failed and the pipeline stopped
  COUNT
};
std::string_view skipReasonName(SkipReason r);  // "no-target-ops", "targets-disallowed", ...

/// Engine switches used for comparisons; results must be identical in every mode.
struct EngineOptions {
  bool skip = true;      ///< honour should_run (off: every pass runs, the upstream baseline)
  bool fastCopy = true;  ///< copy cold nodes with their metadata (off: re-infer every node)
  /// Memoise meta inference. Off by default: building and hashing a key from every input's
  /// metadata costs more than the meta functions it saves (docs/DESIGN.md, "Op registry").
  bool cache = false;
  bool operator==(const EngineOptions&) const = default;
};

/// A node the backend's operator support checks refuse for the target (upstream's
/// partitioner: "Rejected by <check>: <reason>"); it would stay outside the delegated part.
struct SupportRejection {
  ir::NodeId node = ir::kInvalidNode;
  std::string name;    ///< node name
  std::string op;      ///< op name
  std::string check;   ///< the check that refused it (upstream's class name)
  std::string reason;  ///< the check's reason
  /// "Rejected by <check>: <reason>"
  std::string text() const { return "Rejected by " + check + ": " + reason; }
  bool operator==(const SupportRejection&) const = default;
};

/// What a pass sees besides the graph. Owned by the PassManager for one pipeline run.
struct PassContext {
  Profile profile = Profile::FP;
  Target target = Target::Generic;
  EngineOptions engine;
  ops::InferenceCache* cache = nullptr;    ///< null when engine.cache is off
  const std::atomic<bool>* cancel = nullptr;
  /// Nodes of the graph the pipeline started from that the pipeline's support checks
  /// (PipelineDef::supportChecks) refuse for ctx.target, in graph order; set by the session
  /// before the first pass, read by the backend's final check.
  std::vector<SupportRejection> rejected;
  /// Extensions of the target's format the run may use beyond the profile (TOSA: "EXT-BF16",
  /// "EXT-INT16", ...), checked by the backend's final legality check.
  std::vector<std::string> extensions;

  /// Counters filled by the engine during one pass (reset by the manager before each pass).
  struct Counters {
    uint64_t hot = 0;         ///< nodes dispatched to the pass's rewrite hook
    uint64_t fastCopied = 0;  ///< nodes copied with their metadata
    uint64_t reinferred = 0;  ///< nodes whose metadata was recomputed
  } counters;

  ops::InferenceCache* inferenceCache() const { return engine.cache ? cache : nullptr; }
};

struct ShouldRun {
  bool run = true;
  SkipReason reason = SkipReason::None;
  std::string detail;  ///< human text, e.g. "needs INT profile"
  static ShouldRun yes() { return {}; }
  static ShouldRun no(SkipReason r, std::string d = {}) { return {false, r, std::move(d)}; }
};

struct PassResult {
  PassStatus status = PassStatus::Unchanged;
  std::string message;  ///< failure text
  static PassResult changed() { return {PassStatus::Changed, {}}; }
  static PassResult unchanged() { return {PassStatus::Unchanged, {}}; }
  static PassResult failed(std::string m) { return {PassStatus::Failed, std::move(m)}; }
  static PassResult of(bool changed) { return changed ? PassResult::changed() : PassResult::unchanged(); }
};

/// Where a pass applies, declared as data on the pass (so a UI or linter can list the
/// INT-only passes without running anything). The PassManager checks it before should_run
/// (when skipping is on) and records a skip with reason Profile or Target.
struct Applicability {
  bool fp = true, integer = true;               ///< profiles
  bool generic = true, u55 = true, u85 = true;  ///< targets
  static Applicability any() { return {}; }
  static Applicability intOnly() { return {false, true}; }
  bool allows(Profile p) const { return p == Profile::FP ? fp : integer; }
  bool allows(Target t) const { return t == Target::Generic ? generic : t == Target::U55 ? u55 : u85; }
  /// ShouldRun::yes() or the Profile/Target skip with its detail ("needs the INT profile").
  ShouldRun check(const PassContext& ctx) const;
  /// "all", or e.g. "int; u55, u85".
  std::string describe() const;
  bool operator==(const Applicability&) const = default;
};

/// A named counter owned by a pass ("transposes removed by inverse-pair cancellation").
struct Statistic {
  std::string name;
  std::string description;
  int64_t value = 0;
};

/// Base class of every pass. Subclasses declare target ops in their constructor (one
/// declaration drives should_run, fast-copy and documentation), optionally override
/// allowedToTransform / shouldRunImpl, and implement runImpl (or derive from RetracePass).
class Pass {
 public:
  virtual ~Pass() = default;
  Pass(const Pass&) = delete;
  Pass& operator=(const Pass&) = delete;

  const std::string& name() const { return name_; }
  const std::string& description() const { return description_; }
  /// Declared target ops (empty: the pass looks at the whole graph, never skipped by op scan).
  const std::vector<ir::OpId>& targetOps() const { return targetOps_; }
  /// The ops this pass lowers or rewrites, for documentation (docs/OPS.md): its target ops,
  /// unless the pass finds its work through other nodes (the INT fold targets quantize nodes
  /// and lowers the ops that feed them).
  virtual std::vector<ir::OpId> documentedOps() const { return targetOps_; }
  bool isTargeted(ir::OpId op) const { return op < targetMask_.size() && targetMask_[op]; }  // per node: inline
  /// Profiles and targets the pass applies to (data; checked by the PassManager).
  const Applicability& applicability() const { return applicability_; }
  /// True when the pass honours the per-node "disallow transform" flag.
  bool checksAllowedToTransform() const { return checkAllowed_; }
  /// Makes the pass honour the flag (a pass run as part of the quantizer's transform for
  /// annotation must leave the nodes configured to stay float as they are).
  void honourDisallowFlag() { checkAllowed_ = true; }
  /// Default: a node may be transformed unless it carries kFlagDisallowTransform (only when
  /// the pass checks the flag).
  virtual bool allowedToTransform(const ir::Node& n) const;

  /// Whether to run on `g`. Default: some allowed node of a target op exists in `g` or any
  /// nested graph (looked up in the op index, no scan); passes add profile/target checks.
  /// (Non-virtual: the applicability() check first, then shouldRunImpl.)
  ShouldRun shouldRun(const ir::Graph& g, const PassContext& ctx) const;

  /// Runs the pass (non-virtual: the base resets statistics around runImpl).
  PassResult run(ir::Graph& g, PassContext& ctx);

  const std::vector<Statistic>& statistics() const { return stats_; }
  /// Passes that must run earlier in the same pipeline (checked before the run).
  const std::vector<std::string>& mustRunAfter() const { return mustRunAfter_; }

 protected:
  Pass(std::string name, std::string description);
  virtual PassResult runImpl(ir::Graph& g, PassContext& ctx) = 0;

  /// Declares target ops by name ("aten.relu.default"); unknown names are interned anyway.
  void targets(std::initializer_list<std::string_view> ops);
  void targets(const std::vector<std::string>& ops);
  void checkAllowed(bool on = true) { checkAllowed_ = on; }
  void appliesTo(Applicability a) { applicability_ = a; }
  void runAfter(std::string passName) { mustRunAfter_.push_back(std::move(passName)); }
  /// Registers a statistic and returns its index for bump().
  size_t stat(std::string statName, std::string desc);
  void bump(size_t idx, int64_t by = 1) { stats_[idx].value += by; }

  /// The pass-specific part of shouldRun (after the applicability check). Default: targetScan.
  virtual ShouldRun shouldRunImpl(const ir::Graph& g, const PassContext& ctx) const;
  /// Default op-index check shared by shouldRunImpl overrides.
  ShouldRun targetScan(const ir::Graph& g) const;
  /// Whether a node of a target op, in `g` or a nested subgraph, that the pass may transform
  /// satisfies `candidate(graph it is in, node)`: the precondition of a pass that rewrites only
  /// some of its target nodes.
  bool anyTargetNode(const ir::Graph& g, const std::function<bool(const ir::Graph&, const ir::Node&)>& candidate) const;

 private:
  std::string name_, description_;
  std::vector<ir::OpId> targetOps_;
  std::vector<uint8_t> targetMask_;  // by OpId
  bool checkAllowed_ = false;
  Applicability applicability_;
  std::vector<Statistic> stats_;
  std::vector<std::string> mustRunAfter_;
};

}  // namespace ls::passes
