// INT profile: InsertTableOpsPass (upstream InsertTableOpsPass + the TABLE op visitor).
//
// A quantised unary elementwise operator `dq(int8 x, s_in, zp_in) -> op -> q(int8, s_out,
// zp_out)` (sigmoid, tanh, hardswish, hardsigmoid, silu, gelu, elu, exp, log, erf, reciprocal,
// rsqrt, sin, cos, floor, ceil, pow by a scalar) maps each of the 256 int8 input values to one
// int8 output value, so the whole chain is one int8 tosa.TABLE(x, table) lookup with
// table[v + 128] = q(op(dq(v))) (TOSA 1.0 int8 TABLE: 256 entries, index = value + 128). The
// table is computed by the reference executor running copies of the three nodes on the 256
// int8 values: the dequantize in float32, the op's own float kernel with the node's scalar
// args, the quantize with round half to even and saturation to [qmin, qmax]. The lookup is
// therefore bit-exact with the quantised source graph, and the ops stay away from the float
// decompositions (DecomposeHardswishPass, DecomposeSiluPass, ...) and from float islands.
// The TABLE output carries the output qparams (TensorMeta::quant). An op that reads a second
// tensor (not a scalar) is no function of one int8 value and is left alone.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/exec/executor.h"
#include "core/ops/registry.h"

namespace ls::arm {

using ir::DType;
using ir::Shape;

namespace {

/// The unary ops lowered to a TABLE (upstream's TableOps that the reference executor has a
/// float kernel for) and the statistic counting each.
struct TableOp {
  const char* op;
  const char* stat;
};
const std::vector<TableOp>& tableOps() {
  static const std::vector<TableOp> t = {
      {"aten.sigmoid.default", "sigmoid"},         {"aten.tanh.default", "tanh"},
      {"aten.hardswish.default", "hardswish"},     {"aten.hardsigmoid.default", "hardsigmoid"},
      {"aten.silu.default", "silu"},               {"aten.gelu.default", "gelu"},
      {"aten.elu.default", "elu"},                 {"aten.exp.default", "exp"},
      {"aten.log.default", "log"},                 {"aten.erf.default", "erf"},
      {"aten.reciprocal.default", "reciprocal"},   {"aten.rsqrt.default", "rsqrt"},
      {"aten.sin.default", "sin"},                 {"aten.cos.default", "cos"},
      {"aten.floor.default", "floor"},             {"aten.ceil.default", "ceil"},
      {"aten.pow.Tensor_Scalar", "pow"},          {"aten.leaky_relu.default", "leaky_relu"},
      {"aten.round.default", "round"},
      {"aten.tan.default", "tan"},
      {"aten.sinh.default", "sinh"},
      {"aten.cosh.default", "cosh"},
      {"aten.asin.default", "asin"},
      {"aten.acos.default", "acos"},
      {"aten.atan.default", "atan"},
      {"aten.asinh.default", "asinh"},
      {"aten.acosh.default", "acosh"},
      {"aten.atanh.default", "atanh"},
      {"aten.expm1.default", "expm1"},
      {"aten.log1p.default", "log1p"},
      {"aten.sign.default", "sign"},
      {"aten.sqrt.default", "sqrt"}};
  return t;
}

bool readsTensor(const ir::Arg& a) { return a.ref() || a.asRefList(); }

/// A `dq -> op -> q` chain around unary op node n.
struct TableMatch {
  DqIn in;
  ir::NodeId q = ir::kInvalidNode;
  QP out;
};

std::optional<TableMatch> matchTable(const ir::Graph& g, const ir::Node& n) {
  static const ir::OpId qOp = ir::internOp(kQ);
  if (n.args.empty() || n.outputs.size() != 1 || !ir::isFloating(n.meta().dtype)) return std::nullopt;
  // Only scalar args besides the input: a second tensor makes the op no function of one value.
  for (size_t i = 1; i < n.args.size(); ++i)
    if (readsTensor(n.args[i])) return std::nullopt;
  for (const ir::Kwarg& k : n.kwargs)
    if (readsTensor(k.value)) return std::nullopt;
  Matcher m(g);
  auto in = m.dqInput(n.args[0]);
  if (!in || in->node->meta().shape != n.meta().shape) return std::nullopt;
  auto users = g.users(n.id);
  if (users.size() != 1) return std::nullopt;
  const ir::Node& q = g.node(users[0]);
  if (q.op != qOp || q.args.empty() || !q.args[0].ref() || *q.args[0].ref() != ValueRef{n.id, 0}) return std::nullopt;
  if (q.meta().dtype != DType::Int8) return std::nullopt;
  for (size_t i = 1; i < q.args.size(); ++i)
    if (readsTensor(q.args[i])) return std::nullopt;
  auto out = perTensorQP(q);
  if (!out) return std::nullopt;
  return TableMatch{*in, q.id, *out};
}

/// Copy of call node n (op, scalar args, kwargs, name) reading `x` as its first arg.
ir::Node callReading(const ir::Node& n, ValueRef x) {
  ir::Node c;
  c.kind = ir::NodeKind::Call;
  c.op = n.op;
  c.target = n.target;
  c.name = n.name;
  c.args = n.args;
  c.args[0] = ir::Arg(x);
  c.kwargs = n.kwargs;
  return c;
}

/// The int8 table of `dq -> op -> q`: entry v + 128 is what the three nodes compute for the
/// int8 input v, obtained by running copies of them on every int8 value.
Result<exec::Tensor> tableOf(const ir::Node& dq, const ir::Node& op, const ir::Node& q) {
  ir::Graph t;
  std::string inName = "int8_values";
  while (inName == dq.name || inName == op.name || inName == q.name) inName += "_";
  ir::Node in;
  in.kind = ir::NodeKind::Placeholder;
  in.name = inName;
  in.target = inName;
  in.outputs.push_back(ir::TensorMeta(DType::Int8, Shape{256}));
  ValueRef x{t.append(std::move(in)), 0};
  for (const ir::Node* n : {&dq, &op, &q}) {
    ir::Node c = callReading(*n, x);
    LS_RETURN_IF_ERROR(ops::inferNode(t, c, c.outputs));
    x = ValueRef{t.append(std::move(c)), 0};
  }
  ir::Node out;
  out.kind = ir::NodeKind::Output;
  out.name = "output";
  out.target = "output";
  out.args.push_back(ir::Arg(ir::RefList{x}));
  out.outputs.push_back(t.meta(x));
  out.flags |= ir::kFlagOutputsAsList;
  t.append(std::move(out));

  exec::Tensor values(DType::Int8, Shape{256});
  for (int64_t i = 0; i < 256; ++i) values.setInt(i, i - 128);
  exec::ExecOptions eo;
  eo.threads = 1;
  exec::Executor ex(eo);
  auto r = ex.run(t, {values});
  if (!r) return r.status();
  exec::Tensor table = std::move(r.value()[0]);
  if (table.dtype() != DType::Int8 || table.numel() != 256)
    return Status::error(fmt::format("the quantize produced {}[{}] instead of 256 int8 values",
                                     ir::dtypeName(table.dtype()), table.numel()));
  return table;
}

}  // namespace

class InsertTableOpsPass : public passes::InPlacePass {
 public:
  InsertTableOpsPass()
      : InPlacePass("InsertTableOpsPass",
                    "Lowers a quantised unary elementwise op (dq int8 -> sigmoid/tanh/hardswish/... -> q int8) to an "
                    "int8 TABLE of its 256 quantised values (INT profile)") {
    std::vector<std::string> ops;
    for (const TableOp& t : tableOps()) {
      ops.push_back(t.op);
      statOf_[ir::internOp(t.op)] = stat(t.stat, fmt::format("{} lowered to an int8 TABLE", t.op));
    }
    targets(ops);
    appliesTo(passes::Applicability::intOnly());
  }
 protected:
  Status transform(passes::GraphEditor& ed) override {
    ir::Graph& g = ed.graph();
    std::vector<ir::NodeId> ids;
    for (const TableOp& t : tableOps())
      for (ir::NodeId id : g.nodesOfOp(ir::internOp(t.op))) ids.push_back(id);
    std::sort(ids.begin(), ids.end(), [&](auto a, auto b) { return g.position(a) < g.position(b); });
    // Every match first, on the unchanged graph (its users index is built once).
    std::vector<std::pair<ir::NodeId, TableMatch>> matches;
    for (ir::NodeId id : ids)
      if (auto m = matchTable(g, g.node(id))) matches.emplace_back(id, *m);
    std::unordered_map<ir::NodeId, ValueRef> into;  // quantize -> its TABLE
    for (auto& [id, match] : matches) {
      const ir::Node& n = g.node(id);
      const TableMatch* m = &match;
      const std::string name = n.name;
      const ir::OpId op = n.op;
      auto table = tableOf(*m->in.node, n, g.node(m->q));
      if (!table)
        return Status::error(
            fmt::format("node '{}' ({}): cannot compute its int8 TABLE: {}", name, ir::opName(op), table.status().message()));
      Builder b(ed, m->q);
      ValueRef tv = b.tensor(*table, name + "_table");
      auto y = b.op("tosa.TABLE", {m->in.src, tv}, {}, name);
      if (!y) return Status::error(fmt::format("node '{}': {}", name, y.status().message()));
      g.mutableNode(y->node).outputs[y->output].quant = toQuant(m->out);
      into.emplace(m->q, *y);
      bump(statOf_.at(op));
    }
    if (into.empty()) return Status::ok();
    // One sweep rewires every reader of a replaced quantize; the rest is then dead.
    ed.replaceAllUses(into);
    ed.eliminateDeadCode();
    return Status::ok();
  }

 private:
  std::unordered_map<ir::OpId, size_t> statOf_;
};

void registerInsertTableOpsPass(passes::PassRegistry& r) {
  r.add("InsertTableOpsPass", [] { return std::make_unique<InsertTableOpsPass>(); });
}

}  // namespace ls::arm
