// Attention matching shared by LiftConstantScalarOperandsPass (its SDPA guard) and
// ConvertToSDPAPass, so the guard protects exactly the scales the conversion reads.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <unordered_set>

#include "core/backends/xnnpack/xnnpack_ops.h"
#include "core/backends/xnnpack/xnnpack_passes.h"
#include "core/backends/xnnpack/xnnpack_util.h"
#include "core/passes/node_builder.h"
#include "core/ir/op_ref.h"

namespace ls::xnnpack {

// ---------------------------------------------------------------- matching

bool isLayoutOnlyOp(ir::OpId op) {
  static const std::array<ir::OpId, 12> kOps = {
      ir::internOp("aten.view_copy.default"),      ir::internOp("aten._unsafe_view.default"),
      ir::internOp("aten.expand_copy.default"),    ir::internOp("aten.permute_copy.default"),
      ir::internOp("aten.transpose_copy.int"),     ir::internOp("aten.t_copy.default"),
      ir::internOp("aten.clone.default"),          ir::internOp("aten.unsqueeze_copy.default"),
      ir::internOp("aten.squeeze_copy.dim"),       ir::internOp("aten.squeeze_copy.dims"),
      ir::internOp("aten.alias_copy.default"),     ir::internOp("aten.lift_fresh_copy.default"),
  };
  return std::find(kOps.begin(), kOps.end(), op) != kOps.end();
}

std::optional<ScaleSite> scalarScale(const ir::Graph& g, const ir::Node& n) {
  if (!n.isCall() || n.args.size() < 2) return std::nullopt;
  const bool mul = n.op == LS_OP("aten.mul.Scalar") || n.op == LS_OP("aten.mul.Tensor");
  const bool div = n.op == LS_OP("aten.div.Scalar") || n.op == LS_OP("aten.div.Tensor");
  if (!mul && !div) return std::nullopt;
  int tensorIdx = -1;
  std::optional<double> c;
  if (n.args[0].ref() && n.args[1].isNumber()) {
    tensorIdx = 0;
    c = n.args[1].number();
  } else if (mul && n.args[1].ref() && n.args[0].isNumber()) {
    tensorIdx = 1;
    c = n.args[0].number();
  }
  if (tensorIdx < 0 || !c) return std::nullopt;
  if (div && *c == 0.0) return std::nullopt;
  ScaleSite s;
  s.node = n.id;
  s.input = *n.args[size_t(tensorIdx)].ref();
  if (!ir::isFloating(g.meta(s.input).dtype)) return std::nullopt;
  s.factor = div ? 1.0 / *c : *c;
  return s;
}

namespace {

/// Walks from `v` (an operand of an attention bmm) back through layout-only ops to a scalar
/// scale. Removable when every node on the way (scale included) has a single user.
std::optional<ScaleSite> scaleOnPath(const ir::Graph& g, ir::ValueRef v, ir::NodeId consumer) {
  bool single = true;
  for (int step = 0; step < 32; ++step) {
    const ir::Node* n = g.find(v.node);
    if (!n || !n->isCall()) return std::nullopt;
    single = single && userCount(g, n->id) == 1;
    if (auto s = scalarScale(g, *n)) {
      s->removable = single;
      s->consumer = consumer;
      return s;
    }
    if (!isLayoutOnlyOp(n->op) || n->args.empty() || !n->args[0].ref()) return std::nullopt;
    consumer = n->id;
    v = *n->args[0].ref();
  }
  return std::nullopt;
}

}  // namespace

std::vector<AttentionMatch> findAttention(const ir::Graph& g) {
  std::vector<AttentionMatch> out;
  const ir::OpId bmmOp = ir::internOp("aten.bmm.default");
  for (const char* smName : {"aten._softmax.default", "aten.softmax.int"}) {
    for (ir::NodeId sid : g.nodesOfOp(ir::internOp(smName))) {
      const ir::Node& sm = g.node(sid);
      const ir::Node* in = producer(g, sm, 0);
      if (!in || sm.args.size() < 2 || !sm.args[1].asInt()) continue;
      const int rank = sm.meta(0).rank();
      int64_t dim = *sm.args[1].asInt();
      if ((dim < 0 ? dim + rank : dim) != rank - 1) continue;
      AttentionMatch m;
      m.softmax = sid;
      if (auto post = scalarScale(g, *in)) {
        if (userCount(g, in->id) != 1) continue;
        post->removable = true;
        post->consumer = sid;
        m.postScale = post;
        in = g.find(post->input.node);
        if (!in) continue;
      }
      if (in->op != bmmOp || userCount(g, in->id) != 1 || !in->args[0].ref() || !in->args[1].ref()) continue;
      m.bmm1 = in->id;
      auto users = g.users(sid);
      if (users.size() != 1) continue;
      const ir::Node& b2 = g.node(users[0]);
      if (b2.op != bmmOp || b2.args.size() < 2 || !b2.args[0].ref() || b2.args[0].ref()->node != sid ||
          !b2.args[1].ref())
        continue;
      m.bmm2 = b2.id;
      m.qScale = scaleOnPath(g, *in->args[0].ref(), in->id);
      m.kScale = scaleOnPath(g, *in->args[1].ref(), in->id);
      const ir::ValueRef kT = *in->args[1].ref();
      const ir::Node* kt = g.find(kT.node);
      const int r = g.meta(kT).rank();
      if (kt && kt->isCall() && r >= 2 && kT.output == 0 && userCount(g, kT.node) == 1 && kt->args[0].ref() &&
          !(kT == *in->args[0].ref())) {
        auto perm = permutationOf(*kt, r);
        bool swapsLast = perm.has_value();
        for (int i = 0; perm && i < r; ++i)
          swapsLast = swapsLast && (*perm)[size_t(i)] == (i == r - 1 ? r - 2 : (i == r - 2 ? r - 1 : i));
        if (swapsLast) m.keyBeforeTranspose = *kt->args[0].ref();
      }
      out.push_back(m);
    }
  }
  std::sort(out.begin(), out.end(), [&](const AttentionMatch& a, const AttentionMatch& b) {
    return g.position(a.bmm2) < g.position(b.bmm2);
  });
  return out;
}

// ---------------------------------------------------------------- LiftConstantScalarOperands

namespace {

struct LiftSpec {
  std::string_view from, to;
  bool scalarOp;  ///< .Scalar overload: tensor at 0, Scalar at 1
  bool reversed;  ///< rsub: other - alpha * self
};
constexpr std::array<LiftSpec, 9> kLift = {{
    {"aten.mul.Scalar", "aten.mul.Tensor", true, false},
    {"aten.div.Scalar", "aten.div.Tensor", true, false},
    {"aten.add.Scalar", "aten.add.Tensor", true, false},
    {"aten.sub.Scalar", "aten.sub.Tensor", true, false},
    {"aten.rsub.Scalar", "aten.sub.Tensor", true, true},
    {"aten.mul.Tensor", "aten.mul.Tensor", false, false},
    {"aten.div.Tensor", "aten.div.Tensor", false, false},
    {"aten.add.Tensor", "aten.add.Tensor", false, false},
    {"aten.sub.Tensor", "aten.sub.Tensor", false, false},
}};

const LiftSpec* liftSpec(ir::OpId op) {
  const std::string& name = ir::opName(op);
  for (const LiftSpec& s : kLift)
    if (s.from == name) return &s;
  return nullptr;
}

/// Index of the Python-number operand (0 or 1) of a liftable node, or -1.
int numberOperand(const ir::Node& n, const LiftSpec& s) {
  if (n.args.size() < 2) return -1;
  if (s.scalarOp) return n.args[0].ref() && n.args[1].isNumber() ? 1 : -1;
  if (n.args[0].ref() && n.args[1].isNumber()) return 1;
  if (n.args[1].ref() && n.args[0].isNumber()) return 0;
  return -1;
}

}  // namespace

LiftConstantScalarOperandsPass::LiftConstantScalarOperandsPass(bool sdpaGuard)
    : InPlacePass("LiftConstantScalarOperandsPass",
                  "Lifts Python-scalar operands of binary ops into 0-d constants (keeps attention scales for SDPA)"),
      guard_(sdpaGuard) {
  std::vector<std::string> ops;
  for (const LiftSpec& s : kLift) ops.emplace_back(s.from);
  targets(ops);
  lifted_ = stat("lifted", "scalar operands lifted into constants");
  keptSdpa_ = stat("kept_sdpa_scale", "attention scales kept for ConvertToSDPA (SDPA guard)");
  skippedDtype_ = stat("skipped_dtype", "left alone: bool tensor, or integer tensor with a float scalar");
}

ShouldRun LiftConstantScalarOperandsPass::shouldRunImpl(const ir::Graph& g, const PassContext&) const {
  ShouldRun base = targetScan(g);
  if (!base.run) return base;
  for (ir::OpId op : targetOps())
    for (ir::NodeId id : g.nodesOfOp(op))
      if (const LiftSpec* s = liftSpec(op); s && numberOperand(g.node(id), *s) >= 0) return ShouldRun::yes();
  for (const auto& [name, sg] : g.subgraphs())
    if (shouldRun(*sg, {}).run) return ShouldRun::yes();
  return ShouldRun::no(passes::SkipReason::Precondition, "no binary op with a Python-scalar operand");
}

Status LiftConstantScalarOperandsPass::transform(GraphEditor& ed) {
  ir::Graph& g = ed.graph();
  std::unordered_set<ir::NodeId> guarded;
  if (guard_)
    for (const AttentionMatch& m : findAttention(g))
      for (const auto* s : {&m.qScale, &m.kScale, &m.postScale})
        if (*s) guarded.insert((*s)->node);
  std::vector<ir::NodeId> cands;
  for (ir::OpId op : targetOps())
    for (ir::NodeId id : g.nodesOfOp(op)) cands.push_back(id);
  std::sort(cands.begin(), cands.end(), [&](auto a, auto b) { return g.position(a) < g.position(b); });
  for (ir::NodeId id : cands) {
    const ir::Node& n = g.node(id);
    const LiftSpec* spec = liftSpec(n.op);
    if (!spec || !allowedToTransform(n)) continue;
    const int numIdx = numberOperand(n, *spec);
    if (numIdx < 0) continue;
    if (guarded.count(id)) {
      bump(keptSdpa_);
      continue;
    }
    const ir::Arg& num = n.args[size_t(numIdx)];
    const ir::DType xt = g.meta(*n.args[size_t(1 - numIdx)].ref()).dtype;
    exec::Tensor t;
    if (ir::isFloating(xt)) {
      t = exec::Tensor::scalar(xt, *num.number());
    } else if (ir::isIntegral(xt, false) && num.asInt()) {
      t = exec::Tensor::fromInts(xt, ir::Shape{}, {*num.asInt()});
    } else {
      bump(skippedDtype_);
      continue;
    }
    ir::ValueRef c = passes::NodeBuilder(ed, id).constant(makeConstant(g, t, ir::ConstantKind::Constant, ""), n.name + "_scalar");
    const ir::Node& cur = g.node(id);  // addConstant may have moved nodes
    std::vector<ir::Arg> args = cur.args;
    std::vector<ir::Kwarg> kwargs = cur.kwargs;
    if (spec->scalarOp && args.size() > 2) {  // Scalar alpha is positional in .Scalar, keyword-only in .Tensor
      kwargs.push_back({"alpha", args[2]});
      args.resize(2);
    }
    if (spec->reversed) {
      ir::Arg x = args[0];
      args[0] = c;
      args[1] = x;
    } else {
      args[size_t(numIdx)] = c;
    }
    ed.setCall(id, spec->to, std::move(args), std::move(kwargs));
    bump(lifted_);
  }
  return Status::ok();
}

// ---------------------------------------------------------------- ConvertToSDPA

ConvertToSDPAPass::ConvertToSDPAPass()
    : InPlacePass("ConvertToSDPAPass", "bmm(q*s, k^T) -> softmax -> bmm(., v) becomes one scaled_dot_product_attention") {
  targets({"aten._softmax.default", "aten.softmax.int"});
  matched_ = stat("matched", "attention patterns replaced by sdpa");
  scalesFolded_ = stat("scales_folded", "scalar scales folded into the sdpa scale");
}

Status ConvertToSDPAPass::transform(GraphEditor& ed) {
  ir::Graph& g = ed.graph();
  scales_.clear();
  // All matches are found on the unedited graph (their nodes are disjoint); edits then only
  // rewire and retarget nodes, and the leftovers go in one dead-code sweep.
  for (const AttentionMatch& m : findAttention(g)) {
    const ir::Node& b1 = g.node(m.bmm1);
    if (!allowedToTransform(b1) || !allowedToTransform(g.node(m.softmax)) || !allowedToTransform(g.node(m.bmm2)))
      continue;
    double factor = 1.0;
    ir::ValueRef q = *b1.args[0].ref();
    ir::ValueRef kT = *b1.args[1].ref();
    const ir::ValueRef v = *g.node(m.bmm2).args[1].ref();
    std::optional<ir::ValueRef> key = m.keyBeforeTranspose;
    // A removable scale leaves the path: the node after it reads the unscaled tensor instead
    // (layout ops commute with a scalar multiply).
    auto fold = [&](const std::optional<ScaleSite>& s, ir::ValueRef& operand) {
      if (!s || !s->removable) return;
      if (s->consumer == m.bmm1) operand = s->input;
      else ed.replaceUse(s->consumer, {s->node, 0}, s->input);
      if (key && key->node == s->node) key = s->input;  // scale directly under the k^T transpose
      factor *= s->factor;
      bump(scalesFolded_);
    };
    fold(m.qScale, q);
    fold(m.kScale, kT);
    if (m.postScale) {
      factor *= m.postScale->factor;
      bump(scalesFolded_);
    }
    ir::ValueRef k;
    if (key) {
      k = *key;
    } else {
      passes::NodeBuilder build(ed, m.bmm2);
      build.setDerivedFrom({m.bmm1});
      auto t = build.op("aten.transpose_copy.int", {kT, int64_t(-2), int64_t(-1)}, {}, g.node(m.bmm1).name + "_key");
      if (!t) return t.status().withContext(fmt::format("ConvertToSDPA at '{}': ", g.node(m.bmm1).name));
      k = *t;
    }
    ed.setCall(m.bmm2, kSdpaOp, {q, k, v}, {{"scale", factor}});
    for (ir::NodeId id : {m.bmm1, m.softmax}) g.mutableNode(m.bmm2).provenance.derivedFrom.push_back(id);
    scales_.push_back(factor);
    bump(matched_);
  }
  if (!scales_.empty()) ed.eliminateDeadCode();
  return Status::ok();
}

}  // namespace ls::xnnpack
