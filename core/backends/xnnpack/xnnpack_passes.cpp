// XNNPACK transform passes (except the attention ones in sdpa_passes.cpp) and the pipeline.
#include "core/backends/xnnpack/xnnpack_passes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_set>

#include "core/backends/xnnpack/partitioner.h"
#include "core/backends/xnnpack/xnnpack_ops.h"
#include "core/backends/xnnpack/xnnpack_util.h"
#include "core/exec/executor.h"
#include "core/exec/kernel.h"
#include "core/passes/node_builder.h"
#include "core/passes/pass_manager.h"
#include "core/transforms/batch_norm.h"
#include "core/transforms/constant_folding.h"
#include "core/transforms/decompositions.h"
#include "core/ir/op_ref.h"

namespace ls::xnnpack {

namespace {

/// Call nodes of the given ops in graph order.
std::vector<ir::NodeId> nodesInOrder(const ir::Graph& g, const std::vector<ir::OpId>& ops) {
  std::vector<ir::NodeId> ids;
  for (ir::OpId op : ops)
    for (ir::NodeId id : g.nodesOfOp(op)) ids.push_back(id);
  std::sort(ids.begin(), ids.end(), [&](auto a, auto b) { return g.position(a) < g.position(b); });
  return ids;
}

constexpr int kMemoryFormatContiguous = 0;
constexpr int kMemoryFormatChannelsLast = 2;

}  // namespace

// ---------------------------------------------------------------- RemoveNoopExpandCopy

RemoveNoopExpandCopyPass::RemoveNoopExpandCopyPass()
    : RetracePass("RemoveNoopExpandCopyPass", "Removes expand_copy ops whose output shape equals the input shape") {
  targets({"aten.expand_copy.default"});
  removed_ = stat("removed", "no-op expand_copy removed");
}

Status RemoveNoopExpandCopyPass::rewrite(Rewriter& rw) {
  const ir::Node& n = rw.node();
  const ir::ValueRef* in = n.args.empty() ? nullptr : n.args[0].ref();
  if (!in) return Status::ok();
  std::vector<ir::TensorMeta> out;
  LS_RETURN_IF_ERROR(ops::inferNode(rw.graph(), n, out, rw.context().inferenceCache()));
  const ir::TensorMeta& im = rw.meta(*in);
  if (out.size() == 1 && out[0].shape == im.shape && out[0].dtype == im.dtype) {
    rw.replaceWith(*in);
    bump(removed_);
  }
  return Status::ok();
}

// ---------------------------------------------------------------- DecomposeActivations

namespace {
transforms::DecomposeOptions activationOptions() {
  transforms::DecomposeOptions o;
  o.rejectUnsupported = false;  // non-floating activations stay
  o.nameAfterNode = true;
  o.hardsigmoid = transforms::HardsigmoidForm::DivConstants;
  return o;
}

Result<bool> decomposeActivation(Rewriter& rw, const transforms::DecomposeOptions& o) {
  static const ir::OpId kSilu = ir::internOp("aten.silu.default");
  return rw.node().op == kSilu ? transforms::decomposeSilu(rw, o) : transforms::decomposeHardswish(rw, o);
}
}  // namespace

DecomposeActivationsPass::DecomposeActivationsPass()
    : DecompositionPass("DecomposeActivationsPass", "silu -> x * sigmoid(x), hardsigmoid -> clamp(x + 3, 0, 6) / 6",
                        {"aten.silu.default", "aten.hardsigmoid.default"}, decomposeActivation, activationOptions()) {
  silu_ = stat("silu", "silu decomposed");
  hardsigmoid_ = stat("hardsigmoid", "hardsigmoid decomposed");
}

void DecomposeActivationsPass::decomposed(const ir::Node& n) {
  bump(n.op == LS_OP("aten.silu.default") ? silu_ : hardsigmoid_);
}

// ---------------------------------------------------------------- ConvertToLinear

ConvertToLinearPass::ConvertToLinearPass()
    : InPlacePass("ConvertToLinearPass", "mm/addmm with a transposed constant weight become linear") {
  targets({"aten.mm.default", "aten.addmm.default"});
  converted_ = stat("converted", "mm/addmm converted to linear");
}

Status ConvertToLinearPass::transform(GraphEditor& ed) {
  ir::Graph& g = ed.graph();
  // Match everything first, then rewrite each mm/addmm in place (same id): no query needs an
  // index rebuilt after an edit, so the pass stays linear in the graph size.
  struct Match {
    ir::NodeId id;
    std::vector<ir::Arg> args;
  };
  std::vector<Match> matches;
  for (ir::NodeId id : nodesInOrder(g, targetOps())) {
    const ir::Node& n = g.node(id);
    if (!allowedToTransform(n)) continue;
    const bool addmm = n.op == LS_OP("aten.addmm.default");
    const size_t xi = addmm ? 1 : 0, wi = addmm ? 2 : 1;
    if (n.args.size() <= wi || !n.args[xi].ref() || !n.args[wi].ref()) continue;
    const ir::Node* wt = g.find(n.args[wi].ref()->node);
    if (!wt || !wt->isCall() || wt->args.empty() || !wt->args[0].ref()) continue;
    const ir::ValueRef w = *wt->args[0].ref();
    auto perm = permutationOf(*wt, g.meta(w).rank());
    if (!perm || g.meta(w).rank() != 2 || (*perm)[0] != 1 || (*perm)[1] != 0) continue;
    if (!constantOf(g, w)) continue;  // weights only, as upstream
    std::vector<ir::Arg> args{*n.args[xi].ref(), w};
    if (addmm) {
      if (numberArg(n, 3, "beta", 1.0) != 1.0 || numberArg(n, 4, "alpha", 1.0) != 1.0) continue;
      const ir::ValueRef* b = n.args[0].ref();
      const ir::TensorMeta& bm = b ? g.meta(*b) : ir::TensorMeta();
      if (!b || bm.rank() != 1 || bm.shape[0] != g.meta(w).shape[0]) continue;
      args.push_back(*b);
    }
    matches.push_back({id, std::move(args)});
  }
  for (Match& m : matches) {
    ed.setCall(m.id, "aten.linear.default", std::move(m.args), {});
    bump(converted_);
  }
  if (!matches.empty()) ed.eliminateDeadCode();  // the transposes of the weights
  return Status::ok();
}

// ---------------------------------------------------------------- ConstProp

std::unique_ptr<passes::Pass> makeConstPropPass() {
  return std::make_unique<transforms::FoldConstantsPass>(
      "ConstPropPass", "Folds ops whose inputs are all constants into new constants", std::vector<std::string>{},
      transforms::ConstantFoldingOptions{.maxElements = int64_t(1) << 22});
}

// ---------------------------------------------------------------- batch norm

transforms::BatchNormOptions batchNormOptions() {
  transforms::BatchNormOptions o;
  o.rejectTraining = false;  // left for the partitioner to reject
  o.foldIntoLinear = true;
  o.decomposition = transforms::BatchNormDecomposition::DepthwiseConv;
  return o;
}

std::unique_ptr<passes::Pass> makeFuseBatchNormPass() {
  return std::make_unique<transforms::FuseBatchNormPass>("FuseBatchNormPass", batchNormOptions());
}

std::unique_ptr<passes::Pass> makeDecomposeBatchNormPass() {
  return std::make_unique<transforms::DecomposeBatchNormPass>("DecomposeBatchNormPass", batchNormOptions());
}

// ---------------------------------------------------------------- FuseActivation

FuseActivationPass::FuseActivationPass()
    : InPlacePass("FuseActivationPass", "Folds relu/hardtanh into the producer's output clamp") {
  targets({"aten.relu.default", "aten.hardtanh.default"});
  fused_ = stat("fused", "activations folded into an output clamp");
}

Status FuseActivationPass::transform(GraphEditor& ed) {
  ir::Graph& g = ed.graph();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  for (ir::NodeId id : nodesInOrder(g, targetOps())) {
    const ir::Node& a = g.node(id);
    if (!allowedToTransform(a) || a.args.empty() || !a.args[0].ref() || a.args[0].ref()->output != 0) continue;
    double lo = 0.0, hi = kInf;
    if (a.op == LS_OP("aten.hardtanh.default")) {
      auto l = numberArg(a, 1, "min_val", -1.0), h = numberArg(a, 2, "max_val", 1.0);
      if (!l || !h || std::isnan(*l) || std::isnan(*h)) continue;
      lo = *l;
      hi = *h;
      if (lo > hi) lo = hi;  // torch: min_val > max_val gives max_val everywhere
    }
    const ir::Node* p = g.find(a.args[0].ref()->node);
    if (!p || !p->isCall() || p->outputs.size() != 1 || userCount(g, p->id) != 1 || !allowedToTransform(*p)) continue;
    if (!ir::isFloating(p->meta(0).dtype)) continue;
    std::string op = ir::opName(p->op);
    std::vector<ir::Kwarg> kwargs;
    std::string fused = fusedClampOf(op);
    if (fused.empty()) {
      if (baseOfFusedClamp(op).empty()) continue;
      fused = op;  // already fused: intersect the ranges
      for (const ir::Kwarg& kw : p->kwargs) {
        if (kw.name == "output_min") lo = std::max(lo, kw.value.number().value_or(-kInf));
        else if (kw.name == "output_max") hi = std::min(hi, kw.value.number().value_or(kInf));
        else kwargs.push_back(kw);
      }
      if (lo > hi) continue;  // clamp of a clamp with disjoint ranges: keep both
    } else {
      kwargs = p->kwargs;
    }
    // A Python-scalar operand stays an unsupported pattern; do not hide it in a fused op.
    bool scalarOperand = false;
    if (p->op != LS_OP("aten.convolution.default") && p->op != LS_OP("aten.linear.default"))
      for (size_t i = 0; i < std::min<size_t>(2, p->args.size()); ++i) scalarOperand |= p->args[i].isNumber();
    if (scalarOperand) continue;
    kwargs.push_back({"output_min", lo});
    kwargs.push_back({"output_max", hi});
    const ir::NodeId pid = p->id;
    ed.setCall(pid, fused, g.node(pid).args, std::move(kwargs));
    ed.graph().mutableNode(pid).provenance.derivedFrom.push_back(id);
    ed.replaceAllUses({id, 0}, {pid, 0});
    LS_RETURN_IF_ERROR(ed.erase(id));
    bump(fused_);
  }
  return Status::ok();
}

// ---------------------------------------------------------------- DecomposeConcatenate

namespace {
constexpr size_t kMaxConcatInputs = 5;
const ir::RefList* catList(const ir::Node& n) {
  const ir::Arg* a = argOr(n, 0, "tensors");
  return a ? a->asRefList() : nullptr;
}
}  // namespace

DecomposeConcatenatePass::DecomposeConcatenatePass()
    : InPlacePass("DecomposeConcatenatePass", "cat with more than 5 inputs becomes a chain of cats") {
  targets({"aten.cat.default"});
  decomposed_ = stat("decomposed", "cats split into chains");
}

ShouldRun DecomposeConcatenatePass::shouldRunImpl(const ir::Graph& g, const PassContext&) const {
  ShouldRun base = targetScan(g);
  if (!base.run) return base;
  for (ir::NodeId id : g.nodesOfOp(targetOps()[0]))
    if (const ir::RefList* l = catList(g.node(id)); l && l->size() > kMaxConcatInputs) return ShouldRun::yes();
  return ShouldRun::no(passes::SkipReason::Precondition, "no cat with more than 5 inputs");
}

Status DecomposeConcatenatePass::transform(GraphEditor& ed) {
  ir::Graph& g = ed.graph();
  for (ir::NodeId id : nodesInOrder(g, targetOps())) {
    const ir::Node& n = g.node(id);
    const ir::RefList* l = catList(n);
    if (!l || l->size() <= kMaxConcatInputs || !allowedToTransform(n)) continue;
    const ir::RefList all = *l;
    const int64_t dim = numberArg(n, 1, "dim", 0.0).value_or(0.0);
    ir::RefList first(all.begin(), all.begin() + kMaxConcatInputs);
    passes::NodeBuilder build(ed, id);
    auto acc = build.op("aten.cat.default", {first, dim}, {}, n.name + "_part");
    if (!acc) return acc.status().withContext(fmt::format("DecomposeConcatenate at '{}': ", n.name));
    ir::ValueRef cur = *acc;
    for (size_t i = kMaxConcatInputs; i < all.size(); i += kMaxConcatInputs - 1) {
      ir::RefList next{cur};
      for (size_t j = i; j < std::min(all.size(), i + kMaxConcatInputs - 1); ++j) next.push_back(all[j]);
      auto r = build.op("aten.cat.default", {next, dim}, {}, g.node(id).name + "_part");
      if (!r) return r.status().withContext(fmt::format("DecomposeConcatenate at '{}': ", g.node(id).name));
      cur = *r;
    }
    ed.replaceAllUses({id, 0}, cur);
    LS_RETURN_IF_ERROR(ed.erase(id));
    bump(decomposed_);
  }
  return Status::ok();
}

// ---------------------------------------------------------------- ChannelsLastTaggedReshape

namespace {

enum class Need : uint8_t { Any, Nhwc, Nchw };

bool isConversion(const ir::Node& n) {
  if (n.op != LS_OP("aten.clone.default")) return false;
  const ir::Arg* mf = argOr(n, 1, "memory_format");
  return mf && mf->asEnum() && mf->asEnum()->kind == ir::EnumKind::MemoryFormat;
}

/// Ops that compute elementwise (or per channel with the channel dim found by metadata):
/// they follow the layout of their input.
bool layoutAgnostic(const ir::Node& n) {
  static const std::unordered_set<std::string> kOps = {
      "aten.relu.default",        "aten.hardtanh.default",   "aten.hardswish.default", "aten.hardsigmoid.default",
      "aten.sigmoid.default",     "aten.silu.default",       "aten.gelu.default",      "aten.tanh.default",
      "aten.clamp.default",       "aten.add.Tensor",         "aten.sub.Tensor",        "aten.mul.Tensor",
      "aten.div.Tensor",          "aten.abs.default",        "aten.neg.default",       "aten.exp.default",
      "aten.sqrt.default",        "aten.rsqrt.default",      "aten.leaky_relu.default", "aten.maximum.default",
      "aten.minimum.default",     "operator.getitem",        "aten.clone.default",      "aten.cat.default",
      "xnnpack.add_clamp.Tensor", "xnnpack.sub_clamp.Tensor", "xnnpack.mul_clamp.Tensor",
  };
  return n.isCall() && kOps.count(ir::opName(n.op)) > 0;
}

bool nhwcOp(const ir::Node& n) {
  static const std::unordered_set<std::string> kOps = {
      "aten.convolution.default",     "xnnpack.convolution_clamp.default", "aten.max_pool2d.default",
      "aten.max_pool2d_with_indices.default", "aten.avg_pool2d.default", "aten.mean.dim",
      "aten.upsample_bilinear2d.vec", "aten.upsample_nearest2d.vec",      "aten._adaptive_avg_pool2d.default",
  };
  return n.isCall() && kOps.count(ir::opName(n.op)) > 0;
}

const ir::DimOrder kNhwc = ir::DimOrder::of({0, 2, 3, 1});

}  // namespace

ChannelsLastTaggedReshapePass::ChannelsLastTaggedReshapePass()
    : InPlacePass("ChannelsLastTaggedReshapePass",
                  "NHWC for conv/pool/mean/upsample, NCHW for view/linear and outputs; converts where layouts meet") {
  targets({"aten.convolution.default", "xnnpack.convolution_clamp.default", "aten.max_pool2d.default",
           "aten.max_pool2d_with_indices.default", "aten.avg_pool2d.default", "aten.upsample_bilinear2d.vec",
           "aten.upsample_nearest2d.vec", "aten._adaptive_avg_pool2d.default"});
  toNhwc_ = stat("to_nhwc", "conversions to channels-last inserted");
  toNchw_ = stat("to_nchw", "conversions to contiguous inserted");
}

Status ChannelsLastTaggedReshapePass::transform(GraphEditor& ed) {
  ir::Graph& g = ed.graph();
  std::map<std::pair<uint64_t, bool>, ir::ValueRef> converted;  // (value, to NHWC) -> conversion
  auto key = [](ir::ValueRef r) { return (uint64_t(r.node) << 32) | r.output; };
  std::vector<ir::NodeId> order;
  for (const ir::NodePtr& p : g.nodes()) order.push_back(p->id);
  std::vector<ir::TensorMeta> metas;
  for (ir::NodeId id : order) {
    const ir::Node& n0 = g.node(id);
    if (n0.kind != ir::NodeKind::Call && n0.kind != ir::NodeKind::Output) continue;
    if (n0.isCall() && (isConversion(n0) || !allowedToTransform(n0))) continue;
    // What each rank-4 activation input must be. NHWC ops want their data input in NHWC;
    // layout-agnostic ops keep a common layout (mixed inputs all go NHWC, as upstream); every
    // other op and the graph outputs want NCHW.
    std::vector<std::pair<ir::ValueRef, Need>> needs;
    const bool agnostic = layoutAgnostic(n0);
    const bool nhwc = nhwcOp(n0);
    bool anyNhwc = false, anyNchw = false;
    auto activation = [&](const ir::ValueRef& r) {
      const ir::Node* p = g.find(r.node);
      return p && p->kind != ir::NodeKind::GetAttr && g.meta(r).rank() == 4;
    };
    if (agnostic)
      n0.forEachInput([&](const ir::ValueRef& r) {
        if (!activation(r)) return;
        (g.meta(r).dimOrder == kNhwc ? anyNhwc : anyNchw) = true;
      });
    size_t argIdx = 0;
    n0.forEachInput([&](const ir::ValueRef& r) {
      const size_t my = argIdx++;
      if (!activation(r)) return;
      const bool isNhwc = g.meta(r).dimOrder == kNhwc;
      Need need = Need::Nchw;
      if (nhwc) need = my == 0 ? Need::Nhwc : Need::Any;  // weights/bias are not activations
      else if (agnostic) need = anyNhwc && anyNchw ? Need::Nhwc : Need::Any;
      if (need == Need::Any || (need == Need::Nhwc) == isNhwc) return;
      needs.emplace_back(r, need);
    });
    for (auto& [r, need] : needs) {
      const bool toNhwc = need == Need::Nhwc;
      auto it = converted.find({key(r), toNhwc});
      ir::ValueRef conv;
      if (it != converted.end()) {
        conv = it->second;
      } else {
        ir::EnumArg mf{ir::EnumKind::MemoryFormat, toNhwc ? kMemoryFormatChannelsLast : kMemoryFormatContiguous};
        const std::string base = g.node(r.node).name + (toNhwc ? "_to_nhwc" : "_to_nchw");
        passes::NodeBuilder build(ed, id);
        build.setDerivedFrom({r.node});
        auto c = build.op("aten.clone.default", {r}, {{"memory_format", mf}}, base);
        if (!c) return c.status().withContext(fmt::format("ChannelsLastTaggedReshape at '{}': ", g.node(id).name));
        conv = *c;
        converted[{key(r), toNhwc}] = conv;
        bump(toNhwc ? toNhwc_ : toNchw_);
      }
      ed.replaceUse(id, r, conv);
    }
    // Keep metadata current so later decisions see this node's layout.
    const ir::Node& n = g.node(id);
    if (n.isCall()) {
      LS_RETURN_IF_ERROR(ops::inferNode(g, n, metas));
      if (metas != n.outputs) g.mutableNode(id).outputs = metas;
    }
  }
  return Status::ok();
}

// ---------------------------------------------------------------- RemoveRedundantCopy

RemoveRedundantCopyPass::RemoveRedundantCopyPass()
    : InPlacePass("RemoveRedundantCopyPass", "Removes memory-format conversions that do nothing or cancel out") {
  targets({"aten.clone.default"});
  removed_ = stat("removed", "redundant conversions removed");
}

Status RemoveRedundantCopyPass::transform(GraphEditor& ed) {
  ir::Graph& g = ed.graph();
  for (ir::NodeId id : nodesInOrder(g, targetOps())) {
    const ir::Node& n = g.node(id);
    if (!isConversion(n) || !allowedToTransform(n) || !n.args[0].ref()) continue;
    ir::ValueRef in = *n.args[0].ref();
    const ir::DimOrder& want = n.meta(0).dimOrder;
    ir::ValueRef repl{};
    bool found = false;
    if (g.meta(in).dimOrder == want) {
      repl = in;
      found = true;
    } else if (const ir::Node* p = g.find(in.node); p && isConversion(*p) && p->args[0].ref() &&
                                                    g.meta(*p->args[0].ref()).dimOrder == want) {
      repl = *p->args[0].ref();  // A -> B -> A
      found = true;
    }
    if (!found) continue;
    ed.replaceAllUses({id, 0}, repl);
    LS_RETURN_IF_ERROR(ed.erase(id));
    if (const ir::Node* p = g.find(in.node); p && isConversion(*p) && g.users(p->id).empty())
      LS_RETURN_IF_ERROR(ed.erase(p->id));
    bump(removed_);
  }
  return Status::ok();
}

// ---------------------------------------------------------------- registration

void registerXnnpackPasses(passes::PassRegistry& r) {
  r.add("RemoveNoopExpandCopyPass", [] { return std::make_unique<RemoveNoopExpandCopyPass>(); });
  r.add("DecomposeActivationsPass", [] { return std::make_unique<DecomposeActivationsPass>(); });
  r.add("LiftConstantScalarOperandsPass", [] { return std::make_unique<LiftConstantScalarOperandsPass>(); });
  r.add("ConvertToLinearPass", [] { return std::make_unique<ConvertToLinearPass>(); });
  r.add("ConvertToSDPAPass", [] { return std::make_unique<ConvertToSDPAPass>(); });
  r.add("ConstPropPass", makeConstPropPass);
  r.add("FuseBatchNormPass", makeFuseBatchNormPass);
  r.add("DecomposeBatchNormPass", makeDecomposeBatchNormPass);
  r.add("FuseActivationPass", [] { return std::make_unique<FuseActivationPass>(); });
  r.add("DecomposeConcatenatePass", [] { return std::make_unique<DecomposeConcatenatePass>(); });
  r.add("ChannelsLastTaggedReshapePass", [] { return std::make_unique<ChannelsLastTaggedReshapePass>(); });
  r.add("RemoveRedundantCopyPass", [] { return std::make_unique<RemoveRedundantCopyPass>(); });
  r.add("XnnpackPartitionPass", [] { return std::make_unique<XnnpackPartitionPass>(); });
}

void registerXnnpackPipelines(passes::PipelineRegistry& r) {
  r.add({"xnnpack",
         "ExecuTorch XNNPACK: transform passes (LiftConstantScalarOperands with its SDPA guard), preprocess "
         "passes, then the partitioner (delegate subgraphs as call_delegate nodes)",
         {"DecomposeActivationsPass", "RemoveNoopExpandCopyPass", "LiftConstantScalarOperandsPass", "RemoveNoopClonePass", "ConvertToLinearPass",
          "ConvertToSDPAPass", "ConstPropPass", "FuseBatchNormPass", "DecomposeBatchNormPass", "FuseActivationPass",
          "DecomposeConcatenatePass", "RemoveGetItemPass", "CleanupGetItemPass", "ChannelsLastTaggedReshapePass",
          "RemoveRedundantCopyPass", "DeadCodeEliminationPass", "XnnpackPartitionPass"}});
}

}  // namespace ls::xnnpack
