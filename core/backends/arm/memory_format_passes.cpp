// Memory-format passes of the Arm pipelines: ToTosaMemoryFormatPass (NHWC regions with
// boundary TRANSPOSEs), FuseTosaTransposesPass (identity / inverse / composition /
// propagation) and PropagateTransposesPass (the tosa-permute strategy's sinking).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>
#include <set>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/transforms/constant_values.h"

namespace ls::arm {

using ir::NodeId;
using ir::Shape;

namespace {

/// Per-tensor qparams do not depend on the layout: the NHWC version of an annotated value
/// keeps them (per-channel ones would need their axis permuted; activations are per tensor).
void keepPerTensorQuant(ir::Graph& g, const ir::TensorMeta& from, ir::ValueRef to) {
  if (!from.quant || from.quant->scheme != ir::QScheme::PerTensor) return;
  const ir::TensorMeta& tm = g.meta(to);
  if (tm.quant || tm.dtype != from.dtype) return;
  g.mutableNode(to.node).outputs[to.output].quant = from.quant;
}

const std::vector<int64_t> kToNhwc{0, 2, 3, 1};
const std::vector<int64_t> kToNchw{0, 3, 1, 2};

enum class Agn { None, Unary, Binary, Nary, Concat, Reduce, ShapeArgs };

/// How a layout-agnostic op reads its layout-carrying operands.
struct AgnosticInfo {
  Agn kind = Agn::None;
  std::vector<int> operands;  ///< arg indices of layout-carrying tensors (Concat: arg 0 list)
  std::vector<int> shapeArgs; ///< CONST_SHAPE arg indices to permute
  bool pairs = false;         ///< PAD padding: two entries per dim
};

AgnosticInfo agnostic(ir::OpId op) {
  // Keyed by interned op id (built once from the names below).
  static const std::unordered_map<ir::OpId, AgnosticInfo> table = [] {
    std::map<std::string, AgnosticInfo> t;
    for (const char* u : {"CLAMP", "SIGMOID", "TANH", "ERF", "EXP", "LOG", "RECIPROCAL", "RSQRT", "ABS", "CEIL", "FLOOR",
                          "SIN", "COS", "LOGICAL_NOT", "NEGATE", "RESCALE", "TABLE", "CAST", "IDENTITY"})
      t[tosaOp(u)] = {Agn::Unary, {0}, {}, false};
    for (const char* b : {"ADD", "SUB", "MUL", "MAXIMUM", "MINIMUM", "POW", "EQUAL", "GREATER", "GREATER_EQUAL",
                          "LOGICAL_AND", "LOGICAL_OR", "LOGICAL_XOR", "INTDIV"})
      t[tosaOp(b)] = {Agn::Binary, {0, 1}, {}, false};
    t["tosa.SELECT"] = {Agn::Nary, {0, 1, 2}, {}, false};
    t["tosa.CONCAT"] = {Agn::Concat, {0}, {}, false};
    for (const char* r : {"REDUCE_SUM", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PRODUCT", "REDUCE_ANY", "REDUCE_ALL"})
      t[tosaOp(r)] = {Agn::Reduce, {0}, {}, false};
    t["tosa.SLICE"] = {Agn::ShapeArgs, {0}, {1, 2}, false};
    t["tosa.TILE"] = {Agn::ShapeArgs, {0}, {1}, false};
    t["tosa.PAD"] = {Agn::ShapeArgs, {0}, {1}, true};
    std::unordered_map<ir::OpId, AgnosticInfo> byId;
    for (const auto& [name, info] : t) byId.emplace(ir::internOp(name), info);
    return byId;
  }();
  auto it = table.find(op);
  return it == table.end() ? AgnosticInfo{} : it->second;
}

bool isTranspose(const ir::Node& n) {
  static const ir::OpId t = ir::internOp("tosa.TRANSPOSE");
  return n.isCall() && n.op == t;
}

std::vector<int64_t> permsOf(const ir::Node& n) {
  const ir::Arg* p = n.kwarg("perms");
  return p && p->asIntList() ? *p->asIntList() : std::vector<int64_t>{};
}

/// True when permuting `s` by `perm` only moves unit dims (a relayout that is a reshape).
bool onlyUnitDimsMove(const Shape& s, const std::vector<int64_t>& perm) {
  std::vector<int64_t> a, b;
  for (int i = 0; i < s.rank(); ++i)
    if (s[i] != 1) a.push_back(i);
  for (size_t i = 0; i < perm.size(); ++i)
    if (s[int(perm[i])] != 1) b.push_back(perm[i]);
  return a == b;
}

/// Every value ref an op reads through its layout-carrying operands (flattening CONCAT's list).
std::vector<ir::ValueRef> layoutInputs(const ir::Node& n, const AgnosticInfo& info) {
  std::vector<ir::ValueRef> v;
  for (int i : info.operands) {
    if (size_t(i) >= n.args.size()) continue;
    if (auto* r = n.args[size_t(i)].ref()) v.push_back(*r);
    else if (auto* l = n.args[size_t(i)].asRefList())
      for (auto& x : *l) v.push_back(x);
  }
  return v;
}

/// Rewrites the op's attributes for operating on tensors permuted by `perm` relative to the
/// current ones (new dim i = old dim perm[i]): axis and CONST_SHAPE lists.
Result<std::pair<std::vector<ir::Arg>, std::vector<ir::Kwarg>>> permutedAttrs(Builder& b, const ir::Node& n,
                                                                              const AgnosticInfo& info,
                                                                              const std::vector<int64_t>& perm) {
  std::vector<ir::Arg> args(n.args.begin(), n.args.end());
  std::vector<ir::Kwarg> kwargs = n.kwargs;
  std::vector<int64_t> inv = inversePerm(perm);
  if (info.kind == Agn::Concat || info.kind == Agn::Reduce)
    for (ir::Kwarg& k : kwargs)
      if (k.name == "axis" && k.value.asInt()) k.value = inv[size_t(*k.value.asInt())];
  for (int si : info.shapeArgs) {
    auto vals = constShapeValues(b.graph(), *args[size_t(si)].ref());
    if (!vals) return Status::error(fmt::format("node '{}': arg #{} is not a CONST_SHAPE", n.name, si));
    std::vector<int64_t> nv(vals->size());
    for (size_t i = 0; i < perm.size(); ++i) {
      if (info.pairs) {
        nv[2 * i] = (*vals)[size_t(2 * perm[i])];
        nv[2 * i + 1] = (*vals)[size_t(2 * perm[i] + 1)];
      } else {
        nv[i] = (*vals)[size_t(perm[i])];
      }
    }
    auto cs = b.constShape(nv);
    if (!cs) return cs.status();
    args[size_t(si)] = *cs;
  }
  return std::make_pair(std::move(args), std::move(kwargs));
}

/// The value `v` (in the current layout) expressed in the layout permuted by `perm`, for a
/// constant or a one-element operand; nullopt when it is neither.
std::optional<ir::ValueRef> permuteConstantOperand(Builder& b, ir::ValueRef v, const std::vector<int64_t>& perm,
                                                   size_t* constCounter) {
  const ir::TensorMeta& m = b.meta(v);
  if (m.rank() != int(perm.size())) return std::nullopt;
  if (permuteShape(m.shape, perm) == m.shape && onlyUnitDimsMove(m.shape, perm)) return v;  // e.g. [1,1,1,1]
  const ir::Constant* c = transforms::constantBehind(b.graph(), v);
  if (!c) return std::nullopt;
  if (constCounter) ++*constCounter;
  return b.permuted(*c, perm, {}, "permuted_const");
}

}  // namespace

// ====================================================================== FuseTosaTransposes

FuseTosaTransposesPass::FuseTosaTransposesPass()
    : InPlacePass("FuseTosaTransposesPass", "Removes redundant TOSA TRANSPOSEs: identity, inverse pairs, composition, propagation") {
  targets({"tosa.TRANSPOSE"});
  identity_ = stat("identity_removed", "identity permutations removed");
  inverse_ = stat("inverse_pairs_cancelled", "TRANSPOSE(p) -> TRANSPOSE(inverse p) pairs cancelled");
  composed_ = stat("composed", "consecutive transposes composed into one");
  propagated_ = stat("propagated_cancelled", "transposes cancelled through layout-agnostic ops (pairs)");
}

Status FuseTosaTransposesPass::transform(passes::GraphEditor& ed) {
  ir::Graph& g = ed.graph();
  static const ir::OpId tr = ir::internOp("tosa.TRANSPOSE");
  bool progress = true;
  while (progress) {
    progress = false;
    std::vector<NodeId> ts(g.nodesOfOp(tr).begin(), g.nodesOfOp(tr).end());
    std::sort(ts.begin(), ts.end(), [&](auto a, auto b) { return g.position(a) < g.position(b); });
    for (NodeId id : ts) {
      if (!g.contains(id)) continue;
      const ir::Node& t = g.node(id);
      const ir::ValueRef* in = t.args.empty() ? nullptr : t.args[0].ref();
      if (!in) continue;
      std::vector<int64_t> tp = permsOf(t);
      // 1. identity
      if (isIdentityPerm(tp)) {
        ed.replaceAllUses({id, 0}, *in);
        LS_RETURN_IF_ERROR(ed.erase(id));
        bump(identity_);
        progress = true;
        continue;
      }
      const ir::Node& p = g.node(in->node);
      // 2./3. directly after another TRANSPOSE
      if (isTranspose(p)) {
        std::vector<int64_t> c = composePerms(permsOf(p), tp);
        ir::ValueRef src = *p.args[0].ref();
        if (isIdentityPerm(c)) {
          ed.replaceAllUses({id, 0}, src);
          LS_RETURN_IF_ERROR(ed.erase(id));
          bump(inverse_);
        } else {
          ed.setCall(id, "tosa.TRANSPOSE", {src}, {{"perms", ir::IntList(c)}});
          bump(composed_);
        }
        progress = true;
        continue;
      }
      // 4. propagation: walk up a chain of single-user layout-agnostic ops to a TRANSPOSE
      // whose permutation this one inverts.
      std::vector<NodeId> chain;
      std::vector<int> chainArg;  // which operand of each chain op carries the value
      ir::ValueRef cur = *in;
      bool found = false;
      for (int depth = 0; depth < 64; ++depth) {
        const ir::Node& u = g.node(cur.node);
        if (isTranspose(u)) {
          found = isIdentityPerm(composePerms(permsOf(u), tp));
          break;
        }
        AgnosticInfo info = agnostic(u.op);
        if (!u.isCall() || (info.kind != Agn::Unary && info.kind != Agn::Binary) || g.users(u.id).size() != 1) break;
        // The carried operand is the one that is not broadcast-safe; a binary op's other
        // operand must be broadcast-safe (one element), else the op blocks propagation.
        int carried = -1;
        bool ok = true;
        if (info.kind == Agn::Unary) {
          carried = info.operands[0];
        } else {
          const ir::ValueRef* r0 = u.args[0].ref();
          const ir::ValueRef* r1 = u.args[1].ref();
          if (!r0 || !r1) {
            ok = false;
          } else {
            const bool s0 = g.meta(*r0).numel() == 1, s1 = g.meta(*r1).numel() == 1;
            if (s0 && !s1) carried = 1;
            else if (s1 && !s0) carried = 0;
            else ok = false;
          }
        }
        if (!ok || carried < 0) break;
        chain.push_back(u.id);
        chainArg.push_back(carried);
        cur = *u.args[size_t(carried)].ref();
      }
      if (!found || chain.empty()) continue;
      const ir::Node& head = g.node(cur.node);  // the TRANSPOSE being cancelled
      ir::ValueRef src = *head.args[0].ref();
      // Rewire the chain's first op (closest to `head`) to read the un-transposed source;
      // the chain now runs in the source layout and the final TRANSPOSE disappears.
      NodeId first = chain.back();
      std::vector<ir::Arg> args(g.node(first).args.begin(), g.node(first).args.end());
      args[size_t(chainArg.back())] = src;
      ed.setArgs(first, std::move(args));
      ed.replaceAllUses({id, 0}, {chain.front(), 0});
      LS_RETURN_IF_ERROR(ed.erase(id));
      // Rules only read permutations and element counts (layout-independent), so the
      // metadata refresh of the rewired chain runs once per sweep, below.
      bump(propagated_);
      progress = true;
    }
    if (progress) LS_RETURN_IF_ERROR(ed.finish());
  }
  if (ed.changed()) ed.eliminateDeadCode();
  return Status::ok();
}

// ====================================================================== ToTosaMemoryFormat

ToTosaMemoryFormatPass::ToTosaMemoryFormatPass()
    : InPlacePass("ToTosaMemoryFormatPass",
                  "NHWC for rank-4 values: layout-agnostic ops run on NHWC tensors, TRANSPOSE only at boundaries") {
  targets({"tosa.CONV2D", "tosa.DEPTHWISE_CONV2D", "tosa.TRANSPOSE_CONV2D", "tosa.MAX_POOL2D", "tosa.AVG_POOL2D",
           "tosa.RESIZE"});
  toNhwc_ = stat("ops_to_nhwc", "layout-agnostic ops moved to NHWC");
  boundaries_ = stat("boundary_transposes", "TRANSPOSEs inserted at NCHW -> NHWC boundaries");
  reshapes_ = stat("boundary_reshapes", "boundaries that only move unit dims, done with RESHAPE");
  constants_ = stat("constants_permuted", "constant operands materialised in NHWC");
  removed_ = stat("wrappers_removed", "NHWC wrapper transposes made redundant");
}

Status ToTosaMemoryFormatPass::transform(passes::GraphEditor& ed) {
  ir::Graph& g = ed.graph();
  std::map<NodeId, ir::ValueRef> nhwc;  // logical value (output 0 of node) -> its NHWC version
  std::vector<NodeId> order;
  for (const ir::NodePtr& p : g.nodes()) order.push_back(p->id);
  size_t constCount = 0;
  auto isNhwcProducer = [&](const ir::Node& n) {
    static const ir::OpId ops[] = {ir::internOp("tosa.CONV2D"),     ir::internOp("tosa.DEPTHWISE_CONV2D"),
                                   ir::internOp("tosa.TRANSPOSE_CONV2D"), ir::internOp("tosa.MAX_POOL2D"),
                                   ir::internOp("tosa.AVG_POOL2D"), ir::internOp("tosa.RESIZE")};
    return n.isCall() && std::find(std::begin(ops), std::end(ops), n.op) != std::end(ops);
  };
  for (NodeId id : order) {
    if (!g.contains(id)) continue;
    const ir::Node& n = g.node(id);
    if (!n.isCall() || n.outputs.size() != 1) continue;
    if (isTranspose(n)) {
      const ir::ValueRef* in = n.args[0].ref();
      std::vector<int64_t> p = permsOf(n);
      if (!in || p.size() != 4) continue;
      if (p == kToNchw && (isNhwcProducer(g.node(in->node)) || nhwc.count(in->node) == 0)) {
        // A "back to NCHW" wrapper: its output's NHWC version is its input.
        if (isNhwcProducer(g.node(in->node)) || g.meta(*in).dimOrder == nhwcOrder()) nhwc[id] = *in;
        continue;
      }
      if (p == kToNhwc) {
        auto it = nhwc.find(in->node);
        if (it != nhwc.end() && in->output == 0) {
          ed.replaceAllUses({id, 0}, it->second);
          LS_RETURN_IF_ERROR(ed.erase(id));
          bump(removed_);
        } else {
          nhwc[in->node] = {id, 0};  // boundary (e.g. after a graph input), shared by later consumers
        }
      }
      continue;
    }
    AgnosticInfo info = agnostic(n.op);
    if (info.kind == Agn::None || n.meta().rank() != 4) continue;
    std::vector<ir::ValueRef> ins = layoutInputs(n, info);
    bool anyNhwc = false, allRank4 = true;
    for (const ir::ValueRef& r : ins) {
      if (g.meta(r).rank() != 4) allRank4 = false;
      if (r.output == 0 && nhwc.count(r.node)) anyNhwc = true;
    }
    if (!anyNhwc || !allRank4) continue;
    // Convert: NHWC operands for every layout input.
    Builder b(ed, id);
    auto nhwcOf = [&](ir::ValueRef r) -> Result<ir::ValueRef> {
      if (r.output == 0)
        if (auto it = nhwc.find(r.node); it != nhwc.end()) return it->second;
      if (auto c = permuteConstantOperand(b, r, kToNhwc, &constCount)) return *c;
      const ir::TensorMeta& m = g.meta(r);
      Result<ir::ValueRef> v = onlyUnitDimsMove(m.shape, kToNhwc) ? b.reshape(r, permuteShape(m.shape, kToNhwc))
                                                                  : b.transpose(r, kToNhwc);
      if (!v) return v;
      keepPerTensorQuant(g, m, *v);
      bump(onlyUnitDimsMove(m.shape, kToNhwc) ? reshapes_ : boundaries_);
      if (r.output == 0) nhwc[r.node] = *v;
      return v;
    };
    std::vector<ir::Arg> args(n.args.begin(), n.args.end());
    for (int i : info.operands) {
      if (size_t(i) >= args.size()) continue;
      if (auto* r = args[size_t(i)].ref()) {
        auto v = nhwcOf(*r);
        if (!v) return v.status();
        args[size_t(i)] = *v;
      } else if (auto* l = args[size_t(i)].asRefList()) {
        ir::RefList nl;
        for (const ir::ValueRef& x : *l) {
          auto v = nhwcOf(x);
          if (!v) return v.status();
          nl.push_back(*v);
        }
        args[size_t(i)] = nl;
      }
    }
    ir::Node tmp = n;
    tmp.args = args;
    auto attrs = permutedAttrs(b, tmp, info, kToNhwc);
    if (!attrs) return attrs.status();
    auto conv = b.op(ir::opName(n.op), std::move(attrs->first), std::move(attrs->second), n.name + "_nhwc");
    if (!conv) return conv.status();
    keepPerTensorQuant(g, n.meta(), *conv);
    // Logical users read one boundary TRANSPOSE back to NCHW (one per producer).
    const ir::TensorMeta& cm = g.meta(*conv);
    Builder after(ed, conv->node, Builder::Placement::After);
    auto back = onlyUnitDimsMove(cm.shape, kToNchw) ? after.reshape(*conv, n.meta().shape) : after.transpose(*conv, kToNchw);
    if (!back) return back.status();
    ed.replaceAllUses({id, 0}, *back);
    LS_RETURN_IF_ERROR(ed.erase(id));
    nhwc[back->node] = *conv;
    bump(toNhwc_);
  }
  bump(constants_, int64_t(constCount));
  if (ed.changed()) ed.eliminateDeadCode();
  return Status::ok();
}

// ====================================================================== PropagateTransposes

PropagateTransposesPass::PropagateTransposesPass()
    : InPlacePass("PropagateTransposesPass", "Sinks TRANSPOSEs below layout-agnostic ops so permutes meet and cancel") {
  targets({"tosa.TRANSPOSE"});
  sunk_ = stat("sunk", "ops whose operand transposes were moved below them");
  constants_ = stat("constants_permuted", "constant operands permuted at compile time");
}

Status PropagateTransposesPass::transform(passes::GraphEditor& ed) {
  ir::Graph& g = ed.graph();
  std::vector<NodeId> order;
  for (const ir::NodePtr& p : g.nodes()) order.push_back(p->id);
  size_t constCount = 0;
  for (NodeId id : order) {
    if (!g.contains(id)) continue;
    const ir::Node& n = g.node(id);
    AgnosticInfo info = agnostic(n.op);
    if (!n.isCall() || info.kind == Agn::None || n.outputs.size() != 1) continue;
    std::vector<ir::ValueRef> ins = layoutInputs(n, info);
    // Common permutation q of the transposed operands.
    std::optional<std::vector<int64_t>> q;
    bool ok = true;
    for (const ir::ValueRef& r : ins) {
      const ir::Node& p = g.node(r.node);
      if (isTranspose(p)) {
        if (q && *q != permsOf(p)) ok = false;
        q = permsOf(p);
      }
    }
    if (!ok || !q) continue;
    Builder b(ed, id);
    std::vector<int64_t> inv = inversePerm(*q);
    auto srcOf = [&](ir::ValueRef r) -> std::optional<ir::ValueRef> {
      const ir::Node& p = g.node(r.node);
      if (isTranspose(p)) return *p.args[0].ref();
      return permuteConstantOperand(b, r, inv, &constCount);
    };
    std::vector<ir::Arg> args(n.args.begin(), n.args.end());
    for (int i : info.operands) {
      if (size_t(i) >= args.size() || !ok) continue;
      if (auto* r = args[size_t(i)].ref()) {
        auto s = srcOf(*r);
        if (!s) ok = false;
        else args[size_t(i)] = *s;
      } else if (auto* l = args[size_t(i)].asRefList()) {
        ir::RefList nl;
        for (const ir::ValueRef& x : *l) {
          auto s = srcOf(x);
          if (!s) {
            ok = false;
            break;
          }
          nl.push_back(*s);
        }
        args[size_t(i)] = nl;
      }
    }
    if (!ok) continue;  // an operand is neither transposed nor constant: keep as is
    ir::Node tmp = n;
    tmp.args = args;
    auto attrs = permutedAttrs(b, tmp, info, inv);
    if (!attrs) return attrs.status();
    auto moved = b.op(ir::opName(n.op), std::move(attrs->first), std::move(attrs->second), n.name + "_sunk");
    if (!moved) return moved.status();
    auto t = b.transpose(*moved, *q);
    if (!t) return t.status();
    ed.replaceAllUses({id, 0}, *t);
    LS_RETURN_IF_ERROR(ed.erase(id));
    bump(sunk_);
  }
  bump(constants_, int64_t(constCount));
  if (ed.changed()) ed.eliminateDeadCode();
  return Status::ok();
}

void registerArmLayoutPasses(passes::PassRegistry& r) {
  r.add("FuseTosaTransposesPass", [] { return std::make_unique<FuseTosaTransposesPass>(); });
  r.add("ToTosaMemoryFormatPass", [] { return std::make_unique<ToTosaMemoryFormatPass>(); });
  r.add("PropagateTransposesPass", [] { return std::make_unique<PropagateTransposesPass>(); });
}

}  // namespace ls::arm
