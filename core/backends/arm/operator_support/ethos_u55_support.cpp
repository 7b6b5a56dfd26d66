// Upstream's ethos_u55_support.py: what the Ethos-U55 subset of TOSA (as Vela compiles it for
// the U55) cannot take. See operator_support.h.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "core/backends/arm/arm_util.h"
#include "core/backends/arm/operator_support/operator_support.h"
#include "core/ir/op_ref.h"

namespace ls::arm::support {

namespace {

bool inList(std::string_view op, std::span<const char* const> list) {
  return std::any_of(list.begin(), list.end(), [&](const char* s) { return op == s; });
}

/// Upstream's _try_determine_dtype: an integer output dtype as it is; a float node's from a
/// dequantize_per_tensor's input or its first user being a quantize_per_tensor; else unknown.
std::optional<ir::DType> tryDetermineDType(const ir::Graph& g, const ir::Node& n) {
  const ir::DType t = n.meta().dtype;
  if (t == ir::DType::Undefined) return std::nullopt;
  if (!ir::isFloating(t)) return t;
  if (isOp(n, LS_OP(kDq))) {
    const ir::Node* src = producer(g, n, 0);
    return src ? std::optional(src->meta().dtype) : std::nullopt;
  }
  if (!g.contains(n.id)) return std::nullopt;
  std::span<const ir::NodeId> users = g.users(n.id);
  if (!users.empty() && isOp(g.node(users[0]), LS_OP(kQ))) return g.node(users[0]).meta().dtype;
  return std::nullopt;
}

/// EthosU55NotSupported: ops that map to TOSA operators the U55 cannot run (REDUCE_ANY,
/// bitwise and logical ops, comparisons, CONV3D, GATHER, SCATTER, RESIZE bilinear, REVERSE
/// padding, SELECT).
class EthosU55NotSupported : public Check {
 public:
  std::string_view name() const override { return "EthosU55NotSupported"; }
  std::optional<std::string> refuse(const ir::Graph&, const ir::Node& n) const override {
    static constexpr std::array kOps = {
        "aten.any.default", "aten.any.dim", "aten.any.dims",
        "aten.bitwise_and.Tensor", "aten.bitwise_or.Tensor", "aten.bitwise_xor.Tensor",
        "aten.bitwise_and.Scalar", "aten.bitwise_or.Scalar", "aten.bitwise_xor.Scalar", "aten.bitwise_not.default",
        "aten.logical_and.default", "aten.logical_or.default", "aten.logical_xor.default", "aten.logical_not.default",
        "aten.conv3d.default", "aten.conv3d.padding",
        "aten.eq.Tensor", "aten.eq.Scalar", "aten.ge.Tensor", "aten.ge.Scalar", "aten.gt.Tensor", "aten.gt.Scalar",
        "aten.le.Tensor", "aten.le.Scalar", "aten.lt.Tensor", "aten.lt.Scalar", "aten.ne.Tensor", "aten.ne.Scalar",
        "aten.gather.default", "aten.grid_sampler_2d.default", "aten.index.Tensor", "aten.index_select.default",
        "aten.index_put.default", "aten.scatter.src", "aten.scatter.value", "aten.select_scatter.default",
        "aten.scatter_reduce.two", "aten.scatter_add.default", "aten.unfold_copy.default",
        "aten.upsample_bilinear2d.vec", "aten.reflection_pad1d.default", "aten.reflection_pad2d.default",
        "aten.reflection_pad3d.default", "aten.where.self"};
    if (inList(ir::opName(n.op), kOps)) return "Op is not supported on U55.";
    return std::nullopt;
  }
};

/// EthosU55ResizeCheck: nearest-neighbour upsampling of batch 1 by the same 2x, 4x or 8x in
/// both spatial dims.
class EthosU55ResizeCheck : public Check {
 public:
  std::string_view name() const override { return "EthosU55ResizeCheck"; }
  std::optional<std::string> refuse(const ir::Graph& g, const ir::Node& n) const override {
    if (!isOp(n, LS_OP("aten.upsample_nearest2d.vec"))) return std::nullopt;
    const ir::Node* in = producer(g, n, 0);
    if (!in) return std::nullopt;
    const ir::Shape& is = in->meta().shape;
    const ir::Shape& os = n.meta().shape;
    if (is.rank() != 4 || os.rank() != 4) return std::nullopt;
    if (is[0] != 1 || os[0] != 1) return "U55 nearest-neighbor resize requires batch size 1.";
    const ir::Arg& sf = sarg(n, 2);
    if (!sf.isNone()) {
      std::vector<double> f;
      if (auto* l = std::get_if<ir::FloatList>(&sf.v)) f.assign(l->begin(), l->end());
      else if (auto li = sints(n, 2)) f.assign(li->begin(), li->end());
      if (f.size() != 2 || !(f[0] == f[1] && (f[0] == 2 || f[0] == 4 || f[0] == 8)))
        return "U55 nearest-neighbor resize requires equal 2x, 4x, or 8x scale factors.";
      return std::nullopt;
    }
    for (int64_t s : {2, 4, 8})
      if (os[2] == is[2] * s && os[3] == is[3] * s) return std::nullopt;
    return "U55 nearest-neighbor resize requires a 2x, 4x, or 8x upscale.";
  }
};

/// EthosU55ReverseCheck: flip of a rank-4 tensor along the channel or height dim only.
class EthosU55ReverseCheck : public Check {
 public:
  std::string_view name() const override { return "EthosU55ReverseCheck"; }
  std::optional<std::string> refuse(const ir::Graph& g, const ir::Node& n) const override {
    if (!isOp(n, LS_OP("aten.flip.default"))) return std::nullopt;
    const ir::Node* in = producer(g, n, 0);
    const int rank = in ? in->meta().rank() : 0;
    auto dims = sints(n, 1);
    if (rank == 4 && dims && dims->size() == 1) {
      const int64_t d = (((*dims)[0] % rank) + rank) % rank;
      if (d == 1 || d == 2) return std::nullopt;
    }
    return "U55 flip support is limited to rank-4 channel or height reversal.";
  }
};

/// EthosU55DtypeSupport: the integer types the U55 runs per op (data movement i8/i16/i32,
/// TABLE ops and REDUCE_MAX/MIN i8/i16, convolution i8/i16 input with i8 weights and i32 bias,
/// MATMUL i8).
class EthosU55DtypeSupport : public Check {
 public:
  std::string_view name() const override { return "EthosU55DtypeSupport"; }
  std::optional<std::string> refuse(const ir::Graph& g, const ir::Node& n) const override {
    static constexpr std::array kI8I16I32 = {"aten.cat.default", "aten.expand_copy.default", "aten.repeat.default",
                                             "aten.constant_pad_nd.default", "aten.view.default",
                                             "aten.permute.default", "aten.permute_copy.default"};
    // Upstream's TableOps.included_ops() (insert_table_ops.py), then amax / amin.
    static constexpr std::array kI8I16 = {
        "aten.ceil.default", "aten.erf.default", "aten.exp.default", "aten.expm1.default", "aten.erfinv.default",
        "aten.floor.default", "aten.log.default", "aten.log1p.default", "aten.log10.default",
        "aten.reciprocal.default", "aten.rsqrt.default", "aten.sigmoid.default", "aten.cos.default",
        "aten.sin.default", "aten.tanh.default", "aten.atan.default", "aten.atanh.default",
        "aten.hardsigmoid.default", "aten.hardswish.default", "aten.sinh.default", "aten.acosh.default",
        "aten.asin.default", "aten.asinh.default", "aten.cosh.default", "aten.acos.default", "aten.tan.default",
        "aten.silu.default", "aten.round.default", "aten.pow.Tensor_Scalar", "aten.gelu.default",
        "aten.elu.default", "aten.leaky_relu.default", "aten.remainder.Scalar", "aten.amax.default",
        "aten.amin.default"};
    const std::optional<ir::DType> t = tryDetermineDType(g, n);
    if (!t) return std::nullopt;  // upstream: when the dtype cannot be determined, accept
    const std::string_view op = ir::opName(n.op);
    auto is = [&](ir::DType d, std::initializer_list<ir::DType> ok) {
      return std::find(ok.begin(), ok.end(), d) != ok.end();
    };
    using D = ir::DType;
    if (inList(op, kI8I16I32) && !is(*t, {D::Int8, D::Int16, D::Int32}))
      return fmt::format("Unsupported dtype {} (Supports i8, i16, i32).", torchDType(*t));
    if (inList(op, kI8I16) && !is(*t, {D::Int8, D::Int16}))
      return fmt::format("Unsupported dtype {} (Supports i8, i16).", torchDType(*t));
    if (n.op == LS_OP("aten.convolution.default")) {
      std::vector<const ir::Node*> ins = inputNodes(g, n);
      if (ins.size() >= 2) {
        if (auto d = tryDetermineDType(g, *ins[0]); d && !is(*d, {D::Int8, D::Int16}))
          return fmt::format("Unsupported input dtype {} (Supports i8, i16).", torchDType(*d));
        if (auto d = tryDetermineDType(g, *ins[1]); d && !is(*d, {D::Int8}))
          return fmt::format("Unsupported weight dtype {} (Supports i8).", torchDType(*d));
        if (ins.size() > 2)
          if (auto d = tryDetermineDType(g, *ins[2]); d && !is(*d, {D::Int32}))
            return fmt::format("Unsupported bias dtype {} (Supports i32).", torchDType(*d));
      }
    }
    if (n.op == LS_OP("aten.mm.default") || n.op == LS_OP("aten.bmm.default"))
      for (const ir::Node* in : inputNodes(g, n))
        if (auto d = tryDetermineDType(g, *in); d && !is(*d, {D::Int8}))
          return fmt::format("Input {} has unsupported dtype {} (Supports int8).", in->name, torchDType(*d));
    return std::nullopt;
  }
};

/// EthosU55CastCheck: no cast from int32 or bool, none to bool (a same-type copy is no cast).
class EthosU55CastCheck : public Check {
 public:
  std::string_view name() const override { return "EthosU55CastCheck"; }
  std::optional<std::string> refuse(const ir::Graph& g, const ir::Node& n) const override {
    if (!isOp(n, LS_OP("dim_order_ops._to_dim_order_copy.default")) && !isOp(n, LS_OP("aten._to_copy.default")))
      return std::nullopt;
    const ir::Node* in = producer(g, n, 0);
    if (!in) return std::nullopt;
    const ir::DType from = in->meta().dtype, to = n.meta().dtype;
    if (from == to) return std::nullopt;
    if (from == ir::DType::Bool || from == ir::DType::Int32)
      return fmt::format("Casting from {} is not supported on U55.", torchDType(from));
    if (to == ir::DType::Bool) return fmt::format("Casting to {} is not supported on U55.", torchDType(to));
    return std::nullopt;
  }
};

}  // namespace

std::vector<CheckPtr> ethosU55Checks() {
  std::vector<CheckPtr> c;
  c.push_back(std::make_unique<EthosU55NotSupported>());
  c.push_back(std::make_unique<EthosU55ResizeCheck>());
  c.push_back(std::make_unique<EthosU55ReverseCheck>());
  c.push_back(std::make_unique<EthosU55DtypeSupport>());
  c.push_back(std::make_unique<EthosU55CastCheck>());
  return c;
}

}  // namespace ls::arm::support
