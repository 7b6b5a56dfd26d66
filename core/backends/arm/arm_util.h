// Helpers shared by the Arm TOSA passes: the node builder with TOSA operand helpers (over
// passes::NodeBuilder), constant materialisation (data or the executor's synthesised values,
// so lowered weights are exactly the ones the source graph runs with), TOSA operand helpers
// (CONST_SHAPE, zero points, MUL shift) and per-tensor q/dq matching of the INT passes. The passes
// themselves are passes::PassSpec entries (core/passes/rule_pass.h) in core/backends/arm/passes/.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/backends/arm/tosa/tosa_ops.h"
#include "core/exec/materialize.h"
#include "core/exec/tensor.h"
#include "core/passes/node_builder.h"

/// `LS_ASSIGN_OR_RETURN(v, expr)`: declares `v` as the value of a Result, or returns its error status.

namespace ls::arm {

/// The PT2E quantize / dequantize ops the INT passes match.
inline constexpr const char* kQ = "quantized_decomposed.quantize_per_tensor.default";
inline constexpr const char* kDq = "quantized_decomposed.dequantize_per_tensor.default";
inline constexpr const char* kQc = "quantized_decomposed.quantize_per_channel.default";
inline constexpr const char* kDqc = "quantized_decomposed.dequantize_per_channel.default";

using ir::Arg;
using ir::Kwarg;
using ir::ValueRef;

/// passes::NodeBuilder plus the TOSA operand helpers the Arm passes share (CONST_SHAPE, scalar
/// constants, zero points, MUL shift, TRANSPOSE/RESHAPE/MUL/ADD shorthands).
class Builder : public passes::NodeBuilder {
 public:
  using passes::NodeBuilder::NodeBuilder;

  // ---- TOSA operands ----
  Result<ValueRef> constShape(std::vector<int64_t> values);
  /// A constant of `rank` ones-shape ([1] when rank is 0) holding `v`.
  ValueRef scalar(ir::DType t, double v, int rank, std::string_view hint = "scalar");
  /// A constant holding `t` (its bytes move into the store when `t` alone owns them).
  ValueRef tensor(exec::Tensor t, std::string_view hint);
  /// A constant whose recipe is `c` (viewed as `view` when given) permuted by `perm`, shown
  /// as `label` ("permute OHWI"): no bytes are made here (exec::permuteRecipe).
  ValueRef permuted(const ir::Constant& c, std::vector<int64_t> perm, std::string label, std::string_view hint,
                    std::optional<ir::Shape> view = {});
  /// Zero point for an operand of dtype t (shape [1], value zp).
  ValueRef zeroPoint(ir::DType t, int64_t zp = 0) { return scalar(t, double(zp), 1, "zp"); }
  /// MUL shift operand (int8 [1]).
  ValueRef mulShift(int64_t s = 0) { return scalar(ir::DType::Int8, double(s), 1, "shift"); }

  Result<ValueRef> transpose(ValueRef x, std::vector<int64_t> perms);
  Result<ValueRef> reshape(ValueRef x, const ir::Shape& s);
  Result<ValueRef> mul(ValueRef a, ValueRef b);
  Result<ValueRef> mulScalar(ValueRef a, double v);
  Result<ValueRef> addScalar(ValueRef a, double v);
  /// `x` as dtype `t` (aten._to_copy; `x` itself when it already is): bool to a float type
  /// goes through int8, as upstream casts it (TOSA 1.0 has no bool -> float CAST).
  Result<ValueRef> cast(ValueRef x, ir::DType t, std::string_view hint = {});
};

/// Values of a constant: its data, or synthesizeConstant() (what the executor would use).
exec::Tensor constantValues(const ir::Constant& c);
/// Values of a value produced by a get_attr constant; nullopt otherwise.
std::optional<exec::Tensor> valueOfConstant(const ir::Graph& g, ValueRef r);
/// Bytes of a tensor interned as a new constant (name set by the builder).
ir::Constant makeConstant(ir::ConstantStore& store, exec::Tensor t, std::string fqn = {});
using exec::permuteTensor;

/// Applicability of a pass by TOSA profile and target (data on the base Pass).
using Gate = passes::Applicability;

/// `d` as a dimension of a rank-`rank` tensor (a negative `d` counts from the end).
inline int wrap(int64_t d, int rank) { return int(d < 0 ? d + rank : d); }

// ---- PT2E quantisation (INT profile): per-tensor q/dq matching ----

/// Per-tensor qparams of a quantize/dequantize_per_tensor node (args: x, scale, zero_point,
/// qmin, qmax, dtype).
struct QP {
  double scale = 0;
  int64_t zp = 0, qmin = -128, qmax = 127;
  bool operator==(const QP& o) const { return scale == o.scale && zp == o.zp && qmin == o.qmin && qmax == o.qmax; }
};
/// nullopt unless the scale is a positive number and the zero point an int.
std::optional<QP> perTensorQP(const ir::Node& n);
/// TensorMeta::quant of a value stored as `storage` with qparams q.
std::shared_ptr<const ir::QuantParams> toQuant(const QP& q, ir::DType storage = ir::DType::Int8);

/// A dequantize_per_tensor input of int8 storage: its int8 source, qparams and the
/// dequantize node itself.
struct DqIn {
  ValueRef src;
  QP qp;
  const ir::Node* node = nullptr;
};

/// Producer lookups of the q/dq pattern matchers.
class Matcher {
 public:
  /// `g`: the graph whose nodes are matched; `usersOf`: where users are counted when that graph
  /// is still being built (a retrace's source graph), else `g` itself.
  explicit Matcher(const ir::Graph& g, const ir::Graph* usersOf = nullptr) : g_(g), usersOf_(usersOf ? *usersOf : g) {}
  const ir::Node* producer(const ir::Arg& a) const {
    const ir::ValueRef* r = a.ref();
    return r ? g_.find(r->node) : nullptr;
  }
  /// The dequantize_per_tensor producing `a` when it reads an int8 value with per-tensor qparams.
  std::optional<DqIn> dqInput(const ir::Arg& a) const;
  bool singleUser(ir::NodeId id) const { return usersOf_.contains(id) && usersOf_.users(id).size() == 1; }
  const ir::Graph& g_;
  const ir::Graph& usersOf_;
};

/// Meta of arg i of the hot node when it is a tensor ref, else null.
const ir::TensorMeta* argMeta(const passes::Rewriter& rw, size_t i);
/// Int list arg (a single int expands to `expand` copies).
std::optional<std::vector<int64_t>> intListArg(const ir::Node& n, size_t i, size_t expand = 0);
std::optional<double> numberArg(const ir::Node& n, size_t i);
/// Schema arg i of a call node resolved as MetaCtx does (positional, keyword, default, None).
const ir::Arg& sarg(const ir::Node& n, int i);
/// Ints of a resolved arg (int list, or a single int expanded to `expand` copies).
std::optional<std::vector<int64_t>> sints(const ir::Node& n, int i, size_t expand = 0);

/// INT profile: float-valued compute nodes that are neither the graph inputs' quantize chain
/// (fed only by placeholders, constants or that chain) nor the outputs' dequantize chain
/// (feeding only that chain or the output), in graph order: the float islands an integer-only
/// NPU cannot run.
std::vector<ir::NodeId> floatIslands(const ir::Graph& g);

/// TOSA RESIZE operands (scale [y_n, y_d, x_n, x_d], offset, border) and mode for an ATen
/// upsample_bilinear2d.vec / upsample_nearest2d.vec node reading a rank-4 NCHW input `xm`.
struct ResizeParams {
  bool bilinear = false;
  std::vector<int64_t> scale, offset, border;
};
Result<ResizeParams> resizeParams(const ir::Node& n, const ir::TensorMeta& xm);

}  // namespace ls::arm
