// Helpers shared by the Arm TOSA passes.
#include "core/backends/arm/arm_util.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <unordered_set>

#include "core/backends/arm/arm_passes.h"
#include "core/exec/kernel_util.h"
#include "core/exec/synth.h"
#include "core/ir/op_ref.h"
#include "core/ops/registry.h"
#include "core/transforms/constant_values.h"

namespace ls::arm {

Result<ValueRef> Builder::constShape(std::vector<int64_t> values) {
  return op("tosa.CONST_SHAPE", {}, {{"values", Arg(ir::IntList(std::move(values)))}}, "shape");
}

ValueRef Builder::scalar(ir::DType t, double v, int rank, std::string_view hint) {
  ir::Shape s = ir::Shape::ofRank(std::max(rank, 0), 1);  // the rank of the value it combines with (0 too)
  exec::Tensor x = exec::Tensor::fromDoubles(t, s, {v});
  return tensor(x, hint);
}

ValueRef Builder::tensor(exec::Tensor t, std::string_view hint) { return constant(makeConstant(store(), std::move(t)), hint); }

ValueRef Builder::permuted(const ir::Constant& c, std::vector<int64_t> perm, std::string label, std::string_view hint,
                           std::optional<ir::Shape> view) {
  return constant(exec::recipeConstant(exec::permuteRecipe(c, std::move(perm), std::move(label), std::move(view))), hint);
}

Result<ValueRef> Builder::transpose(ValueRef x, std::vector<int64_t> perms) {
  return op("tosa.TRANSPOSE", {x}, {{"perms", Arg(ir::IntList(std::move(perms)))}});
}

Result<ValueRef> Builder::reshape(ValueRef x, const ir::Shape& s) {
  auto sh = constShape(s.toVector());
  if (!sh) return sh.status();
  return op("tosa.RESHAPE", {x, *sh});
}

Result<ValueRef> Builder::mul(ValueRef a, ValueRef b) { return op("tosa.MUL", {a, b, mulShift()}); }

Result<ValueRef> Builder::mulScalar(ValueRef a, double v) {
  const ir::TensorMeta& m = meta(a);
  return mul(a, scalar(m.dtype, v, m.rank()));
}

Result<ValueRef> Builder::addScalar(ValueRef a, double v) {
  const ir::TensorMeta& m = meta(a);
  return op("tosa.ADD", {a, scalar(m.dtype, v, m.rank())});
}

Result<ValueRef> Builder::cast(ValueRef x, ir::DType t, std::string_view hint) {
  auto to = [&](ValueRef v, ir::DType d, std::string_view h) {
    return op("aten._to_copy.default", {v}, {{"dtype", ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(d)})}}, h);
  };
  if (meta(x).dtype == t) return x;
  if (meta(x).dtype == ir::DType::Bool && ir::isFloating(t)) {
    LS_ASSIGN_OR_RETURN(i8, to(x, ir::DType::Int8, "bool_as_int8"));
    x = i8;
  }
  return to(x, t, hint);
}

exec::Tensor constantValues(const ir::Constant& c) { return transforms::constantValues(c); }

std::optional<exec::Tensor> valueOfConstant(const ir::Graph& g, ValueRef r) { return transforms::valueOfConstant(g, r); }

ir::Constant makeConstant(ir::ConstantStore& store, exec::Tensor t, std::string fqn) {
  return transforms::makeConstant(store, std::move(t), ir::ConstantKind::Constant, std::move(fqn));
}

constexpr const char* kUnrepresentable = "is outside the range RESCALE can represent";

/// scale = multiplier * 2^-shift with a 31-bit (scale32) multiplier and shift in [2, 62].
Result<std::pair<int64_t, int64_t>> quantizeScale(double scale) {
  if (!(scale > 0) || !std::isfinite(scale)) return Status::error(fmt::format("rescale factor {} must be positive", scale));
  int e = 0;
  double m = std::frexp(scale, &e);  // scale = m * 2^e, m in [0.5, 1)
  int64_t mult = std::llround(m * double(int64_t(1) << 31));
  int64_t shift = 31 - e;
  if (mult == (int64_t(1) << 31)) mult /= 2, --shift;
  while (shift > 62) mult >>= 1, --shift;
  if (shift < 2 || mult <= 0) return Status::error(fmt::format("rescale factor {} {}", scale, kUnrepresentable));
  return std::make_pair(mult, shift);
}

bool isUnrepresentableScale(const Status& st) {
  return !st.isOk() && st.message().find(kUnrepresentable) != std::string::npos;
}

std::optional<QP> perTensorQP(const ir::Node& n) {
  auto s = sarg(n, 1).number();
  auto z = sarg(n, 2).asInt();
  auto lo = sarg(n, 3).asInt(), hi = sarg(n, 4).asInt();
  if (!s || !z || !(*s > 0)) return std::nullopt;
  QP q{*s, *z, lo ? *lo : -128, hi ? *hi : 127};
  return q;
}

std::shared_ptr<const ir::QuantParams> toQuant(const QP& q, ir::DType storage) {
  auto p = std::make_shared<ir::QuantParams>();
  p->scheme = ir::QScheme::PerTensor;
  p->storage = storage;
  p->qmin = q.qmin, p->qmax = q.qmax;
  p->scales = {q.scale};
  p->zeroPoints = {q.zp};
  return p;
}

std::optional<DqIn> Matcher::dqInput(const ir::Arg& a) const {
  static const ir::OpId dq = ir::internOp(kDq);
  const ir::Node* p = producer(a);
  if (!p || p->op != dq || p->args.empty() || !p->args[0].ref()) return std::nullopt;
  if (g_.meta(*p->args[0].ref()).dtype != ir::DType::Int8) return std::nullopt;
  auto qp = perTensorQP(*p);
  if (!qp) return std::nullopt;
  return DqIn{*p->args[0].ref(), *qp, p};
}

const ir::TensorMeta* argMeta(const passes::Rewriter& rw, size_t i) {
  const ir::Node& n = rw.node();
  if (i >= n.args.size() || !n.args[i].ref()) return nullptr;
  return &rw.meta(*n.args[i].ref());
}

const ir::Arg& sarg(const ir::Node& n, int i) { return ops::schemaArg(n, i); }

std::optional<std::vector<int64_t>> sints(const ir::Node& n, int i, size_t expand) {
  const ir::Arg& a = sarg(n, i);
  if (auto* l = a.asIntList()) {
    if (expand && l->size() == 1) return std::vector<int64_t>(expand, (*l)[0]);
    return *l;
  }
  if (auto* v = a.asInt()) return std::vector<int64_t>(expand ? expand : 1, *v);
  return std::nullopt;
}

std::optional<std::vector<int64_t>> intListArg(const ir::Node& n, size_t i, size_t expand) {
  if (i >= n.args.size()) return std::nullopt;
  const ir::Arg& a = n.args[i];
  if (auto* l = a.asIntList()) {
    if (expand && l->size() == 1) return std::vector<int64_t>(expand, (*l)[0]);
    return *l;
  }
  if (auto* v = a.asInt()) return std::vector<int64_t>(expand ? expand : 1, *v);
  return std::nullopt;
}

std::optional<double> numberArg(const ir::Node& n, size_t i) {
  if (i >= n.args.size()) return std::nullopt;
  return n.args[i].number();
}

Result<ResizeParams> resizeParams(const ir::Node& n, const ir::TensorMeta& xm) {
  ResizeParams p;
  p.bilinear = n.op == LS_OP("aten.upsample_bilinear2d.vec");
  const ir::TensorMeta& om = n.meta();
  if (xm.rank() != 4 || om.rank() != 4) return Status::error("expected a rank-4 input");
  bool alignCorners = false;
  if (p.bilinear) {
    const ir::Arg& ac = sarg(n, 2);
    alignCorners = ac.asBool() && *ac.asBool();
  }
  // Explicit scale factors change PyTorch's index mapping unless they equal out/in.
  const ir::Arg& sf = sarg(n, p.bilinear ? 3 : 2);
  if (auto* fl = std::get_if<ir::FloatList>(&sf.v))
    for (size_t i = 0; i < fl->size() && i < 2; ++i)
      if (std::abs((*fl)[i] * double(xm.shape[2 + int(i)]) - double(om.shape[2 + int(i)])) > 1e-9)
        return Status::error("upsample scale factor that is not out/in is not supported");
  for (int i = 0; i < 2; ++i) {
    int64_t in = xm.shape[2 + i], out = om.shape[2 + i], sn, sd, off;
    if (p.bilinear && alignCorners) {
      sn = std::max<int64_t>(out - 1, 1), sd = std::max<int64_t>(in - 1, 1), off = 0;
      if (out == 1) sn = 1, sd = 1;
    } else if (p.bilinear) {
      // src = (dst + 0.5) * in / out - 0.5  ->  y = dst * 2in + (in - out), scale_n = 2 out
      sn = 2 * out, sd = 2 * in, off = in - out;
    } else {
      // nearest (floor(dst * in / out)) = round-half-up of dst * in / out - 0.5
      sn = 2 * out, sd = 2 * in, off = -out;
    }
    int64_t g = std::gcd(std::gcd(sn, sd), std::abs(off) == 0 ? std::gcd(sn, sd) : std::abs(off));
    sn /= g, sd /= g, off /= g;
    const int64_t bor = (out - 1) * sd - (in - 1) * sn + off;
    p.scale.push_back(sn), p.scale.push_back(sd), p.offset.push_back(off), p.border.push_back(bor);
  }
  return p;
}

std::vector<ir::NodeId> floatIslands(const ir::Graph& g) {
  auto floatCompute = [](const ir::Node& n) {
    return n.isCall() && !n.outputs.empty() && ir::isFloating(n.outputs[0].dtype);
  };
  std::unordered_set<ir::NodeId> in, out;
  for (const ir::NodePtr& p : g.nodes()) {
    if (!floatCompute(*p)) continue;
    bool fromInputs = true;
    p->forEachInput([&](const ir::ValueRef& r) {
      const ir::Node& s = g.node(r.node);
      fromInputs = fromInputs && (s.kind == ir::NodeKind::Placeholder || s.kind == ir::NodeKind::GetAttr || in.count(s.id));
    });
    if (fromInputs) in.insert(p->id);
  }
  std::vector<ir::NodeId> islands;
  for (auto it = g.nodes().rbegin(); it != g.nodes().rend(); ++it) {
    const ir::Node& n = **it;
    if (!floatCompute(n) || in.count(n.id)) continue;
    bool toOutputs = true;
    for (ir::NodeId u : g.users(n.id)) toOutputs = toOutputs && (g.node(u).kind == ir::NodeKind::Output || out.count(u));
    if (toOutputs) out.insert(n.id);
    else islands.push_back(n.id);
  }
  std::reverse(islands.begin(), islands.end());
  return islands;
}

}  // namespace ls::arm
