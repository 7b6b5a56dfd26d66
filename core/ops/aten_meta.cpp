// Meta functions (output dtype/shape) for the ATen ops real models use, following PyTorch
// semantics: broadcasting, type promotion with Python scalars, conv/pool sizes, view -1
// inference, split sizes and negative dims.
#include <cmath>
#include <limits>
#include <numeric>

#include "core/ops/builtin_ops.h"
#include "core/ops/meta_util.h"
#include "core/ir/op_ref.h"

namespace ls::ops {
namespace {

using ir::DType;
using ir::Shape;
using ir::TensorMeta;


// ---------------------------------------------------------------- elementwise

/// Output dim order for an elementwise result: the first tensor input of the same shape
/// keeps its memory format (as TensorIterator does), otherwise contiguous.
TensorMeta elementwiseOut(DType t, const Shape& s, std::initializer_list<const TensorMeta*> ins) {
  TensorMeta m(t, s);
  for (const TensorMeta* in : ins)
    if (in && in->shape == s) {
      m.dimOrder = in->dimOrder;
      break;
    }
  return m;
}

Status unarySame(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  c.out.push_back(sameAs(*x));
  return Status::ok();
}

/// Unary float ops (sigmoid, exp, ...): integer inputs produce the default float dtype.
Status unaryFloat(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  TensorMeta m = sameAs(*x);
  if (ir::isIntegral(m.dtype, true)) m.dtype = DType::Float32;
  c.out.push_back(m);
  return Status::ok();
}

enum class BinKind { Arith, TrueDiv, Compare, Logical };

/// Binary op over args 0 and 1, each a tensor or a Python scalar.
Status binary(MetaCtx& c, BinKind kind) {
  TypePromotion tp;
  const TensorMeta* a = nullptr;
  const TensorMeta* b = nullptr;
  Shape shape;
  bool any = false;
  for (int i = 0; i < 2; ++i) {
    if (c.isTensor(i)) {
      LS_ASSIGN_OR_RETURN(t, c.tensor(i));
      tp.addTensor(*t);
      (i == 0 ? a : b) = t;
      if (!any) shape = t->shape;
      else {
        LS_ASSIGN_OR_RETURN(s, broadcastShapes(shape, t->shape));
        shape = s;
      }
      any = true;
    } else if (c.arg(i).isNumber()) {
      tp.addScalar(c.arg(i));
    } else {
      return c.error("{}: expected a tensor or a number", c.argDesc(i));
    }
  }
  if (!any) return c.error("at least one operand must be a tensor");
  DType t = tp.result();
  if (kind == BinKind::TrueDiv && ir::isIntegral(t, true)) t = DType::Float32;
  if (kind == BinKind::Compare || kind == BinKind::Logical) t = DType::Bool;
  c.out.push_back(elementwiseOut(t, shape, {a, b}));
  return Status::ok();
}

/// logical_not: one operand, bool result.
Status unaryBool(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  TensorMeta m = sameAs(*x);
  m.dtype = DType::Bool;
  c.out.push_back(m);
  return Status::ok();
}

Status arith(MetaCtx& c) { return binary(c, BinKind::Arith); }
Status trueDiv(MetaCtx& c) { return binary(c, BinKind::TrueDiv); }
Status compare(MetaCtx& c) { return binary(c, BinKind::Compare); }
Status logical(MetaCtx& c) { return binary(c, BinKind::Logical); }

/// bitwise_and/or/xor, left shift: integer or bool operands only (type promotion as for
/// arithmetic).
Status bitwise(MetaCtx& c) {
  LS_RETURN_IF_ERROR(binary(c, BinKind::Arith));
  const DType t = c.out.back().dtype;
  if (!ir::isIntegral(t, true))
    return c.error("{} needs integer or bool operands, got {}", c.schema().name, ir::dtypeName(t));
  return Status::ok();
}

Status bitwiseNot(MetaCtx& c) {
  LS_RETURN_IF_ERROR(unarySame(c));
  if (!ir::isIntegral(c.out.back().dtype, true))
    return c.error("bitwise_not needs an integer or bool tensor, got {}", ir::dtypeName(c.out.back().dtype));
  return Status::ok();
}

/// div.Tensor_mode: with a rounding mode the result keeps the promoted (maybe integer) type.
Status divMode(MetaCtx& c) {
  const ir::Arg& mode = c.arg(2);
  return binary(c, mode.isNone() ? BinKind::TrueDiv : BinKind::Arith);
}

Status powTensorScalar(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  TypePromotion tp;
  tp.addTensor(*x);
  tp.addScalar(c.arg(1));
  c.out.push_back(elementwiseOut(tp.result(), x->shape, {x}));
  return Status::ok();
}

Status whereSelf(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(cond, c.tensor(0));
  // torch: "where expected condition to be a boolean tensor" (uint8 was accepted with a warning).
  if (cond->dtype != DType::Bool && cond->dtype != DType::UInt8)
    return c.error("where: condition must be bool, got {}", ir::dtypeName(cond->dtype));
  Shape s = cond->shape;
  TypePromotion tp;
  const TensorMeta* first = nullptr;
  for (int i = 1; i <= 2; ++i) {
    if (c.isTensor(i)) {
      LS_ASSIGN_OR_RETURN(t, c.tensor(i));
      tp.addTensor(*t);
      LS_ASSIGN_OR_RETURN(bs, broadcastShapes(s, t->shape));
      s = bs;
      if (!first) first = t;
    } else {
      tp.addScalar(c.arg(i));
    }
  }
  c.out.push_back(elementwiseOut(tp.result(), s, {first}));
  return Status::ok();
}

Status maskedFill(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(mask, c.tensor(1));
  if (mask->dtype != DType::Bool)
    return c.error("{}: mask must be bool, got {}", c.argDesc(1), ir::dtypeName(mask->dtype));
  LS_ASSIGN_OR_RETURN(s, broadcastShapes(x->shape, mask->shape));
  c.out.push_back(elementwiseOut(x->dtype, s, {x}));
  return Status::ok();
}

Status clampMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  TypePromotion tp;
  tp.addTensor(*x);
  for (int i = 1; i <= 2; ++i)
    if (c.arg(i).isNumber()) tp.addScalar(c.arg(i));
  c.out.push_back(elementwiseOut(tp.result(), x->shape, {x}));
  return Status::ok();
}

/// clamp.Tensor: optional tensor bounds; the result broadcasts all three and promotes their types.
Status clampTensorMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  TypePromotion tp;
  tp.addTensor(*x);
  Shape s = x->shape;
  bool bound = false;
  for (int i = 1; i <= 2; ++i) {
    if (c.arg(i).isNone()) continue;
    if (!c.isTensor(i)) return c.error("{}: expected a tensor or None", c.argDesc(i));
    LS_ASSIGN_OR_RETURN(t, c.tensor(i));
    tp.addTensor(*t);
    LS_ASSIGN_OR_RETURN(bs, broadcastShapes(s, t->shape));
    s = bs;
    bound = true;
  }
  // torch: "torch.clamp: At least one of 'min' or 'max' must not be None"
  if (!bound) return c.error("clamp: at least one of min and max must be a tensor");
  c.out.push_back(elementwiseOut(tp.result(), s, {x}));
  return Status::ok();
}

Status fillTensor(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  if (c.isTensor(1)) {
    LS_ASSIGN_OR_RETURN(v, c.tensor(1));
    if (v->rank() != 0)
      return c.error("{}: fill value must be a 0-dimension tensor, got {} dims", c.argDesc(1), v->rank());
  }
  c.out.push_back(sameAs(*x));
  return Status::ok();
}

// ---------------------------------------------------------------- reductions

/// Resolves an optional dim list: None or [] means all dims. Returns a bitmask of reduced dims.
Result<uint32_t> reduceMask(MetaCtx& c, int argIdx, int rank) {
  const ir::Arg& a = c.arg(argIdx);
  uint32_t mask = 0;
  std::vector<int64_t> dims;
  if (a.isNone()) {
  } else {
    auto d = c.getIntList(argIdx);
    if (!d) return d.status();
    dims = d.value();
  }
  if (dims.empty()) return rank == 0 ? 1u : (rank >= 32 ? ~0u : (1u << rank) - 1);
  for (int64_t d : dims) {
    auto w = wrapDim(d, rank);
    if (!w) return Status::error(c.argDesc(argIdx) + ": " + w.message());
    if (mask & (1u << w.value()))
      return Status::error(fmt::format("{}: dim {} appears multiple times in the list of dims", c.argDesc(argIdx), d));
    mask |= 1u << w.value();
  }
  return mask;
}

Shape reducedShape(const Shape& in, uint32_t mask, bool keepdim) {
  Shape out;
  for (int i = 0; i < in.rank(); ++i) {
    if (mask & (1u << i)) {
      if (keepdim) out.push(1);
    } else {
      out.push(in[i]);
    }
  }
  return out;
}

enum class ReduceDType { Same, SumLike, Float, Bool };

Status reduceImpl(MetaCtx& c, int dimArg, int keepArg, int dtypeArg, ReduceDType mode) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(mask, reduceMask(c, dimArg, x->rank()));
  bool keep = false;
  if (keepArg >= 0) {
    LS_ASSIGN_OR_RETURN(k, c.getBool(keepArg));
    keep = k;
  }
  DType t = x->dtype;
  std::optional<DType> given = dtypeArg >= 0 ? c.getDType(dtypeArg) : std::nullopt;
  if (given) t = *given;
  else if (mode == ReduceDType::SumLike && ir::isIntegral(t, true)) t = DType::Int64;
  else if (mode == ReduceDType::Bool) t = t == DType::UInt8 ? DType::UInt8 : DType::Bool;  // any / all
  else if (mode == ReduceDType::Float && !ir::isFloating(t) && !ir::isComplex(t))
    return c.error("mean(): could not infer output dtype: input dtype must be floating or complex, got {}",
                   ir::dtypeName(t));
  c.out.push_back(withShape(t, reducedShape(x->shape, mask, keep)));
  return Status::ok();
}

Status meanDim(MetaCtx& c) { return reduceImpl(c, 1, 2, 3, ReduceDType::Float); }
Status sumDim(MetaCtx& c) { return reduceImpl(c, 1, 2, 3, ReduceDType::SumLike); }
Status amaxLike(MetaCtx& c) { return reduceImpl(c, 1, 2, -1, ReduceDType::Same); }
Status anyDims(MetaCtx& c) { return reduceImpl(c, 1, 2, -1, ReduceDType::Bool); }
Status anyAll(MetaCtx& c) { return reduceImpl(c, 99, -1, -1, ReduceDType::Bool); }
Status varCorrection(MetaCtx& c) { return reduceImpl(c, 1, 3, -1, ReduceDType::Float); }
Status vectorNorm(MetaCtx& c) { return reduceImpl(c, 2, 3, 4, ReduceDType::Float); }
/// norm.ScalarOpt_dim(x, p, dim, keepdim) / norm.Scalar(x, p): linalg_vector_norm's arguments.
Status normMeta(MetaCtx& c) { return reduceImpl(c, 2, c.schema().args.size() > 3 ? 3 : -1, -1, ReduceDType::Float); }

/// _weight_norm_interface(v, g, dim): w = v * g / |v| (norm over every dim but `dim`), like v;
/// the norms, like g.
Status weightNormMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(v, c.tensor(0));
  LS_ASSIGN_OR_RETURN(g, c.tensor(1));
  LS_ASSIGN_OR_RETURN(dim, c.getInt(2));
  if (!ir::isFloating(v->dtype)) return c.error("weight norm expects a floating v, got {}", ir::toString(*v));
  if (dim != -1) {
    auto w = wrapDim(dim, v->rank());
    if (!w) return c.error("{}: {}", c.argDesc(2), w.message());
    if (g->numel() != v->shape[w.value()])
      return c.error("g has {} elements, expected {} (v's dim {})", g->numel(), v->shape[w.value()], dim);
  } else if (g->numel() != 1) {
    return c.error("g has {} elements, expected 1 (dim -1: one norm over v)", g->numel());
  }
  c.out.push_back(withShape(v->dtype, v->shape));
  c.out.push_back(withShape(g->dtype, g->shape));
  return Status::ok();
}
Status meanAll(MetaCtx& c) { return reduceImpl(c, 99, -1, 1, ReduceDType::Float); }
Status sumAll(MetaCtx& c) { return reduceImpl(c, 99, -1, 1, ReduceDType::SumLike); }

Status maxDim(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(d, c.getInt(1));
  LS_ASSIGN_OR_RETURN(keep, c.getBool(2));
  auto w = wrapDim(d, x->rank());
  if (!w) return c.error("{}: {}", c.argDesc(1), w.message());
  Shape s = reducedShape(x->shape, x->rank() == 0 ? 0u : 1u << w.value(), keep);
  c.out.push_back(withShape(x->dtype, s));
  c.out.push_back(withShape(DType::Int64, s));
  return Status::ok();
}

Status argmaxLike(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(keep, c.getBool(2));
  if (c.arg(1).isNone()) {
    c.out.push_back(withShape(DType::Int64, keep ? Shape::ofRank(x->rank(), 1) : Shape{}));
    return Status::ok();
  }
  LS_ASSIGN_OR_RETURN(d, c.getInt(1));
  auto w = wrapDim(d, x->rank());
  if (!w) return c.error("{}: {}", c.argDesc(1), w.message());
  c.out.push_back(withShape(DType::Int64, reducedShape(x->shape, x->rank() == 0 ? 0u : 1u << w.value(), keep)));
  return Status::ok();
}

// ---------------------------------------------------------------- linear algebra

Status checkMatmulDtypes(MetaCtx& c, const TensorMeta& a, const TensorMeta& b) {
  if (a.dtype != b.dtype)
    return c.error("expected both operands to have the same dtype, got {} and {}", ir::dtypeName(a.dtype),
                   ir::dtypeName(b.dtype));
  return Status::ok();
}

Status mm(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(a, c.tensor(0));
  LS_ASSIGN_OR_RETURN(b, c.tensor(1));
  if (a->rank() != 2 || b->rank() != 2)
    return c.error("mm expects 2-D tensors, got {} and {}", ir::toString(a->shape), ir::toString(b->shape));
  if ((*a).shape[1] != (*b).shape[0])
    return c.error("mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})", a->shape[0], a->shape[1],
                   b->shape[0], b->shape[1]);
  LS_RETURN_IF_ERROR(checkMatmulDtypes(c, *a, *b));
  c.out.push_back(withShape(a->dtype, Shape{a->shape[0], b->shape[1]}));
  return Status::ok();
}

Status addmm(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(self, c.tensor(0));
  LS_ASSIGN_OR_RETURN(a, c.tensor(1));
  LS_ASSIGN_OR_RETURN(b, c.tensor(2));
  if (a->rank() != 2 || b->rank() != 2)
    return c.error("addmm expects 2-D mat1 and mat2, got {} and {}", ir::toString(a->shape), ir::toString(b->shape));
  if (a->shape[1] != b->shape[0])
    return c.error("mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})", a->shape[0], a->shape[1],
                   b->shape[0], b->shape[1]);
  LS_RETURN_IF_ERROR(checkMatmulDtypes(c, *a, *b));
  Shape out{a->shape[0], b->shape[1]};
  LS_ASSIGN_OR_RETURN(bs, broadcastShapes(self->shape, out));
  if (bs != out)
    return c.error("{}: self of shape {} cannot broadcast to the result shape {}", c.argDesc(0),
                   ir::toString(self->shape), ir::toString(out));
  c.out.push_back(withShape(a->dtype, out));
  return Status::ok();
}

Status bmm(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(a, c.tensor(0));
  LS_ASSIGN_OR_RETURN(b, c.tensor(1));
  if (a->rank() != 3 || b->rank() != 3)
    return c.error("bmm expects 3-D tensors, got {} and {}", ir::toString(a->shape), ir::toString(b->shape));
  if (a->shape[0] != b->shape[0] || a->shape[2] != b->shape[1])
    return c.error("bmm: batch1 {} and batch2 {} are incompatible", ir::toString(a->shape), ir::toString(b->shape));
  LS_RETURN_IF_ERROR(checkMatmulDtypes(c, *a, *b));
  c.out.push_back(withShape(a->dtype, Shape{a->shape[0], a->shape[1], b->shape[2]}));
  return Status::ok();
}

Status linear(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(w, c.tensor(1));
  if (w->rank() != 2 && w->rank() != 1) return c.error("linear: weight must be 1-D or 2-D, got {}", ir::toString(w->shape));
  if (x->rank() < 1) return c.error("linear: input must have at least 1 dim");
  int64_t in = w->rank() == 2 ? w->shape[1] : w->shape[0];
  if (x->shape[x->rank() - 1] != in)
    return c.error("linear: input {} and weight {} cannot be multiplied", ir::toString(x->shape), ir::toString(w->shape));
  Shape s = x->shape;
  if (w->rank() == 2) s[s.rank() - 1] = w->shape[0];
  else s.erase(s.rank() - 1);
  // The bias is added to the product: it must broadcast to the output's shape (torch errors otherwise).
  if (c.isTensor(2)) {
    LS_ASSIGN_OR_RETURN(b, c.tensor(2));
    auto bs = broadcastShapes(s, b->shape);
    if (!bs || *bs != s)
      return c.error("linear: bias {} does not broadcast to the output {}", ir::toString(b->shape), ir::toString(s));
  }
  c.out.push_back(withShape(x->dtype, s));
  return Status::ok();
}

// ---------------------------------------------------------------- convolution / pooling

Status convolution(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(w, c.tensor(1));
  int k = w->rank() - 2;
  if (k < 1) return c.error("weight must have at least 3 dims, got {}", ir::toString(w->shape));
  if (x->rank() != k + 2)
    return c.error("expected {}-D input for {}-D weight {}, got input {}", k + 2, w->rank(), ir::toString(w->shape),
                   ir::toString(x->shape));
  LS_ASSIGN_OR_RETURN(stride, c.getIntList(3, k));
  LS_ASSIGN_OR_RETURN(pad, c.getIntList(4, k));
  LS_ASSIGN_OR_RETURN(dil, c.getIntList(5, k));
  LS_ASSIGN_OR_RETURN(transposed, c.getBool(6));
  LS_ASSIGN_OR_RETURN(outPad, c.getIntList(7, k));
  LS_ASSIGN_OR_RETURN(groups, c.getInt(8));
  if (int(stride.size()) != k || int(pad.size()) != k || int(dil.size()) != k)
    return c.error("stride/padding/dilation must have {} elements", k);
  if (groups <= 0) return c.error("non-positive groups is not supported");
  for (int i = 0; i < k; ++i)
    if (stride[i] <= 0 || dil[i] <= 0) return c.error("non-positive stride or dilation is not supported");
  Shape out;
  out.push(x->shape[0]);
  if (!transposed) {
    if (x->shape[1] != w->shape[1] * groups)
      return c.error("expected input {} to have {} channels (weight {} x groups {}), got {}", ir::toString(x->shape),
                     w->shape[1] * groups, ir::toString(w->shape), groups, x->shape[1]);
    if (w->shape[0] % groups != 0)
      return c.error("out channels {} must be divisible by groups {}", w->shape[0], groups);
    out.push(w->shape[0]);
    for (int i = 0; i < k; ++i) {
      int64_t in = x->shape[2 + i], ker = w->shape[2 + i];
      int64_t eff = dil[i] * (ker - 1) + 1;
      if (in + 2 * pad[i] < eff)
        return c.error("calculated padded input size per channel ({}) is smaller than the kernel size ({})",
                       in + 2 * pad[i], eff);
      out.push((in + 2 * pad[i] - eff) / stride[i] + 1);
    }
  } else {
    if (int(outPad.size()) != k) return c.error("output_padding must have {} elements", k);
    if (x->shape[1] != w->shape[0])
      return c.error("transposed convolution: input channels {} must equal weight dim 0 ({})", x->shape[1],
                     w->shape[0]);
    out.push(w->shape[1] * groups);
    for (int i = 0; i < k; ++i) {
      int64_t in = x->shape[2 + i], ker = w->shape[2 + i];
      out.push((in - 1) * stride[i] - 2 * pad[i] + dil[i] * (ker - 1) + outPad[i] + 1);
    }
  }
  if (c.has(2)) {
    LS_ASSIGN_OR_RETURN(b, c.tensor(2));
    if (b->rank() != 1 || b->shape[0] != out[1])
      return c.error("bias {} must be 1-D with {} elements", ir::toString(b->shape), out[1]);
  }
  TensorMeta m(x->dtype, out);
  if (x->dimOrder.rank() == out.rank()) m.dimOrder = x->dimOrder;
  c.out.push_back(m);
  return Status::ok();
}

/// 2-D pools (S = 2: [C,H,W] or [N,C,H,W]) and 3-D pools (S = 3: [C,D,H,W] or [N,C,D,H,W]).
Status poolImpl(MetaCtx& c, bool withIndices, bool hasDilation, int S = 2) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  if (x->rank() != S + 1 && x->rank() != S + 2)
    return c.error("expected {}-D or {}-D input, got {}", S + 1, S + 2, ir::toString(x->shape));
  LS_ASSIGN_OR_RETURN(kernel, c.getIntList(1, S));
  LS_ASSIGN_OR_RETURN(strideIn, c.getIntList(2, S));
  LS_ASSIGN_OR_RETURN(pad, c.getIntList(3, S));
  std::vector<int64_t> dil(size_t(S), 1);
  bool ceil = false;
  if (hasDilation) {
    LS_ASSIGN_OR_RETURN(d, c.getIntList(4, S));
    dil = d;
    LS_ASSIGN_OR_RETURN(cm, c.getBool(5));
    ceil = cm;
  } else {
    LS_ASSIGN_OR_RETURN(cm, c.getBool(4));
    ceil = cm;
  }
  std::vector<int64_t> stride = strideIn.empty() ? kernel : strideIn;
  const size_t n = size_t(S);
  if (kernel.size() != n || stride.size() != n || pad.size() != n || dil.size() != n)
    return c.error("kernel_size/stride/padding/dilation must have 1 or {} elements", S);
  Shape out = x->shape;
  for (int i = 0; i < S; ++i) {
    if (kernel[i] <= 0 || stride[i] <= 0 || dil[i] <= 0) return c.error("kernel, stride and dilation must be > 0");
    if (pad[i] < 0 || pad[i] > ((kernel[i] - 1) * dil[i] + 1) / 2)
      return c.error("pad should be at most half of effective kernel size, but got pad={}, kernel_size={} and dilation={}",
                     pad[i], kernel[i], dil[i]);
    int64_t in = x->shape[x->rank() - S + i];
    int64_t o = pooledSize(in, kernel[i], pad[i], stride[i], dil[i], ceil);
    if (o <= 0) return c.error("output size is too small (input {}, kernel {})", in, kernel[i]);
    out[x->rank() - S + i] = o;
  }
  TensorMeta m(x->dtype, out);
  m.dimOrder = x->dimOrder;
  c.out.push_back(m);
  if (withIndices) c.out.push_back(withShape(DType::Int64, out));
  return Status::ok();
}

Status maxPoolWithIndices(MetaCtx& c) { return poolImpl(c, true, true); }
Status maxPool(MetaCtx& c) { return poolImpl(c, false, true); }
Status avgPool(MetaCtx& c) { return poolImpl(c, false, false); }
Status maxPool3dWithIndices(MetaCtx& c) { return poolImpl(c, true, true, 3); }
Status maxPool3d(MetaCtx& c) { return poolImpl(c, false, true, 3); }
Status avgPool3d(MetaCtx& c) { return poolImpl(c, false, false, 3); }

Status adaptiveAvgPool(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(size, c.getIntList(1, 2));
  if (x->rank() < 3 || size.size() != 2) return c.error("expected 3-D/4-D input and 2 output sizes");
  Shape out = x->shape;
  out[out.rank() - 2] = size[0];
  out[out.rank() - 1] = size[1];
  c.out.push_back(withShape(x->dtype, out));
  return Status::ok();
}

Status upsampleVec(MetaCtx& c, int scaleArg) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  int k = x->rank() - 2;
  if (k < 1) return c.error("expected at least 3-D input, got {}", ir::toString(x->shape));
  Shape out = x->shape;
  if (c.has(1)) {
    LS_ASSIGN_OR_RETURN(size, c.getIntList(1));
    if (int(size.size()) != k) return c.error("output_size must have {} elements", k);
    for (int i = 0; i < k; ++i) out[2 + i] = size[i];
  } else if (c.has(scaleArg)) {
    const ir::Arg& a = c.arg(scaleArg);
    std::vector<double> scales;
    if (auto* fl = std::get_if<ir::FloatList>(&a.v)) scales = *fl;
    else if (auto* il = a.asIntList()) scales.assign(il->begin(), il->end());
    else return c.error("{}: expected a list of floats", c.argDesc(scaleArg));
    if (int(scales.size()) != k) return c.error("scale_factors must have {} elements", k);
    for (int i = 0; i < k; ++i) out[2 + i] = int64_t(double(x->shape[2 + i]) * scales[i]);
  } else {
    return c.error("either output_size or scale_factors must be given");
  }
  for (int i = 0; i < k; ++i)
    if (out[2 + i] <= 0) return c.error("output size must be positive, got {}", ir::toString(out));
  TensorMeta m(x->dtype, out);
  m.dimOrder = x->dimOrder;
  c.out.push_back(m);
  return Status::ok();
}
Status upsampleBilinearVec(MetaCtx& c) { return upsampleVec(c, 3); }
Status upsampleNearestVec(MetaCtx& c) { return upsampleVec(c, 2); }

Status upsample2dFixed(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(size, c.getIntList(1));
  if (x->rank() != 4 || size.size() != 2) return c.error("expected 4-D input and 2 output sizes");
  Shape out = x->shape;
  out[2] = size[0];
  out[3] = size[1];
  c.out.push_back(withShape(x->dtype, out));
  return Status::ok();
}

// ---------------------------------------------------------------- normalisation / softmax

Status batchNormImpl(MetaCtx& c, int trainingArg) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  if (x->rank() < 2) return c.error("batch norm expects at least 2-D input, got {}", ir::toString(x->shape));
  int64_t ch = x->shape[1];
  for (int i = 1; i <= 4; ++i) {
    if (!c.has(i)) continue;
    LS_ASSIGN_OR_RETURN(p, c.tensor(i));
    if (p->numel() != ch)
      return c.error("{}: expected {} elements (channels of input {}), got {}", c.argDesc(i), ch,
                     ir::toString(x->shape), ir::toString(p->shape));
  }
  bool training = false;
  if (trainingArg >= 0) {
    LS_ASSIGN_OR_RETURN(t, c.getBool(trainingArg));
    training = t;
  }
  DType stat = (x->dtype == DType::Float16 || x->dtype == DType::BFloat16) ? DType::Float32 : x->dtype;
  c.out.push_back(sameAs(*x));
  Shape s = training ? Shape{ch} : Shape{0};
  c.out.push_back(withShape(stat, s));
  c.out.push_back(withShape(stat, s));
  return Status::ok();
}
Status nativeBatchNorm(MetaCtx& c) { return batchNormImpl(c, 5); }
Status batchNormNoTraining(MetaCtx& c) { return batchNormImpl(c, -1); }

Status layerNorm(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(norm, c.getIntList(1));
  int n = int(norm.size()), r = x->rank();
  if (n < 1 || n > r)
    return c.error("normalized_shape {} does not fit input {}", fmt::join(norm, ","), ir::toString(x->shape));
  for (int i = 0; i < n; ++i)
    if (x->shape[r - n + i] != norm[i])
      return c.error("input {} does not end with normalized_shape [{}]", ir::toString(x->shape), fmt::join(norm, ","));
  for (int i = 2; i <= 3; ++i) {
    if (!c.has(i)) continue;
    LS_ASSIGN_OR_RETURN(p, c.tensor(i));
    if (p->numel() != std::accumulate(norm.begin(), norm.end(), int64_t(1), std::multiplies<>()))
      return c.error("{}: expected shape [{}], got {}", c.argDesc(i), fmt::join(norm, ","), ir::toString(p->shape));
  }
  Shape stat = x->shape;
  for (int i = r - n; i < r; ++i) stat[i] = 1;
  c.out.push_back(sameAs(*x));
  c.out.push_back(withShape(x->dtype, stat));
  c.out.push_back(withShape(x->dtype, stat));
  return Status::ok();
}

Status groupNorm(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(n, c.getInt(3));
  LS_ASSIGN_OR_RETURN(group, c.getInt(6));
  c.out.push_back(sameAs(*x));
  c.out.push_back(withShape(x->dtype, Shape{n, group}));
  c.out.push_back(withShape(x->dtype, Shape{n, group}));
  return Status::ok();
}

Status softmaxImpl(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(d, c.getInt(1));
  auto w = wrapDim(d, x->rank());
  if (!w) return c.error("{}: {}", c.argDesc(1), w.message());
  TensorMeta m = sameAs(*x);
  auto half = c.getBool(2);
  if (half && half.value() && m.dtype == DType::Float16) m.dtype = DType::Float32;
  if (!ir::isFloating(m.dtype)) return c.error("softmax needs a floating input, got {}", ir::dtypeName(m.dtype));
  c.out.push_back(m);
  return Status::ok();
}

Status softmaxInt(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(d, c.getInt(1));
  auto w = wrapDim(d, x->rank());
  if (!w) return c.error("{}: {}", c.argDesc(1), w.message());
  TensorMeta m = sameAs(*x);
  if (auto t = c.getDType(2)) m.dtype = *t;
  c.out.push_back(m);
  return Status::ok();
}

// ---------------------------------------------------------------- views and copies

Status tCopy(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  if (x->rank() > 2) return c.error("t() expects a tensor with <= 2 dimensions, but self is {}D", x->rank());
  Shape s = x->shape;
  if (s.rank() == 2) std::swap(s[0], s[1]);
  c.out.push_back(withShape(x->dtype, s));
  return Status::ok();
}

Status transposeCopy(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(d0, c.getInt(1));
  LS_ASSIGN_OR_RETURN(d1, c.getInt(2));
  auto a = wrapDim(d0, x->rank());
  auto b = wrapDim(d1, x->rank());
  if (!a) return c.error("{}: {}", c.argDesc(1), a.message());
  if (!b) return c.error("{}: {}", c.argDesc(2), b.message());
  Shape s = x->shape;
  if (s.rank() > 0) std::swap(s[a.value()], s[b.value()]);
  c.out.push_back(withShape(x->dtype, s));
  return Status::ok();
}

Status permuteCopy(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(dims, c.getIntList(1));
  if (int(dims.size()) != x->rank())
    return c.error("number of dims in permutation ({}) does not match input rank {}", dims.size(), x->rank());
  Shape s;
  uint32_t seen = 0;
  for (int64_t d : dims) {
    auto w = wrapDim(d, x->rank());
    if (!w) return c.error("{}: {}", c.argDesc(1), w.message());
    if (seen & (1u << w.value())) return c.error("{}: repeated dim {} in permutation", c.argDesc(1), d);
    seen |= 1u << w.value();
    s.push(x->shape[w.value()]);
  }
  c.out.push_back(withShape(x->dtype, s));
  return Status::ok();
}

/// Resolves a view size with at most one -1 against `numel` (torch infer_size).
Result<Shape> inferViewSize(const std::vector<int64_t>& size, int64_t numel) {
  if (size.size() > size_t(ir::kMaxRank)) return Status::error(fmt::format("rank {} exceeds the supported maximum", size.size()));
  Shape s;
  int inferIdx = -1;
  int64_t known = 1;
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] == -1) {
      if (inferIdx >= 0) return Status::error("only one dimension can be inferred");
      inferIdx = int(i);
      s.push(-1);
    } else if (size[i] < 0) {
      return Status::error(fmt::format("invalid shape dimension {}", size[i]));
    } else {
      known *= size[i];
      s.push(size[i]);
    }
  }
  if (inferIdx >= 0) {
    if (known == 0 || numel % known != 0)
      return Status::error(fmt::format("shape '[{}]' is invalid for input of size {}", fmt::join(size, ", "), numel));
    s[inferIdx] = numel / known;
  } else if (known != numel) {
    return Status::error(fmt::format("shape '[{}]' is invalid for input of size {}", fmt::join(size, ", "), numel));
  }
  return s;
}

Status viewCopy(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(size, c.getIntList(1));
  auto s = inferViewSize(size, x->numel());
  if (!s) return c.error("{}", s.message());
  c.out.push_back(withShape(x->dtype, s.value()));
  return Status::ok();
}

Status expandCopy(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(size, c.getIntList(1));
  int r = x->rank(), n = int(size.size());
  if (n < r)
    return c.error("the number of sizes provided ({}) must be greater or equal to the number of dimensions in the tensor ({})", n, r);
  LS_RETURN_IF_ERROR(checkRank(size_t(n), c));
  Shape out = Shape::ofRank(n);
  for (int i = n - 1; i >= 0; --i) {
    int off = n - 1 - i, xi = r - 1 - off;
    int64_t target = size[i];
    if (xi >= 0) {
      int64_t cur = x->shape[xi];
      if (target == -1) target = cur;
      else if (cur != target && cur != 1)
        return c.error("the expanded size of the tensor ({}) must match the existing size ({}) at non-singleton dimension {}",
                       target, cur, i);
    } else if (target < 0) {
      return c.error("the expanded size of the tensor ({}) isn't allowed in a leading, non-existing dimension {}", target, i);
    }
    out[i] = target;
  }
  c.out.push_back(withShape(x->dtype, out));
  return Status::ok();
}

Status repeatMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(reps, c.getIntList(1));
  int r = x->rank(), n = int(reps.size());
  if (n < r) return c.error("number of repeat dims ({}) can not be smaller than number of tensor dims ({})", n, r);
  LS_RETURN_IF_ERROR(checkRank(size_t(n), c));
  Shape out = Shape::ofRank(n);
  for (int i = 0; i < n; ++i) {
    int xi = i - (n - r);
    out[i] = reps[i] * (xi >= 0 ? x->shape[xi] : 1);
  }
  c.out.push_back(withShape(x->dtype, out));
  return Status::ok();
}

Status unsqueezeCopy(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(d, c.getInt(1));
  auto w = wrapDim(d, x->rank() + 1);
  if (!w) return c.error("{}: {}", c.argDesc(1), w.message());
  LS_RETURN_IF_ERROR(checkRank(size_t(x->rank() + 1), c));
  Shape s = x->shape;
  s.insert(w.value(), 1);
  c.out.push_back(withShape(x->dtype, s));
  return Status::ok();
}

Status squeezeImpl(MetaCtx& c, bool all, bool list) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  uint32_t mask = 0;
  if (all) mask = ~0u;
  else {
    std::vector<int64_t> dims;
    if (list) {
      LS_ASSIGN_OR_RETURN(l, c.getIntList(1));
      dims = l;
    } else {
      LS_ASSIGN_OR_RETURN(d, c.getInt(1));
      dims.push_back(d);
    }
    for (int64_t d : dims) {
      auto w = wrapDim(d, x->rank());
      if (!w) return c.error("{}: {}", c.argDesc(1), w.message());
      mask |= 1u << w.value();
    }
  }
  Shape s;
  for (int i = 0; i < x->rank(); ++i)
    if (!((mask >> i) & 1u) || x->shape[i] != 1) s.push(x->shape[i]);
  c.out.push_back(withShape(x->dtype, s));
  return Status::ok();
}
Status squeezeAll(MetaCtx& c) { return squeezeImpl(c, true, false); }
Status squeezeDim(MetaCtx& c) { return squeezeImpl(c, false, false); }
Status squeezeDims(MetaCtx& c) { return squeezeImpl(c, false, true); }

/// Normalised slice bounds as at::native::slice: clamps into [0, size], end >= start.
Result<int64_t> sliceLength(MetaCtx& c, int64_t size, int startArg, int endArg, int stepArg, int64_t* startOut) {
  int64_t start = 0, end = std::numeric_limits<int64_t>::max(), step = 1;
  if (c.has(startArg)) {
    auto s = c.getInt(startArg);
    if (!s) return s.status();
    start = s.value();
  }
  if (c.has(endArg)) {
    auto e = c.getInt(endArg);
    if (!e) return e.status();
    end = e.value();
  }
  if (c.has(stepArg)) {
    auto st = c.getInt(stepArg);
    if (!st) return st.status();
    step = st.value();
  }
  if (step <= 0) return Status::error("slice step must be positive");
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = std::clamp<int64_t>(start, 0, size);
  end = std::clamp<int64_t>(end, 0, size);
  if (end < start) end = start;
  if (startOut) *startOut = start;
  return (end - start + step - 1) / step;
}

Status sliceCopy(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(d, c.getInt(1));
  if (x->rank() == 0) return c.error("slice() cannot be applied to a 0-dim tensor");
  auto w = wrapDim(d, x->rank());
  if (!w) return c.error("{}: {}", c.argDesc(1), w.message());
  LS_ASSIGN_OR_RETURN(len, sliceLength(c, x->shape[w.value()], 2, 3, 4, nullptr));
  Shape s = x->shape;
  s[w.value()] = len;
  c.out.push_back(withShape(x->dtype, s));
  return Status::ok();
}

Status selectCopy(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  if (x->rank() == 0) return c.error("select() cannot be applied to a 0-dim tensor");
  LS_ASSIGN_OR_RETURN(d, c.getInt(1));
  LS_ASSIGN_OR_RETURN(idx, c.getInt(2));
  auto w = wrapDim(d, x->rank());
  if (!w) return c.error("{}: {}", c.argDesc(1), w.message());
  int64_t size = x->shape[w.value()];
  if (idx < -size || idx >= size)
    return c.error("select(): index {} out of range for tensor of size {} at dimension {}", idx,
                   ir::toString(x->shape), d);
  Shape s = x->shape;
  s.erase(w.value());
  c.out.push_back(withShape(x->dtype, s));
  return Status::ok();
}

Status splitCopy(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(split, c.getInt(1));
  LS_ASSIGN_OR_RETURN(d, c.getInt(2));
  if (x->rank() == 0) return c.error("split expects at least a 1-dimensional tensor");
  auto w = wrapDim(d, x->rank());
  if (!w) return c.error("{}: {}", c.argDesc(2), w.message());
  int64_t size = x->shape[w.value()];
  if (split < 0 || (split == 0 && size != 0))
    return c.error("split_size can only be 0 if dimension size is 0, but got split_size {}", split);
  int64_t n = split == 0 ? 1 : std::max<int64_t>((size + split - 1) / split, 1);
  if (n > 4096) return c.error("split would produce {} outputs (limit 4096)", n);
  for (int64_t i = 0; i < n; ++i) {
    Shape s = x->shape;
    s[w.value()] = std::min(split, size - i * split);
    if (split == 0) s[w.value()] = 0;
    c.out.push_back(withShape(x->dtype, s));
  }
  return Status::ok();
}

Status splitWithSizesCopy(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(sizes, c.getIntList(1));
  LS_ASSIGN_OR_RETURN(d, c.getInt(2));
  auto w = wrapDim(d, x->rank());
  if (!w) return c.error("{}: {}", c.argDesc(2), w.message());
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0) return c.error("split_with_sizes expects non-negative sizes, got {}", s);
    total += s;
  }
  if (total != x->shape[w.value()])
    return c.error("split_with_sizes expects split_sizes to sum exactly to {} (input {} at dim {}), got {}",
                   x->shape[w.value()], ir::toString(x->shape), d, total);
  for (int64_t sz : sizes) {
    Shape s = x->shape;
    s[w.value()] = sz;
    c.out.push_back(withShape(x->dtype, s));
  }
  return Status::ok();
}

Status unbindCopy(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(d, c.getInt(1));
  if (x->rank() == 0) return c.error("unbind expects at least a 1-dimensional tensor");
  auto w = wrapDim(d, x->rank());
  if (!w) return c.error("{}: {}", c.argDesc(1), w.message());
  Shape s = x->shape;
  int64_t n = s[w.value()];
  s.erase(w.value());
  for (int64_t i = 0; i < n; ++i) c.out.push_back(withShape(x->dtype, s));
  return Status::ok();
}

Status asStridedCopy(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(size, c.getIntList(1));
  LS_ASSIGN_OR_RETURN(stride, c.getIntList(2));
  if (size.size() != stride.size())
    return c.error("mismatch in length of strides and shape ({} vs {})", stride.size(), size.size());
  LS_RETURN_IF_ERROR(checkRank(size.size(), c));
  int64_t offset = 0;
  if (c.has(3)) {
    LS_ASSIGN_OR_RETURN(o, c.getInt(3));
    offset = o;
  }
  int64_t last = offset;
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] < 0 || stride[i] < 0) return c.error("negative size or stride is not supported");
    if (size[i] == 0) {
      last = -1;
      break;
    }
    last += (size[i] - 1) * stride[i];
  }
  if (last >= x->numel())
    return c.error("setStorage: sizes [{}], strides [{}] and storage offset {} require {} elements, input {} has {}",
                   fmt::join(size, ", "), fmt::join(stride, ", "), offset, last + 1, ir::toString(x->shape), x->numel());
  c.out.push_back(withShape(x->dtype, Shape(std::span<const int64_t>(size))));
  return Status::ok();
}

Status cloneMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  TensorMeta m = sameAs(*x);
  if (auto* e = c.arg(1).asEnum(); e && e->kind == ir::EnumKind::MemoryFormat) {
    // contiguous_format=0, preserve_format=1, channels_last=2, channels_last_3d=3
    if (e->value == 0) m.dimOrder = ir::DimOrder::identity(m.rank());
    else if (e->value == 2 && m.rank() == 4) m.dimOrder = ir::DimOrder::of({0, 2, 3, 1});
    else if (e->value == 3 && m.rank() == 5) m.dimOrder = ir::DimOrder::of({0, 2, 3, 4, 1});
  }
  c.out.push_back(m);
  return Status::ok();
}

Status toCopy(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  TensorMeta m = sameAs(*x);
  if (auto t = c.getDType(1)) m.dtype = *t;
  c.out.push_back(m);
  return Status::ok();
}

Status cat(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(list, c.tensorList(0));
  LS_ASSIGN_OR_RETURN(d, c.getInt(1));
  const TensorMeta* ref = nullptr;
  TypePromotion tp;
  for (const TensorMeta* m : list) {
    if (!m) return c.error("{}: None is not allowed in cat", c.argDesc(0));
    tp.addTensor(*m);
    bool legacyEmpty = m->rank() == 1 && m->shape[0] == 0;
    if (!legacyEmpty && !ref) ref = m;
  }
  if (list.empty()) return c.error("torch.cat(): expected a non-empty list of Tensors");
  if (!ref) {
    c.out.push_back(withShape(tp.result(), Shape{0}));
    return Status::ok();
  }
  auto w = wrapDim(d, ref->rank());
  if (!w) return c.error("{}: {}", c.argDesc(1), w.message());
  int dim = w.value();
  Shape out = ref->shape;
  out[dim] = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    const TensorMeta* m = list[i];
    if (m->rank() == 1 && m->shape[0] == 0) continue;
    if (m->rank() != ref->rank())
      return c.error("tensors must have same number of dimensions: got {} and {} (element {})", ref->rank(), m->rank(), i);
    for (int k = 0; k < m->rank(); ++k)
      if (k != dim && m->shape[k] != ref->shape[k])
        return c.error("sizes of tensors must match except in dimension {}: expected size {} but got size {} for tensor number {}",
                       dim, ref->shape[k], m->shape[k], i);
    out[dim] += m->shape[dim];
  }
  TensorMeta m(tp.result(), out);
  // As torch.cat: inputs that share one memory format give an output in that format.
  bool same = true;
  for (const TensorMeta* t : list)
    if (!(t->rank() == 1 && t->shape[0] == 0)) same = same && t->dimOrder == ref->dimOrder;
  if (same && ref->dimOrder.rank() == out.rank()) m.dimOrder = ref->dimOrder;
  c.out.push_back(m);
  return Status::ok();
}

Status stack(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(list, c.tensorList(0));
  LS_ASSIGN_OR_RETURN(d, c.getInt(1));
  if (list.empty() || !list[0]) return c.error("stack expects a non-empty list of tensors");
  const TensorMeta* ref = list[0];
  TypePromotion tp;
  for (size_t i = 0; i < list.size(); ++i) {
    if (!list[i] || list[i]->shape != ref->shape)
      return c.error("stack expects each tensor to be equal size, but got {} at entry 0 and {} at entry {}",
                     ir::toString(ref->shape), list[i] ? ir::toString(list[i]->shape) : "None", i);
    tp.addTensor(*list[i]);
  }
  auto w = wrapDim(d, ref->rank() + 1);
  if (!w) return c.error("{}: {}", c.argDesc(1), w.message());
  LS_RETURN_IF_ERROR(checkRank(size_t(ref->rank() + 1), c));
  Shape s = ref->shape;
  s.insert(w.value(), int64_t(list.size()));
  c.out.push_back(withShape(tp.result(), s));
  return Status::ok();
}

Status constantPadNd(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(pad, c.getIntList(1));
  if (pad.size() % 2 != 0) return c.error("length of pad must be even but instead it equals {}", pad.size());
  if (int(pad.size() / 2) > x->rank())
    return c.error("length of pad should be no more than twice the number of dimensions of the input ({} vs rank {})",
                   pad.size(), x->rank());
  Shape s = x->shape;
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    int dim = x->rank() - 1 - int(i);
    int64_t n = s[dim] + pad[2 * i] + pad[2 * i + 1];
    if (n < 0)
      return c.error("the input size {}, plus negative padding {} and {} resulted in a negative output size", s[dim],
                     pad[2 * i], pad[2 * i + 1]);
    s[dim] = n;
  }
  c.out.push_back(withShape(x->dtype, s));
  return Status::ok();
}

Status roll(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(shifts, c.getIntList(1));
  LS_ASSIGN_OR_RETURN(dims, c.getIntList(2));
  if (!dims.empty() && dims.size() != shifts.size())
    return c.error("shifts and dimensions must align. shifts: {}, dims: {}", shifts.size(), dims.size());
  if (dims.empty() && shifts.size() != 1) return c.error("roll without dims expects a single shift");
  for (int64_t d : dims) {
    auto w = wrapDim(d, x->rank());
    if (!w) return c.error("{}: {}", c.argDesc(2), w.message());
  }
  c.out.push_back(sameAs(*x));
  return Status::ok();
}

Status flip(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(dims, c.getIntList(1));
  for (int64_t d : dims) {
    auto w = wrapDim(d, x->rank());
    if (!w) return c.error("{}: {}", c.argDesc(1), w.message());
  }
  c.out.push_back(sameAs(*x));
  return Status::ok();
}

// ---------------------------------------------------------------- indexing

Status indexTensor(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(idx, c.tensorList(1));
  if (int(idx.size()) > x->rank())
    return c.error("too many indices for tensor of dimension {} (got {})", x->rank(), idx.size());
  Shape bcast;
  bool haveB = false;
  int first = -1, last = -1;
  bool adjacent = true;
  for (size_t i = 0; i < idx.size(); ++i) {
    if (!idx[i]) continue;
    if (idx[i]->dtype == DType::Bool || idx[i]->dtype == DType::UInt8)
      return c.error("boolean mask indices give a data-dependent shape; only integer indices are supported");
    if (!ir::isIntegral(idx[i]->dtype, false))
      return c.error("tensors used as indices must be long, int, byte or bool tensors, got {}", ir::dtypeName(idx[i]->dtype));
    if (first < 0) first = int(i);
    else if (last != int(i) - 1) adjacent = false;
    last = int(i);
    if (!haveB) {
      bcast = idx[i]->shape;
      haveB = true;
    } else {
      auto s = broadcastShapes(bcast, idx[i]->shape);
      if (!s) return c.error("shape mismatch: indexing tensors could not be broadcast together: {}", s.message());
      bcast = s.value();
    }
  }
  if (!haveB) {
    c.out.push_back(sameAs(*x));
    return Status::ok();
  }
  Shape out;
  auto pushRest = [&](int from, int to) {
    for (int i = from; i < to; ++i) out.push(x->shape[i]);
  };
  if (adjacent) {
    pushRest(0, first);
    for (int64_t d : bcast) out.push(d);
    pushRest(last + 1, x->rank());
  } else {
    for (int64_t d : bcast) out.push(d);
    for (int i = 0; i < x->rank(); ++i)
      if (i >= int(idx.size()) || !idx[size_t(i)]) out.push(x->shape[i]);
  }
  LS_RETURN_IF_ERROR(checkRank(size_t(out.rank()), c));
  c.out.push_back(withShape(x->dtype, out));
  return Status::ok();
}

Status indexSelect(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(d, c.getInt(1));
  LS_ASSIGN_OR_RETURN(i, c.tensor(2));
  auto w = wrapDim(d, x->rank());
  if (!w) return c.error("{}: {}", c.argDesc(1), w.message());
  if (i->rank() > 1) return c.error("index_select(): index must be a vector, got {}", ir::toString(i->shape));
  if (i->dtype != DType::Int64 && i->dtype != DType::Int32)
    return c.error("index_select(): Expected dtype int32 or int64 for index, got {}", ir::dtypeName(i->dtype));
  Shape s = x->shape;
  if (s.rank() > 0) s[w.value()] = i->numel();
  c.out.push_back(withShape(x->dtype, s));
  return Status::ok();
}

Status embedding(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(w, c.tensor(0));
  LS_ASSIGN_OR_RETURN(i, c.tensor(1));
  if (w->rank() != 2) return c.error("embedding weight must be 2-D, got {}", ir::toString(w->shape));
  if (i->dtype != DType::Int64 && i->dtype != DType::Int32)
    return c.error("embedding: indices must be int64 or int32, got {}", ir::dtypeName(i->dtype));
  LS_RETURN_IF_ERROR(checkRank(size_t(i->rank() + 1), c));
  Shape s = i->shape;
  s.push(w->shape[1]);
  c.out.push_back(withShape(w->dtype, s));
  return Status::ok();
}

Status gather(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(d, c.getInt(1));
  LS_ASSIGN_OR_RETURN(i, c.tensor(2));
  auto w = wrapDim(d, x->rank());
  if (!w) return c.error("{}: {}", c.argDesc(1), w.message());
  if (i->rank() != x->rank() && !(x->rank() == 0 || i->rank() == 0))
    return c.error("index tensor must have the same number of dimensions as input tensor");
  if (i->dtype != DType::Int64) return c.error("gather(): Expected dtype int64 for index, got {}", ir::dtypeName(i->dtype));
  c.out.push_back(withShape(x->dtype, i->shape));
  return Status::ok();
}

Status sliceScatter(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(src, c.tensor(1));
  if (x->rank() == 0) return c.error("slice_scatter: slice() cannot be applied to a 0-dim tensor");
  LS_ASSIGN_OR_RETURN(d, c.getInt(2));
  auto w = wrapDim(d, x->rank());
  if (!w) return c.error("{}: {}", c.argDesc(2), w.message());
  LS_ASSIGN_OR_RETURN(len, sliceLength(c, x->shape[w.value()], 3, 4, 5, nullptr));
  Shape expect = x->shape;
  expect[w.value()] = len;
  if (src->shape != expect)
    return c.error("slice_scatter: src {} must have the shape of the slice {}", ir::toString(src->shape), ir::toString(expect));
  c.out.push_back(sameAs(*x));
  return Status::ok();
}

Status pixelShuffleMeta(MetaCtx& c, bool shuffle) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(r, c.getInt(1));
  const int k = x->rank();
  if (k < 3) return c.error("expected a tensor of rank >= 3, got {}", ir::toString(x->shape));
  if (r <= 0) return c.error("{} factor must be positive, got {}", shuffle ? "upscale" : "downscale", r);
  Shape s = x->shape;
  if (shuffle) {
    if (s[k - 3] % (r * r) != 0)
      return c.error("pixel_shuffle: channels {} are not divisible by upscale_factor^2 = {}", s[k - 3], r * r);
    s[k - 3] /= r * r, s[k - 2] *= r, s[k - 1] *= r;
  } else {
    if (s[k - 2] % r != 0 || s[k - 1] % r != 0)
      return c.error("pixel_unshuffle: height {} and width {} must be divisible by downscale_factor {}", s[k - 2], s[k - 1], r);
    s[k - 3] *= r * r, s[k - 2] /= r, s[k - 1] /= r;
  }
  c.out.push_back(withShape(x->dtype, s));
  return Status::ok();
}
Status pixelShuffle(MetaCtx& c) { return pixelShuffleMeta(c, true); }
Status pixelUnshuffle(MetaCtx& c) { return pixelShuffleMeta(c, false); }

Status trilMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  if (x->rank() < 2) return c.error("tril: input tensor must have at least 2 dimensions, got {}", ir::toString(x->shape));
  c.out.push_back(sameAs(*x));
  return Status::ok();
}

Status cumsumMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(d, c.getInt(1));
  auto w = wrapDim(d, x->rank());
  if (!w) return c.error("{}: {}", c.argDesc(1), w.message());
  TensorMeta m = sameAs(*x);
  if (ir::isIntegral(m.dtype, true)) m.dtype = DType::Int64;  // torch accumulates integers in int64
  if (auto t = c.getDType(c.schema().argIndex("dtype"))) m.dtype = *t;
  c.out.push_back(m);
  return Status::ok();
}

Status preluMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(w, c.tensor(1));
  const int64_t C = x->rank() >= 2 ? x->shape[1] : 1;
  const int64_t n = w->shape.numel();
  if (n != 1 && n != C)
    return c.error("prelu: weight has {} elements; expected 1 or the {} channels of input {}", n, C, ir::toString(x->shape));
  c.out.push_back(sameAs(*x));
  return Status::ok();
}

Status gluMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  int64_t d = -1;
  if (!c.arg(1).isNone()) {
    LS_ASSIGN_OR_RETURN(dd, c.getInt(1));
    d = dd;
  }
  if (x->rank() == 0) return c.error("glu does not support scalars");
  auto w = wrapDim(d, x->rank());
  if (!w) return c.error("{}: {}", c.argDesc(1), w.message());
  if (x->shape[w.value()] % 2 != 0)
    return c.error("glu: halving dimension must be even, but dimension {} is size {}", w.value(), x->shape[w.value()]);
  Shape s = x->shape;
  s[w.value()] /= 2;
  c.out.push_back(withShape(x->dtype, s));
  return Status::ok();
}

Status selectScatter(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(src, c.tensor(1));
  if (x->rank() == 0) return c.error("select_scatter: select() cannot be applied to a 0-dim tensor");
  LS_ASSIGN_OR_RETURN(d, c.getInt(2));
  auto w = wrapDim(d, x->rank());
  if (!w) return c.error("{}: {}", c.argDesc(2), w.message());
  Shape expect = x->shape;
  expect.erase(w.value());
  if (src->shape != expect)
    return c.error("select_scatter: src {} must have shape {}", ir::toString(src->shape), ir::toString(expect));
  c.out.push_back(sameAs(*x));
  return Status::ok();
}

// ---------------------------------------------------------------- factories

Result<Shape> sizeArg(MetaCtx& c, int i) {
  auto size = c.getIntList(i);
  if (!size) return size.status();
  if (size.value().size() > size_t(ir::kMaxRank)) return Status::error(fmt::format("rank {} exceeds the supported maximum", size.value().size()));
  for (int64_t d : size.value())
    if (d < 0) return Status::error(fmt::format("{}: negative dimension {}", c.argDesc(i), d));
  return Shape(std::span<const int64_t>(size.value()));
}

Status newFactory(MetaCtx& c) {  // new_zeros/new_ones/new_empty(self, size, *, dtype, ...)
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(s, sizeArg(c, 1));
  DType t = x->dtype;
  int dtypeIdx = c.schema().argIndex("dtype");
  if (auto d = c.getDType(dtypeIdx)) t = *d;
  c.out.push_back(withShape(t, s));
  return Status::ok();
}

DType scalarDefaultDType(const ir::Arg& a) {
  if (a.asBool()) return DType::Bool;
  if (a.asInt()) return DType::Int64;
  return DType::Float32;
}

Status newFull(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(s, sizeArg(c, 1));
  DType t = x->dtype;
  if (auto d = c.getDType(c.schema().argIndex("dtype"))) t = *d;
  c.out.push_back(withShape(t, s));
  return Status::ok();
}

Status zerosLike(MetaCtx& c) {  // zeros/ones/empty(size, *, dtype=None, ...)
  LS_ASSIGN_OR_RETURN(s, sizeArg(c, 0));
  DType t = DType::Float32;
  if (auto d = c.getDType(c.schema().argIndex("dtype"))) t = *d;
  c.out.push_back(withShape(t, s));
  return Status::ok();
}

Status full(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(s, sizeArg(c, 0));
  DType t = scalarDefaultDType(c.arg(1));
  if (auto d = c.getDType(c.schema().argIndex("dtype"))) t = *d;
  c.out.push_back(withShape(t, s));
  return Status::ok();
}

Status fullLike(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  TensorMeta m = sameAs(*x);
  if (auto d = c.getDType(c.schema().argIndex("dtype"))) m.dtype = *d;
  c.out.push_back(m);
  return Status::ok();
}

Status scalarTensor(MetaCtx& c) {
  DType t = DType::Float32;
  if (auto d = c.getDType(c.schema().argIndex("dtype"))) t = *d;
  c.out.push_back(withShape(t, Shape{}));
  return Status::ok();
}

/// arange(end) / arange.start(start, end) / arange.start_step(start, end, step).
Status arangeStartStep(MetaCtx& c) {
  const int endArg = c.schema().id == LS_OP("aten.arange.default") ? 0 : 1;
  double start = 0.0, step = 1.0;
  bool allInt = true;
  if (endArg == 1) {
    LS_ASSIGN_OR_RETURN(s0, c.getFloat(0));
    start = s0;
    allInt = allInt && c.arg(0).asInt();
  }
  LS_ASSIGN_OR_RETURN(end, c.getFloat(endArg));
  allInt = allInt && c.arg(endArg).asInt();
  if (c.schema().id == LS_OP("aten.arange.start_step")) {
    LS_ASSIGN_OR_RETURN(s2, c.getFloat(2));
    step = s2;
    allInt = allInt && c.arg(2).asInt();
  }
  if (step == 0) return c.error("arange: step must be nonzero");
  double n = std::ceil((end - start) / step);
  if (n < 0 || n > 1e12) return c.error("arange: invalid range [{}, {}) with step {}", start, end, step);
  DType t = allInt ? DType::Int64 : DType::Float32;
  if (auto d = c.getDType(c.schema().argIndex("dtype"))) t = *d;
  c.out.push_back(withShape(t, Shape{int64_t(n)}));
  return Status::ok();
}

Status linspaceMeta(MetaCtx& c) {
  LS_RETURN_IF_ERROR(c.getFloat(0).status());
  LS_RETURN_IF_ERROR(c.getFloat(1).status());
  LS_ASSIGN_OR_RETURN(steps, c.getInt(2));
  if (steps < 0 || steps > (int64_t(1) << 32)) return c.error("linspace: number of steps {} must be non-negative", steps);
  DType t = DType::Float32;
  if (auto d = c.getDType(c.schema().argIndex("dtype"))) t = *d;
  c.out.push_back(withShape(t, Shape{steps}));
  return Status::ok();
}

Status eyeMeta(MetaCtx& c) {  // eye(n, *, dtype) / eye.m(n, m, *, dtype)
  LS_ASSIGN_OR_RETURN(n, c.getInt(0));
  int64_t m = n;
  if (c.schema().id == LS_OP("aten.eye.m")) {
    LS_ASSIGN_OR_RETURN(mm, c.getInt(1));
    m = mm;
  }
  if (n < 0 || m < 0) return c.error("eye: sizes must be non-negative, got {} and {}", n, m);
  DType t = DType::Float32;
  if (auto d = c.getDType(c.schema().argIndex("dtype"))) t = *d;
  c.out.push_back(withShape(t, Shape{n, m}));
  return Status::ok();
}

// ---------------------------------------------------------------- operator.getitem

Status getitem(MetaCtx& c) {
  const ir::ValueRef* r = c.arg(0).ref();
  if (!r) return c.error("{}: expected a node reference", c.argDesc(0));
  const ir::Node* src = c.graph().find(r->node);
  if (!src) return c.error("{}: refers to a missing node", c.argDesc(0));
  LS_ASSIGN_OR_RETURN(i, c.getInt(1));
  int64_t n = int64_t(src->outputs.size());
  if (i < -n || i >= n) return c.error("index {} out of range for '{}' with {} outputs", i, src->name, n);
  c.out.push_back(src->outputs[size_t(i < 0 ? i + n : i)]);
  return Status::ok();
}

Status dropoutMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  c.out.push_back(sameAs(*x));
  c.out.push_back(withShape(DType::Bool, x->shape));
  return Status::ok();
}

}  // namespace

void registerAtenOps(OpRegistry& r) {
  struct Def {
    const char* schema;
    MetaFn fn;
  };
  static const Def kDefs[] = {
      // convolution / pooling / resize
      {"aten::convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups) -> Tensor", convolution},
      {"aten::max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)", maxPoolWithIndices},
      {"aten::max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> Tensor", maxPool},
      {"aten::avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor", avgPool},
      {"aten::max_pool3d_with_indices(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, int[3] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)", maxPool3dWithIndices},
      {"aten::max_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, int[3] dilation=1, bool ceil_mode=False) -> Tensor", maxPool3d},
      {"aten::avg_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor", avgPool3d},
      {"aten::_adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor", adaptiveAvgPool},
      {"aten::adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor", adaptiveAvgPool},
      {"aten::upsample_bilinear2d.vec(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors) -> Tensor", upsampleBilinearVec},
      {"aten::upsample_nearest2d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor", upsampleNearestVec},
      {"aten::upsample_bilinear2d(Tensor self, SymInt[2] output_size, bool align_corners, float? scales_h=None, float? scales_w=None) -> Tensor", upsample2dFixed},
      {"aten::upsample_nearest2d(Tensor self, SymInt[2] output_size, float? scales_h=None, float? scales_w=None) -> Tensor", upsample2dFixed},
      // normalisation
      {"aten::native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)", nativeBatchNorm},
      {"aten::_native_batch_norm_legit_no_training(Tensor input, Tensor? weight, Tensor? bias, Tensor running_mean, Tensor running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor)", batchNormNoTraining},
      {"aten::_native_batch_norm_legit(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean, Tensor(b!) running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)", nativeBatchNorm},
      {"aten::native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)", layerNorm},
      {"aten::native_group_norm(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C, SymInt HxW, int group, float eps) -> (Tensor, Tensor, Tensor)", groupNorm},
      {"aten::_softmax(Tensor self, int dim, bool half_to_float) -> Tensor", softmaxImpl},
      {"aten::_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor", softmaxImpl},
      {"aten::softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", softmaxInt},
      {"aten::log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", softmaxInt},
      // activations and unary
      {"aten::relu(Tensor self) -> Tensor", unarySame},
      {"aten::hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor", unarySame},
      {"aten::hardswish(Tensor self) -> Tensor", unarySame},
      {"aten::hardsigmoid(Tensor self) -> Tensor", unarySame},
      {"aten::silu(Tensor self) -> Tensor", unarySame},
      {"aten::gelu(Tensor self, *, str approximate='none') -> Tensor", unarySame},
      {"aten::leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor", unarySame},
      {"aten::elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor", unarySame},
      {"aten::neg(Tensor self) -> Tensor", unarySame},
      {"aten::abs(Tensor self) -> Tensor", unarySame},
      {"aten::floor(Tensor self) -> Tensor", unarySame},
      {"aten::ceil(Tensor self) -> Tensor", unarySame},
      {"aten::round(Tensor self) -> Tensor", unarySame},
      {"aten::sigmoid(Tensor self) -> Tensor", unaryFloat},
      {"aten::tanh(Tensor self) -> Tensor", unaryFloat},
      {"aten::exp(Tensor self) -> Tensor", unaryFloat},
      {"aten::log(Tensor self) -> Tensor", unaryFloat},
      {"aten::sqrt(Tensor self) -> Tensor", unaryFloat},
      {"aten::rsqrt(Tensor self) -> Tensor", unaryFloat},
      {"aten::reciprocal(Tensor self) -> Tensor", unaryFloat},
      {"aten::erf(Tensor self) -> Tensor", unaryFloat},
      {"aten::sin(Tensor self) -> Tensor", unaryFloat},
      {"aten::cos(Tensor self) -> Tensor", unaryFloat},
      {"aten::tan(Tensor self) -> Tensor", unaryFloat},
      {"aten::sinh(Tensor self) -> Tensor", unaryFloat},
      {"aten::cosh(Tensor self) -> Tensor", unaryFloat},
      {"aten::asin(Tensor self) -> Tensor", unaryFloat},
      {"aten::acos(Tensor self) -> Tensor", unaryFloat},
      {"aten::atan(Tensor self) -> Tensor", unaryFloat},
      {"aten::asinh(Tensor self) -> Tensor", unaryFloat},
      {"aten::acosh(Tensor self) -> Tensor", unaryFloat},
      {"aten::atanh(Tensor self) -> Tensor", unaryFloat},
      {"aten::expm1(Tensor self) -> Tensor", unaryFloat},
      {"aten::log1p(Tensor self) -> Tensor", unaryFloat},
      {"aten::sign(Tensor self) -> Tensor", unarySame},
      {"aten::logit(Tensor self, float? eps=None) -> Tensor", unaryFloat},
      {"aten::clamp_min(Tensor self, Scalar min) -> Tensor", unarySame},
      {"aten::prelu(Tensor self, Tensor weight) -> Tensor", preluMeta},
      {"aten::glu(Tensor self, int dim=-1) -> Tensor", gluMeta},
      {"aten::floor_divide(Tensor self, Tensor other) -> Tensor", arith},
      {"aten::floor_divide.Scalar(Tensor self, Scalar other) -> Tensor", arith},
      {"aten::remainder.Tensor(Tensor self, Tensor other) -> Tensor", arith},
      {"aten::remainder.Scalar(Tensor self, Scalar other) -> Tensor", arith},
      {"aten::pixel_shuffle(Tensor self, int upscale_factor) -> Tensor", pixelShuffle},
      {"aten::pixel_unshuffle(Tensor self, int downscale_factor) -> Tensor", pixelUnshuffle},
      {"aten::tril(Tensor self, int diagonal=0) -> Tensor", trilMeta},
      {"aten::cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor", cumsumMeta},
      {"aten::eye(SymInt n, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", eyeMeta},
      {"aten::eye.m(SymInt n, SymInt m, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", eyeMeta},
      {"aten::clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor", clampMeta},
      {"aten::clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor", clampTensorMeta},
      {"aten::logical_not(Tensor self) -> Tensor", unaryBool},
      {"aten::clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor", cloneMeta},
      {"aten::lift_fresh_copy(Tensor self) -> Tensor", unarySame},
      {"aten::alias_copy(Tensor self) -> Tensor", unarySame},
      {"aten::detach_copy(Tensor self) -> Tensor", unarySame},
      {"aten::_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor", toCopy},
      {"aten::fill.Tensor(Tensor self, Tensor value) -> Tensor", fillTensor},
      {"aten::fill.Scalar(Tensor self, Scalar value) -> Tensor", unarySame},
      {"aten::roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor", roll},
      {"aten::flip(Tensor self, int[] dims) -> Tensor", flip},
      {"aten::native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)", dropoutMeta},
      // binary
      {"aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", arith},
      {"aten::sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", arith},
      {"aten::mul.Tensor(Tensor self, Tensor other) -> Tensor", arith},
      {"aten::div.Tensor(Tensor self, Tensor other) -> Tensor", trueDiv},
      {"aten::div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor", divMode},
      {"aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", arith},
      {"aten::sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", arith},
      {"aten::rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", arith},
      {"aten::mul.Scalar(Tensor self, Scalar other) -> Tensor", arith},
      {"aten::div.Scalar(Tensor self, Scalar other) -> Tensor", trueDiv},
      {"aten::maximum(Tensor self, Tensor other) -> Tensor", arith},
      {"aten::minimum(Tensor self, Tensor other) -> Tensor", arith},
      {"aten::pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor", powTensorScalar},
      {"aten::pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor", arith},
      {"aten::eq.Scalar(Tensor self, Scalar other) -> Tensor", compare},
      {"aten::ne.Scalar(Tensor self, Scalar other) -> Tensor", compare},
      {"aten::lt.Scalar(Tensor self, Scalar other) -> Tensor", compare},
      {"aten::le.Scalar(Tensor self, Scalar other) -> Tensor", compare},
      {"aten::gt.Scalar(Tensor self, Scalar other) -> Tensor", compare},
      {"aten::ge.Scalar(Tensor self, Scalar other) -> Tensor", compare},
      {"aten::eq.Tensor(Tensor self, Tensor other) -> Tensor", compare},
      {"aten::ne.Tensor(Tensor self, Tensor other) -> Tensor", compare},
      {"aten::lt.Tensor(Tensor self, Tensor other) -> Tensor", compare},
      {"aten::le.Tensor(Tensor self, Tensor other) -> Tensor", compare},
      {"aten::gt.Tensor(Tensor self, Tensor other) -> Tensor", compare},
      {"aten::ge.Tensor(Tensor self, Tensor other) -> Tensor", compare},
      {"aten::logical_and(Tensor self, Tensor other) -> Tensor", logical},
      {"aten::logical_xor(Tensor self, Tensor other) -> Tensor", logical},
      {"aten::bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor", bitwise},
      {"aten::bitwise_or.Tensor(Tensor self, Tensor other) -> Tensor", bitwise},
      {"aten::bitwise_xor.Tensor(Tensor self, Tensor other) -> Tensor", bitwise},
      {"aten::bitwise_and.Scalar(Tensor self, Scalar other) -> Tensor", bitwise},
      {"aten::bitwise_or.Scalar(Tensor self, Scalar other) -> Tensor", bitwise},
      {"aten::bitwise_xor.Scalar(Tensor self, Scalar other) -> Tensor", bitwise},
      {"aten::bitwise_left_shift.Tensor(Tensor self, Tensor other) -> Tensor", bitwise},
      {"aten::__lshift__.Scalar(Tensor self, Scalar other) -> Tensor", bitwise},
      {"aten::bitwise_not(Tensor self) -> Tensor", bitwiseNot},
      {"aten::logical_or(Tensor self, Tensor other) -> Tensor", logical},
      {"aten::where.self(Tensor condition, Tensor self, Tensor other) -> Tensor", whereSelf},
      {"aten::masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor", maskedFill},
      // reductions
      {"aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", meanDim},
      {"aten::mean(Tensor self, *, ScalarType? dtype=None) -> Tensor", meanAll},
      {"aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", sumDim},
      {"aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor", sumAll},
      {"aten::amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", amaxLike},
      {"aten::any(Tensor self) -> Tensor", anyAll},
      {"aten::any.dim(Tensor self, int dim, bool keepdim=False) -> Tensor", anyDims},
      {"aten::any.dims(Tensor self, int[1]? dim=None, bool keepdim=False) -> Tensor", anyDims},
      {"aten::amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", amaxLike},
      {"aten::var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor", varCorrection},
      {"aten::var.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor", varCorrection},
      {"aten::linspace(Scalar start, Scalar end, int steps, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", linspaceMeta},
      {"aten::std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor", varCorrection},
      {"aten::linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", vectorNorm},
      {"aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)", maxDim},
      {"aten::min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)", maxDim},
      {"aten::argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", argmaxLike},
      {"aten::argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", argmaxLike},
      // linear algebra
      {"aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor", addmm},
      {"aten::mm(Tensor self, Tensor mat2) -> Tensor", mm},
      {"aten::bmm(Tensor self, Tensor mat2) -> Tensor", bmm},
      {"aten::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor", linear},
      // views (functional *_copy forms) and shape ops
      {"aten::t_copy(Tensor self) -> Tensor", tCopy},
      {"aten::view_copy(Tensor self, SymInt[] size) -> Tensor", viewCopy},
      {"aten::_unsafe_view(Tensor self, SymInt[] size) -> Tensor", viewCopy},
      {"aten::reshape(Tensor self, SymInt[] shape) -> Tensor", viewCopy},
      {"aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a)", viewCopy},
      {"aten::permute_copy(Tensor self, int[] dims) -> Tensor", permuteCopy},
      {"aten::permute(Tensor(a) self, int[] dims) -> Tensor(a)", permuteCopy},
      {"aten::transpose_copy.int(Tensor self, int dim0, int dim1) -> Tensor", transposeCopy},
      {"aten::expand_copy(Tensor self, SymInt[] size, *, bool implicit=False) -> Tensor", expandCopy},
      {"aten::repeat(Tensor self, SymInt[] repeats) -> Tensor", repeatMeta},
      {"aten::unsqueeze_copy(Tensor self, int dim) -> Tensor", unsqueezeCopy},
      {"aten::squeeze_copy(Tensor self) -> Tensor", squeezeAll},
      {"aten::squeeze_copy.dim(Tensor self, int dim) -> Tensor", squeezeDim},
      {"aten::squeeze_copy.dims(Tensor self, int[] dim) -> Tensor", squeezeDims},
      {"aten::slice_copy.Tensor(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor", sliceCopy},
      {"aten::select_copy.int(Tensor self, int dim, SymInt index) -> Tensor", selectCopy},
      {"aten::split_copy.Tensor(Tensor self, SymInt split_size, int dim=0) -> Tensor[]", splitCopy},
      {"aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]", splitCopy},
      {"aten::split_with_sizes_copy(Tensor self, SymInt[] split_sizes, int dim=0) -> Tensor[]", splitWithSizesCopy},
      {"aten::unbind_copy.int(Tensor self, int dim=0) -> Tensor[]", unbindCopy},
      {"aten::as_strided_copy(Tensor self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor", asStridedCopy},
      {"aten::cat(Tensor[] tensors, int dim=0) -> Tensor", cat},
      {"aten::stack(Tensor[] tensors, int dim=0) -> Tensor", stack},
      {"aten::constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor", constantPadNd},
      // indexing and scatter
      {"aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor", indexTensor},
      {"aten::index_select(Tensor self, int dim, Tensor index) -> Tensor", indexSelect},
      {"aten::embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, bool sparse=False) -> Tensor", embedding},
      {"aten::gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor", gather},
      {"aten::slice_scatter(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor", sliceScatter},
      {"aten::select_scatter(Tensor self, Tensor src, int dim, SymInt index) -> Tensor", selectScatter},
      // factories
      {"aten::new_zeros(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", newFactory},
      {"aten::new_ones(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", newFactory},
      {"aten::new_empty(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", newFactory},
      {"aten::new_full(Tensor self, SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", newFull},
      {"aten::zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", zerosLike},
      {"aten::ones(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", zerosLike},
      {"aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor", zerosLike},
      {"aten::full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", full},
      {"aten::full_like(Tensor self, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor", fullLike},
      {"aten::zeros_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor", fullLike},
      {"aten::ones_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor", fullLike},
      {"aten::scalar_tensor(Scalar s, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", scalarTensor},
      {"aten::arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", arangeStartStep},
      {"aten::arange(Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", arangeStartStep},
      {"aten::arange.start(Scalar start, Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", arangeStartStep},
      {"aten::zero(Tensor self) -> Tensor", unarySame},
      {"aten::norm.ScalarOpt_dim(Tensor self, Scalar? p, int[1] dim, bool keepdim=False) -> Tensor", normMeta},
      {"aten::norm.Scalar(Tensor self, Scalar p=2) -> Tensor", normMeta},
      {"aten::_weight_norm_interface(Tensor v, Tensor g, int dim=0) -> (Tensor, Tensor)", weightNormMeta},
      // python operator
      {"operator::getitem(Any self, int index) -> Any", getitem},
  };
  for (const Def& d : kDefs) {
    Status st = r.add(d.schema, d.fn);
    if (!st.isOk()) {
      // A bad built-in schema is a programming error caught by the registry tests.
      fmt::print(stderr, "lowerscope: bad built-in schema: {}\n", st.message());
    }
  }
}

}  // namespace ls::ops
