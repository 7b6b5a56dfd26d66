// TOSA 1.0 op schemas and meta functions (output shape/dtype per the specification's
// ERROR_IF rules and shape formulas: idiv_check for conv/pool/resize sizes, equal ranks and
// 1-broadcast for elementwise ops, keep-dims reductions).
#include "core/backends/arm/tosa/tosa_ops.h"

#include <fmt/format.h>

#include <numeric>
#include <unordered_map>

#include "core/ops/meta_util.h"
#include "core/ops/registry.h"

namespace ls::arm {

using ir::DType;
using ir::Shape;
using ir::TensorMeta;
using ops::MetaCtx;

std::string tosaOp(std::string_view specName) { return "tosa." + std::string(specName); }

ir::DimOrder nhwcOrder() { return ir::DimOrder::of({0, 2, 3, 1}); }

Shape permuteShape(const Shape& s, const std::vector<int64_t>& perm) {
  Shape o = Shape::ofRank(int(perm.size()));
  for (size_t i = 0; i < perm.size(); ++i) o[int(i)] = s[int(perm[i])];
  return o;
}

std::vector<int64_t> inversePerm(const std::vector<int64_t>& perm) {
  std::vector<int64_t> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[size_t(perm[i])] = int64_t(i);
  return inv;
}

bool isIdentityPerm(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != int64_t(i)) return false;
  return true;
}

std::vector<int64_t> composePerms(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::vector<int64_t> c(b.size());
  for (size_t i = 0; i < b.size(); ++i) c[i] = a[size_t(b[i])];
  return c;
}

std::optional<std::vector<int64_t>> constShapeValues(const ir::Graph& g, ir::ValueRef r) {
  static const ir::OpId cs = ir::internOp("tosa.CONST_SHAPE");
  const ir::Node* n = g.find(r.node);
  if (!n || n->op != cs) return std::nullopt;
  const ir::Arg* v = n->kwarg("values");
  if (!v) return std::vector<int64_t>{};
  if (auto* l = v->asIntList()) return *l;
  return std::nullopt;
}

namespace {

bool isFloat(DType t) { return t == DType::Float32 || t == DType::Float16 || t == DType::BFloat16; }

/// Dim order of an output: the first same-rank input with a non-identity order, else identity.
ir::DimOrder inheritOrder(int rank, std::initializer_list<const TensorMeta*> ins) {
  for (const TensorMeta* m : ins)
    if (m && m->rank() == rank && m->dimOrder.rank() == rank && !m->dimOrder.isIdentity()) return m->dimOrder;
  return ir::DimOrder::identity(rank);
}

TensorMeta make(DType t, const Shape& s, ir::DimOrder order) {
  TensorMeta m(t, s);
  if (order.rank() == s.rank()) m.dimOrder = order;
  return m;
}

Result<std::vector<int64_t>> shapeArg(const MetaCtx& c, int i, const char* what) {
  const ir::ValueRef* r = c.arg(i).ref();
  if (!r) return c.error("{} ({}): expected a reference to a tosa.CONST_SHAPE node", what, c.argDesc(i));
  auto v = constShapeValues(c.graph(), *r);
  if (!v) return c.error("{} ({}): expected a tosa.CONST_SHAPE node", what, c.argDesc(i));
  return *v;
}

Result<std::vector<int64_t>> intsKw(const MetaCtx& c, const char* name, size_t len) {
  int i = c.schema().argIndex(name);
  LS_ASSIGN_OR_RETURN(v, c.getIntList(i));
  if (len && v.size() != len) return c.error("attribute '{}' must have {} elements, got {}", name, len, v.size());
  return v;
}

/// Zero-point / shift operand (input i of the schema): a tensor of one element.
Status checkScalarOperand(const MetaCtx& c, int i) {
  LS_ASSIGN_OR_RETURN(m, c.tensor(i));
  if (m->numel() != 1)
    return c.error("input {} ('{}') has shape {}, expected one element", i, c.schema().args[size_t(i)].name,
                   ir::toString(m->shape));
  return Status::ok();
}

// ---------------------------------------------------------------- elementwise

/// Output shape of elementwise operands 0..n-1: every operand has the output's rank and each
/// dim equals the output's or 1 (TOSA 1.0 broadcasting: no rank broadcasting).
Result<Shape> broadcastEqualRank(const MetaCtx& c, std::initializer_list<const TensorMeta*> operands) {
  int rank = 0;
  for (const TensorMeta* m : operands) rank = std::max(rank, m->rank());
  Shape s = Shape::ofRank(rank);
  for (int d = 0; d < rank; ++d) {
    s[d] = 1;
    for (const TensorMeta* m : operands)
      if (m->rank() == rank && m->shape[d] != 1) s[d] = s[d] == 1 ? m->shape[d] : std::max(s[d], m->shape[d]);
  }
  int i = 0;
  for (const TensorMeta* m : operands) {
    bool ok = m->rank() == rank;
    for (int d = 0; ok && d < rank; ++d) ok = m->shape[d] == s[d] || m->shape[d] == 1;
    if (!ok)
      return c.error("operand {} has shape {}, which does not broadcast to the output {} (TOSA needs equal ranks and "
                     "dims equal to the output's or 1)",
                     i, ir::toString(m->shape), ir::toString(s));
    ++i;
  }
  return s;
}

enum class Bin { Same, Bool, Logical };
template <Bin kind>
Status binaryMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(a, c.tensor(0));
  LS_ASSIGN_OR_RETURN(b, c.tensor(1));
  if (a->dtype != b->dtype)
    return c.error("operand dtypes differ: {} vs {}", ir::dtypeName(a->dtype), ir::dtypeName(b->dtype));
  if (kind == Bin::Logical && a->dtype != DType::Bool) return c.error("expected bool operands");
  LS_ASSIGN_OR_RETURN(s, broadcastEqualRank(c, {a, b}));
  c.out.push_back(make(kind == Bin::Same ? a->dtype : DType::Bool, s, inheritOrder(s.rank(), {a, b})));
  return Status::ok();
}

Status mulMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(a, c.tensor(0));
  LS_ASSIGN_OR_RETURN(b, c.tensor(1));
  if (a->dtype != b->dtype)
    return c.error("operand dtypes differ: {} vs {}", ir::dtypeName(a->dtype), ir::dtypeName(b->dtype));
  LS_RETURN_IF_ERROR(checkScalarOperand(c, 2));
  LS_ASSIGN_OR_RETURN(s, broadcastEqualRank(c, {a, b}));
  DType out = a->dtype == DType::Int8 || a->dtype == DType::Int16 ? DType::Int32 : a->dtype;
  c.out.push_back(make(out, s, inheritOrder(s.rank(), {a, b})));
  return Status::ok();
}

/// Bitwise and shift ops: integer operands of one dtype, output of that dtype.
Status intBinaryMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(a, c.tensor(0));
  if (isFloat(a->dtype) || a->dtype == DType::Bool)
    return c.error("expected integer operands, got {}", ir::dtypeName(a->dtype));
  return binaryMeta<Bin::Same>(c);
}

Status intUnaryMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  if (isFloat(x->dtype) || x->dtype == DType::Bool)
    return c.error("expected an integer input, got {}", ir::dtypeName(x->dtype));
  c.out.push_back(make(x->dtype, x->shape, x->dimOrder));
  return Status::ok();
}

Status unaryMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  c.out.push_back(make(x->dtype, x->shape, x->dimOrder));
  return Status::ok();
}

Status unaryFloatMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  if (!isFloat(x->dtype))
    return c.error("expected a floating-point input (integer profiles use TABLE), got {}", ir::dtypeName(x->dtype));
  c.out.push_back(make(x->dtype, x->shape, x->dimOrder));
  return Status::ok();
}

Status negateMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_RETURN_IF_ERROR(checkScalarOperand(c, 1));
  LS_RETURN_IF_ERROR(checkScalarOperand(c, 2));
  c.out.push_back(make(x->dtype, x->shape, x->dimOrder));
  return Status::ok();
}

Status logicalNotMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  if (x->dtype != DType::Bool) return c.error("expected a bool input");
  c.out.push_back(make(x->dtype, x->shape, x->dimOrder));
  return Status::ok();
}

Status clampMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(lo, c.getFloat(c.schema().argIndex("min_val")));
  LS_ASSIGN_OR_RETURN(hi, c.getFloat(c.schema().argIndex("max_val")));
  if (lo > hi) return c.error("min_val {} > max_val {}", lo, hi);
  c.out.push_back(make(x->dtype, x->shape, x->dimOrder));
  return Status::ok();
}

Status selectMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(p, c.tensor(0));
  LS_ASSIGN_OR_RETURN(a, c.tensor(1));
  LS_ASSIGN_OR_RETURN(b, c.tensor(2));
  if (p->dtype != DType::Bool) return c.error("input1 must be bool, got {}", ir::dtypeName(p->dtype));
  if (a->dtype != b->dtype) return c.error("input2/input3 dtypes differ");
  LS_ASSIGN_OR_RETURN(s, broadcastEqualRank(c, {p, a, b}));
  c.out.push_back(make(a->dtype, s, inheritOrder(s.rank(), {a, b, p})));
  return Status::ok();
}

Status tableMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(t, c.tensor(1));
  if (x->dtype == DType::Int8) {
    if (t->dtype != DType::Int8 || t->numel() != 256) return c.error("int8 TABLE needs an int8 table of 256 entries");
    c.out.push_back(make(DType::Int8, x->shape, x->dimOrder));
  } else if (x->dtype == DType::Int16) {
    if (t->dtype != DType::Int16 || t->numel() != 513) return c.error("int16 TABLE needs an int16 table of 513 entries");
    c.out.push_back(make(DType::Int32, x->shape, x->dimOrder));
  } else {
    return c.error("TABLE input must be int8 or int16, got {}", ir::dtypeName(x->dtype));
  }
  return Status::ok();
}

Status rescaleMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(mul, c.tensor(1));
  LS_ASSIGN_OR_RETURN(sh, c.tensor(2));
  LS_RETURN_IF_ERROR(checkScalarOperand(c, 3));
  LS_ASSIGN_OR_RETURN(ozp, c.tensor(4));
  LS_ASSIGN_OR_RETURN(perChannel, c.getBool(c.schema().argIndex("per_channel")));
  int64_t nc = perChannel ? (x->rank() ? x->shape[x->rank() - 1] : 1) : 1;
  for (const TensorMeta* m : {mul, sh})
    if (m->numel() != nc)
      return c.error("{} has shape {}, expected {} element(s) ({})", m == mul ? "multiplier" : "shift",
                     ir::toString(m->shape), nc,
                     perChannel ? "per_channel: one per channel of the last dimension" : "per-tensor");
  if (sh->dtype != DType::Int8) return c.error("shift must be int8");
  if (isFloat(x->dtype)) return c.error("RESCALE input must be an integer type, got {}", ir::dtypeName(x->dtype));
  c.out.push_back(make(ozp->dtype, x->shape, x->dimOrder));
  return Status::ok();
}

Status castMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  auto t = c.getDType(c.schema().argIndex("dtype"));
  if (!t) return c.error("attribute 'dtype' (the output type) is required");
  c.out.push_back(make(*t, x->shape, x->dimOrder));
  return Status::ok();
}

// ---------------------------------------------------------------- data layout

Status constMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(shape, c.getIntList(c.schema().argIndex("shape")));
  auto t = c.getDType(c.schema().argIndex("dtype"));
  if (!t) return c.error("attribute 'dtype' is required");
  LS_RETURN_IF_ERROR(ops::checkRank(shape.size(), c));
  Shape s(shape);
  const ir::Arg* vals = c.node().kwarg("values");
  size_t n = 0;
  if (vals) {  // a row-major list, or one number for a one-element constant
    if (auto* fl = std::get_if<ir::FloatList>(&vals->v)) n = fl->size();
    else if (auto* il = vals->asIntList()) n = il->size();
    else if (auto* bl = std::get_if<ir::BoolList>(&vals->v)) n = bl->size();
    else if (vals->asInt() || vals->asFloat() || vals->asBool()) n = 1;
  }
  if (int64_t(n) != s.numel()) return c.error("'values' holds {} elements, shape {} needs {}", n, ir::toString(s), s.numel());
  c.out.push_back(TensorMeta(*t, s));
  return Status::ok();
}

Status constShapeMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(v, c.getIntList(c.schema().argIndex("values")));
  c.out.push_back(TensorMeta(DType::Int64, Shape{int64_t(v.size())}));
  return Status::ok();
}

Status transposeMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(perms, c.getIntList(c.schema().argIndex("perms")));
  if (int(perms.size()) != x->rank()) return c.error("perms {} has {} entries, input rank is {}", fmt::join(perms, ","), perms.size(), x->rank());
  uint32_t seen = 0;
  for (int64_t p : perms) {
    if (p < 0 || p >= x->rank() || (seen >> p) & 1u) return c.error("perms [{}] is not a permutation of 0..{}", fmt::join(perms, ","), x->rank() - 1);
    seen |= 1u << p;
  }
  Shape s = permuteShape(x->shape, perms);
  ir::DimOrder order = ir::DimOrder::identity(x->rank());
  if (x->dimOrder.rank() == x->rank())
    for (size_t i = 0; i < perms.size(); ++i) order.set(int(i), x->dimOrder[int(perms[i])]);
  c.out.push_back(make(x->dtype, s, order));
  return Status::ok();
}

Status reshapeMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(shape, shapeArg(c, 1, "shape"));
  LS_RETURN_IF_ERROR(ops::checkRank(shape.size(), c));
  Shape s(shape);
  for (int64_t d : shape)
    if (d < 0) return c.error("shape [{}] has a negative dim (TOSA needs explicit sizes)", fmt::join(shape, ","));
  if (s.numel() != x->numel())
    return c.error("cannot reshape {} ({} elements) to {}", ir::toString(*x), x->numel(), ir::toString(s));
  c.out.push_back(TensorMeta(x->dtype, s));
  return Status::ok();
}

Status identityMeta(MetaCtx& c) { return unaryMeta(c); }

Status concatMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(ins, c.tensorList(0));
  LS_ASSIGN_OR_RETURN(axis, c.getInt(c.schema().argIndex("axis")));
  if (ins.empty()) return c.error("CONCAT needs at least one input");
  const TensorMeta* f = ins[0];
  if (axis < 0 || axis >= f->rank()) return c.error("axis {} out of range for rank {}", axis, f->rank());
  Shape s = f->shape;
  s[int(axis)] = 0;
  for (size_t j = 0; j < ins.size(); ++j) {
    const TensorMeta* m = ins[j];
    if (!m) return c.error("CONCAT inputs must not be None");
    if (m->dtype != f->dtype)
      return c.error("inputs must share a dtype: {} vs {}", ir::toString(*m), ir::toString(*f));
    bool same = m->rank() == f->rank();
    for (int i = 0; same && i < f->rank(); ++i) same = i == axis || m->shape[i] == f->shape[i];
    if (!same)
      return c.error("input {} has shape {}, which does not match {} outside axis {}", j,
                     ir::toString(m->shape), ir::toString(f->shape), axis);
    s[int(axis)] += m->shape[int(axis)];
  }
  c.out.push_back(make(f->dtype, s, inheritOrder(s.rank(), {f})));
  return Status::ok();
}

Status padMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(pad, shapeArg(c, 1, "padding"));
  LS_RETURN_IF_ERROR(checkScalarOperand(c, 2));
  if (int(pad.size()) != 2 * x->rank()) return c.error("padding needs {} entries, got {}", 2 * x->rank(), pad.size());
  Shape s = x->shape;
  for (int i = 0; i < x->rank(); ++i) {
    if (pad[size_t(2 * i)] < 0 || pad[size_t(2 * i + 1)] < 0) return c.error("negative padding");
    s[i] += pad[size_t(2 * i)] + pad[size_t(2 * i + 1)];
  }
  c.out.push_back(make(x->dtype, s, x->dimOrder));
  return Status::ok();
}

Status sliceMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(start, shapeArg(c, 1, "start"));
  LS_ASSIGN_OR_RETURN(size, shapeArg(c, 2, "size"));
  if (int(start.size()) != x->rank() || int(size.size()) != x->rank())
    return c.error("start [{}] and size [{}] must have one entry per input dimension ({})", fmt::join(start, ","),
                   fmt::join(size, ","), ir::toString(x->shape));
  Shape s = x->shape;
  for (int i = 0; i < x->rank(); ++i) {
    if (start[size_t(i)] < 0 || size[size_t(i)] <= 0 || start[size_t(i)] + size[size_t(i)] > x->shape[i])
      return c.error("slice start [{}] size [{}] out of bounds of input {} at dimension {}", fmt::join(start, ","),
                     fmt::join(size, ","), ir::toString(x->shape), i);
    s[i] = size[size_t(i)];
  }
  c.out.push_back(make(x->dtype, s, x->dimOrder));
  return Status::ok();
}

Status tileMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(m, shapeArg(c, 1, "multiples"));
  if (int(m.size()) != x->rank()) return c.error("multiples need {} entries, got {}", x->rank(), m.size());
  Shape s = x->shape;
  for (int i = 0; i < x->rank(); ++i) {
    if (m[size_t(i)] < 1) return c.error("multiples must be >= 1");
    s[i] *= m[size_t(i)];
  }
  c.out.push_back(make(x->dtype, s, x->dimOrder));
  return Status::ok();
}

Status reverseMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(axis, c.getInt(c.schema().argIndex("axis")));
  if (axis < 0 || axis >= x->rank()) return c.error("axis {} out of range", axis);
  c.out.push_back(make(x->dtype, x->shape, x->dimOrder));
  return Status::ok();
}

Status gatherMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(v, c.tensor(0));
  LS_ASSIGN_OR_RETURN(idx, c.tensor(1));
  if (v->rank() != 3 || idx->rank() != 2 || idx->shape[0] != v->shape[0])
    return c.error("expected values [N,K,C] and indices [N,W], got {} and {}", ir::toString(*v), ir::toString(*idx));
  if (idx->dtype != DType::Int32) return c.error("indices must be int32");
  c.out.push_back(TensorMeta(v->dtype, Shape{v->shape[0], idx->shape[1], v->shape[2]}));
  return Status::ok();
}

template <bool Bool>
Status reduceMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(axis, c.getInt(c.schema().argIndex("axis")));
  if (axis < 0 || axis >= x->rank()) return c.error("axis {} out of range for rank {}", axis, x->rank());
  if (Bool && x->dtype != DType::Bool) return c.error("expected a bool input");
  Shape s = x->shape;
  s[int(axis)] = 1;
  c.out.push_back(make(x->dtype, s, x->dimOrder));
  return Status::ok();
}

/// ARGMAX: the index (int32) of the maximum along `axis`, which is removed from the shape.
Status argmaxMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(axis, c.getInt(c.schema().argIndex("axis")));
  if (axis < 0 || axis >= x->rank()) return c.error("axis {} out of range for rank {}", axis, x->rank());
  std::vector<int64_t> dims = x->shape.toVector();
  dims.erase(dims.begin() + std::ptrdiff_t(axis));
  c.out.push_back(TensorMeta(DType::Int32, Shape(dims)));
  return Status::ok();
}

// ---------------------------------------------------------------- tensor ops

DType accOut(DType in) {
  if (in == DType::Int8) return DType::Int32;
  if (in == DType::Int16) return DType::Int64;  // int48 accumulators are held in int64
  return in;
}

/// One output size of a sliding window: (in - 1 + padA + padB - (k - 1) * dil) / stride + 1, where
/// TOSA's idiv_check requires the division to be exact. `formula` names the numerator.
Result<int64_t> convDim(const MetaCtx& c, const char* formula, int64_t in, int64_t padA, int64_t padB, int64_t k,
                        int64_t dil, int64_t stride) {
  int64_t num = in - 1 + padA + padB - (k - 1) * dil;
  if (stride <= 0 || dil <= 0) return c.error("({}): stride and dilation must be positive", formula);
  if (num < 0) return c.error("({}) {}: the window is larger than the padded input", formula, num);
  if (num % stride != 0)
    return c.error("({}) {} is not a multiple of the stride {}: TOSA 1.0 requires exact division (idiv_check; "
                   "reduce the bottom/right padding by the remainder, as upstream adjust_pad_if_needed does)",
                   formula, num, stride);
  return num / stride + 1;
}

Status convCommon(MetaCtx& c, bool depthwise) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(w, c.tensor(1));
  LS_ASSIGN_OR_RETURN(b, c.tensor(2));
  LS_RETURN_IF_ERROR(checkScalarOperand(c, 3));
  LS_RETURN_IF_ERROR(checkScalarOperand(c, 4));
  LS_ASSIGN_OR_RETURN(pad, intsKw(c, "pad", 4));
  LS_ASSIGN_OR_RETURN(stride, intsKw(c, "stride", 2));
  LS_ASSIGN_OR_RETURN(dil, intsKw(c, "dilation", 2));
  if (x->rank() != 4 || w->rank() != 4 || b->rank() != 1)
    return c.error("expected input [N,IH,IW,IC], weight rank 4, bias rank 1; got {}, {}, {}", ir::toString(*x),
                   ir::toString(*w), ir::toString(*b));
  int64_t kh, kw, oc;
  if (!depthwise) {  // weight [OC,KH,KW,IC]
    if (w->shape[3] != x->shape[3]) return c.error("weight IC {} != input IC {}", w->shape[3], x->shape[3]);
    kh = w->shape[1], kw = w->shape[2], oc = w->shape[0];
  } else {  // weight [KH,KW,C,M]
    if (w->shape[2] != x->shape[3]) return c.error("weight C {} != input C {}", w->shape[2], x->shape[3]);
    kh = w->shape[0], kw = w->shape[1], oc = w->shape[2] * w->shape[3];
  }
  if (b->shape[0] != oc && b->shape[0] != 1) return c.error("bias has {} entries, expected {} or 1", b->shape[0], oc);
  LS_ASSIGN_OR_RETURN(oh, convDim(c, "IH - 1 + pad_top + pad_bottom - (KH - 1) * dilation_y", x->shape[1], pad[0], pad[1],
                                              kh, dil[0], stride[0]));
  LS_ASSIGN_OR_RETURN(ow, convDim(c, "IW - 1 + pad_left + pad_right - (KW - 1) * dilation_x", x->shape[2], pad[2], pad[3],
                                              kw, dil[1], stride[1]));
  DType out = accOut(x->dtype);
  if (isFloat(x->dtype) && w->dtype != x->dtype) return c.error("input and weight dtypes differ");
  c.out.push_back(make(out, Shape{x->shape[0], oh, ow, oc}, nhwcOrder()));
  return Status::ok();
}
Status conv2dMeta(MetaCtx& c) { return convCommon(c, false); }
Status depthwiseMeta(MetaCtx& c) { return convCommon(c, true); }

/// CONV3D: input [N,ID,IH,IW,IC], weight [OC,KD,KH,KW,IC], bias [OC] or [1].
Status conv3dMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(w, c.tensor(1));
  LS_ASSIGN_OR_RETURN(b, c.tensor(2));
  LS_RETURN_IF_ERROR(checkScalarOperand(c, 3));
  LS_RETURN_IF_ERROR(checkScalarOperand(c, 4));
  LS_ASSIGN_OR_RETURN(pad, intsKw(c, "pad", 6));
  LS_ASSIGN_OR_RETURN(stride, intsKw(c, "stride", 3));
  LS_ASSIGN_OR_RETURN(dil, intsKw(c, "dilation", 3));
  if (x->rank() != 5 || w->rank() != 5 || b->rank() != 1)
    return c.error("expected input [N,ID,IH,IW,IC], weight rank 5, bias rank 1; got {}, {}, {}", ir::toString(*x),
                   ir::toString(*w), ir::toString(*b));
  if (w->shape[4] != x->shape[4]) return c.error("weight IC {} != input IC {}", w->shape[4], x->shape[4]);
  int64_t oc = w->shape[0];
  if (b->shape[0] != oc && b->shape[0] != 1) return c.error("bias has {} entries, expected {} or 1", b->shape[0], oc);
  LS_ASSIGN_OR_RETURN(od, convDim(c, "ID - 1 + pad_d0 + pad_d1 - (KD - 1) * dilation_d", x->shape[1], pad[0], pad[1],
                                  w->shape[1], dil[0], stride[0]));
  LS_ASSIGN_OR_RETURN(oh, convDim(c, "IH - 1 + pad_top + pad_bottom - (KH - 1) * dilation_y", x->shape[2], pad[2],
                                  pad[3], w->shape[2], dil[1], stride[1]));
  LS_ASSIGN_OR_RETURN(ow, convDim(c, "IW - 1 + pad_left + pad_right - (KW - 1) * dilation_x", x->shape[3], pad[4],
                                  pad[5], w->shape[3], dil[2], stride[2]));
  if (isFloat(x->dtype) && w->dtype != x->dtype) return c.error("input and weight dtypes differ");
  c.out.push_back(TensorMeta(accOut(x->dtype), Shape{x->shape[0], od, oh, ow, oc}));
  return Status::ok();
}

Status transposeConvMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(w, c.tensor(1));
  LS_ASSIGN_OR_RETURN(b, c.tensor(2));
  LS_RETURN_IF_ERROR(checkScalarOperand(c, 3));
  LS_RETURN_IF_ERROR(checkScalarOperand(c, 4));
  LS_ASSIGN_OR_RETURN(op, intsKw(c, "out_pad", 4));
  LS_ASSIGN_OR_RETURN(stride, intsKw(c, "stride", 2));
  if (x->rank() != 4 || w->rank() != 4 || b->rank() != 1) return c.error("expected rank-4 input/weight and rank-1 bias");
  if (w->shape[3] != x->shape[3]) return c.error("weight IC {} != input IC {}", w->shape[3], x->shape[3]);
  int64_t oh = (x->shape[1] - 1) * stride[0] + op[0] + op[1] + w->shape[1];
  int64_t ow = (x->shape[2] - 1) * stride[1] + op[2] + op[3] + w->shape[2];
  if (oh <= 0 || ow <= 0) return c.error("non-positive output size");
  c.out.push_back(make(accOut(x->dtype), Shape{x->shape[0], oh, ow, w->shape[0]}, nhwcOrder()));
  return Status::ok();
}

Status matmulMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(a, c.tensor(0));
  LS_ASSIGN_OR_RETURN(b, c.tensor(1));
  LS_RETURN_IF_ERROR(checkScalarOperand(c, 2));
  LS_RETURN_IF_ERROR(checkScalarOperand(c, 3));
  if (a->rank() != 3 || b->rank() != 3 || a->shape[0] != b->shape[0] || a->shape[2] != b->shape[1])
    return c.error("expected A [N,H,C] and B [N,C,W], got {} and {}", ir::toString(*a), ir::toString(*b));
  if (a->dtype != b->dtype) return c.error("A and B dtypes differ");
  c.out.push_back(TensorMeta(accOut(a->dtype), Shape{a->shape[0], a->shape[1], b->shape[2]}));
  return Status::ok();
}

Status poolCommon(MetaCtx& c, bool avg) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  if (avg) {
    LS_RETURN_IF_ERROR(checkScalarOperand(c, 1));
    LS_RETURN_IF_ERROR(checkScalarOperand(c, 2));
  }
  LS_ASSIGN_OR_RETURN(k, intsKw(c, "kernel", 2));
  LS_ASSIGN_OR_RETURN(stride, intsKw(c, "stride", 2));
  LS_ASSIGN_OR_RETURN(pad, intsKw(c, "pad", 4));
  if (x->rank() != 4) return c.error("expected input [N,IH,IW,C], got {}", ir::toString(*x));
  for (int i = 0; i < 2; ++i)
    if (pad[size_t(2 * i)] >= k[size_t(i)] || pad[size_t(2 * i + 1)] >= k[size_t(i)])
      return c.error("padding must be smaller than the kernel (pad [{}], kernel [{}])", fmt::join(pad, ","),
                     fmt::join(k, ","));
  LS_ASSIGN_OR_RETURN(oh, convDim(c, "IH + pad_top + pad_bottom - kernel_y", x->shape[1], pad[0], pad[1], k[0], 1, stride[0]));
  LS_ASSIGN_OR_RETURN(ow, convDim(c, "IW + pad_left + pad_right - kernel_x", x->shape[2], pad[2], pad[3], k[1], 1, stride[1]));
  c.out.push_back(make(x->dtype, Shape{x->shape[0], oh, ow, x->shape[3]}, nhwcOrder()));
  return Status::ok();
}
Status avgPoolMeta(MetaCtx& c) { return poolCommon(c, true); }
Status maxPoolMeta(MetaCtx& c) { return poolCommon(c, false); }

Status resizeMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(scale, shapeArg(c, 1, "scale"));
  LS_ASSIGN_OR_RETURN(offset, shapeArg(c, 2, "offset"));
  LS_ASSIGN_OR_RETURN(border, shapeArg(c, 3, "border"));
  if (x->rank() != 4 || scale.size() != 4 || offset.size() != 2 || border.size() != 2)
    return c.error("expected input rank 4, scale [4], offset [2], border [2]");
  auto* mode = c.node().kwarg("mode");
  if (!mode || !mode->asString() || (*mode->asString() != "BILINEAR" && *mode->asString() != "NEAREST_NEIGHBOR"))
    return c.error("attribute 'mode' must be \"BILINEAR\" or \"NEAREST_NEIGHBOR\"");
  int64_t o[2];
  for (int i = 0; i < 2; ++i) {
    int64_t n = scale[size_t(2 * i)], d = scale[size_t(2 * i + 1)];
    if (n <= 0 || d <= 0) return c.error("scale entries must be positive");
    int64_t num = (x->shape[1 + i] - 1) * n - offset[size_t(i)] + border[size_t(i)];
    if (num < 0 || num % d != 0) return c.error("resize size {} not divisible by scale_d {} (TOSA idiv_check)", num, d);
    o[i] = num / d + 1;
  }
  DType out = x->dtype;
  if (x->dtype == DType::Int8) out = *mode->asString() == "BILINEAR" ? DType::Int32 : DType::Int8;
  c.out.push_back(make(out, Shape{x->shape[0], o[0], o[1], x->shape[3]}, nhwcOrder()));
  return Status::ok();
}

/// SCATTER: values_in [N,K,C] with rows indices [N,W] (int32) replaced by input [N,W,C].
Status scatterMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(v, c.tensor(0));
  LS_ASSIGN_OR_RETURN(idx, c.tensor(1));
  LS_ASSIGN_OR_RETURN(in, c.tensor(2));
  if (v->rank() != 3 || idx->rank() != 2 || in->rank() != 3 || idx->shape[0] != v->shape[0] ||
      in->shape[0] != v->shape[0] || in->shape[1] != idx->shape[1] || in->shape[2] != v->shape[2])
    return c.error("expected values_in [N,K,C], indices [N,W] and input [N,W,C], got {}, {} and {}", ir::toString(*v),
                   ir::toString(*idx), ir::toString(*in));
  if (idx->dtype != DType::Int32) return c.error("indices must be int32");
  if (in->dtype != v->dtype) return c.error("values_in and input dtypes differ");
  c.out.push_back(TensorMeta(v->dtype, v->shape));
  return Status::ok();
}

/// One tosa.* op: its schema and meta function, and what the TOSA 1.0 serialization needs
/// beyond them (see TosaSerialization). Lists are comma-separated names.
struct Def {
  const char* schema;
  ops::MetaFn meta;
  const char* fields = "";          ///< attribute table fields, in table order
  const char* shapeInputs = "";     ///< positional args that are shape_t operands
  const char* metadataCopies = "";  ///< kwargs repeating the output metadata
};

std::vector<std::string> splitNames(std::string_view s) {
  std::vector<std::string> out;
  while (!s.empty()) {
    size_t c = s.find(',');
    out.emplace_back(s.substr(0, c));
    if (c == std::string_view::npos) break;
    s.remove_prefix(c + 1);
  }
  return out;
}

// The TOSA op table: every tosa.* op, its schema, meta function and serialization facts. Adding
// an op here is all the registry, the writer (core/io/tosa_writer.cpp) and
// CheckTosaOperatorSupportPass need. Attribute fields follow the table of the op's member of the
// Attribute union in core/backends/arm/tosa/schema/tosa.fbs; every field is a kwarg of the schema.
constexpr char kConvFields[] = "pad,stride,dilation,local_bound,acc_type";
const Def kDefs[] = {
    {"tosa::CONST(*, Any values, int[] shape, ScalarType dtype) -> Tensor", constMeta, "", "", "shape,dtype"},
    {"tosa::CONST_SHAPE(*, int[] values) -> Tensor", constShapeMeta},
    {"tosa::TRANSPOSE(Tensor input1, *, int[] perms) -> Tensor", transposeMeta, "perms"},
    {"tosa::RESHAPE(Tensor input1, Tensor shape) -> Tensor", reshapeMeta, "", "shape"},
    {"tosa::IDENTITY(Tensor input1) -> Tensor", identityMeta},
    {"tosa::RESCALE(Tensor input, Tensor multiplier, Tensor shift, Tensor input_zp, Tensor output_zp, *, "
     "bool scale32, str rounding_mode, bool per_channel, bool input_unsigned=False, bool output_unsigned=False) -> "
     "Tensor",
     rescaleMeta, "scale32,rounding_mode,per_channel,input_unsigned,output_unsigned"},
    {"tosa::CAST(Tensor input, *, ScalarType dtype) -> Tensor", castMeta, "", "", "dtype"},
    {"tosa::CONV2D(Tensor input, Tensor weight, Tensor bias, Tensor input_zp, Tensor weight_zp, *, int[] pad, "
     "int[] stride, int[] dilation, str acc_type, bool local_bound=False) -> Tensor",
     conv2dMeta, kConvFields},
    {"tosa::CONV3D(Tensor input, Tensor weight, Tensor bias, Tensor input_zp, Tensor weight_zp, *, int[] pad, "
     "int[] stride, int[] dilation, str acc_type, bool local_bound=False) -> Tensor",
     conv3dMeta, kConvFields},
    {"tosa::DEPTHWISE_CONV2D(Tensor input, Tensor weight, Tensor bias, Tensor input_zp, Tensor weight_zp, *, "
     "int[] pad, int[] stride, int[] dilation, str acc_type, bool local_bound=False) -> Tensor",
     depthwiseMeta, kConvFields},
    {"tosa::TRANSPOSE_CONV2D(Tensor input, Tensor weight, Tensor bias, Tensor input_zp, Tensor weight_zp, *, "
     "int[] out_pad, int[] stride, str acc_type, bool local_bound=False) -> Tensor",
     transposeConvMeta, "out_pad,stride,local_bound,acc_type"},
    {"tosa::MATMUL(Tensor A, Tensor B, Tensor A_zp, Tensor B_zp) -> Tensor", matmulMeta},
    {"tosa::AVG_POOL2D(Tensor input, Tensor input_zp, Tensor output_zp, *, int[] kernel, int[] stride, int[] pad, "
     "str acc_type) -> Tensor",
     avgPoolMeta, "kernel,stride,pad,acc_type"},
    {"tosa::MAX_POOL2D(Tensor input, *, int[] kernel, int[] stride, int[] pad, str nan_mode=\"PROPAGATE\") -> Tensor",
     maxPoolMeta, "kernel,stride,pad,nan_mode"},
    {"tosa::ARGMAX(Tensor input, *, int axis, str nan_mode=\"PROPAGATE\") -> Tensor", argmaxMeta, "axis,nan_mode"},
    {"tosa::CLAMP(Tensor input, *, float min_val, float max_val, str nan_mode=\"PROPAGATE\") -> Tensor", clampMeta,
     "min_val,max_val,nan_mode"},
    {"tosa::ERF(Tensor input) -> Tensor", unaryFloatMeta},
    {"tosa::SIGMOID(Tensor input) -> Tensor", unaryFloatMeta},
    {"tosa::TANH(Tensor input) -> Tensor", unaryFloatMeta},
    {"tosa::ADD(Tensor input1, Tensor input2) -> Tensor", binaryMeta<Bin::Same>},
    {"tosa::SUB(Tensor input1, Tensor input2) -> Tensor", binaryMeta<Bin::Same>},
    {"tosa::MUL(Tensor input1, Tensor input2, Tensor shift) -> Tensor", mulMeta},
    {"tosa::MAXIMUM(Tensor input1, Tensor input2, *, str nan_mode=\"PROPAGATE\") -> Tensor", binaryMeta<Bin::Same>,
     "nan_mode"},
    {"tosa::MINIMUM(Tensor input1, Tensor input2, *, str nan_mode=\"PROPAGATE\") -> Tensor", binaryMeta<Bin::Same>,
     "nan_mode"},
    {"tosa::POW(Tensor input1, Tensor input2) -> Tensor", binaryMeta<Bin::Same>},
    {"tosa::INTDIV(Tensor input1, Tensor input2) -> Tensor", binaryMeta<Bin::Same>},
    {"tosa::ARITHMETIC_RIGHT_SHIFT(Tensor input1, Tensor input2, *, bool round) -> Tensor", intBinaryMeta, "round"},
    {"tosa::BITWISE_AND(Tensor input1, Tensor input2) -> Tensor", intBinaryMeta},
    {"tosa::BITWISE_OR(Tensor input1, Tensor input2) -> Tensor", intBinaryMeta},
    {"tosa::BITWISE_XOR(Tensor input1, Tensor input2) -> Tensor", intBinaryMeta},
    {"tosa::LOGICAL_LEFT_SHIFT(Tensor input1, Tensor input2) -> Tensor", intBinaryMeta},
    {"tosa::LOGICAL_RIGHT_SHIFT(Tensor input1, Tensor input2) -> Tensor", intBinaryMeta},
    {"tosa::EQUAL(Tensor input1, Tensor input2) -> Tensor", binaryMeta<Bin::Bool>},
    {"tosa::GREATER(Tensor input1, Tensor input2) -> Tensor", binaryMeta<Bin::Bool>},
    {"tosa::GREATER_EQUAL(Tensor input1, Tensor input2) -> Tensor", binaryMeta<Bin::Bool>},
    {"tosa::LOGICAL_AND(Tensor input1, Tensor input2) -> Tensor", binaryMeta<Bin::Logical>},
    {"tosa::LOGICAL_OR(Tensor input1, Tensor input2) -> Tensor", binaryMeta<Bin::Logical>},
    {"tosa::LOGICAL_XOR(Tensor input1, Tensor input2) -> Tensor", binaryMeta<Bin::Logical>},
    {"tosa::LOGICAL_NOT(Tensor input1) -> Tensor", logicalNotMeta},
    {"tosa::BITWISE_NOT(Tensor input1) -> Tensor", intUnaryMeta},
    {"tosa::CLZ(Tensor input1) -> Tensor", intUnaryMeta},
    {"tosa::ABS(Tensor input1) -> Tensor", unaryMeta},
    {"tosa::CEIL(Tensor input1) -> Tensor", unaryFloatMeta},
    {"tosa::FLOOR(Tensor input1) -> Tensor", unaryFloatMeta},
    {"tosa::EXP(Tensor input1) -> Tensor", unaryFloatMeta},
    {"tosa::LOG(Tensor input1) -> Tensor", unaryFloatMeta},
    {"tosa::RECIPROCAL(Tensor input1) -> Tensor", unaryFloatMeta},
    {"tosa::RSQRT(Tensor input1) -> Tensor", unaryFloatMeta},
    {"tosa::SIN(Tensor input1) -> Tensor", unaryFloatMeta},
    {"tosa::COS(Tensor input1) -> Tensor", unaryFloatMeta},
    {"tosa::NEGATE(Tensor input1, Tensor input1_zp, Tensor output_zp) -> Tensor", negateMeta},
    {"tosa::SELECT(Tensor input1, Tensor input2, Tensor input3) -> Tensor", selectMeta},
    {"tosa::TABLE(Tensor input1, Tensor table) -> Tensor", tableMeta},
    {"tosa::REDUCE_SUM(Tensor input, *, int axis) -> Tensor", reduceMeta<false>, "axis"},
    {"tosa::REDUCE_MAX(Tensor input, *, int axis, str nan_mode=\"PROPAGATE\") -> Tensor", reduceMeta<false>,
     "axis,nan_mode"},
    {"tosa::REDUCE_MIN(Tensor input, *, int axis, str nan_mode=\"PROPAGATE\") -> Tensor", reduceMeta<false>,
     "axis,nan_mode"},
    {"tosa::REDUCE_PRODUCT(Tensor input, *, int axis) -> Tensor", reduceMeta<false>, "axis"},
    {"tosa::REDUCE_ANY(Tensor input, *, int axis) -> Tensor", reduceMeta<true>, "axis"},
    {"tosa::REDUCE_ALL(Tensor input, *, int axis) -> Tensor", reduceMeta<true>, "axis"},
    {"tosa::CONCAT(Tensor[] input1, *, int axis) -> Tensor", concatMeta, "axis"},
    {"tosa::PAD(Tensor input1, Tensor padding, Tensor pad_const) -> Tensor", padMeta, "", "padding"},
    {"tosa::SLICE(Tensor input1, Tensor start, Tensor size) -> Tensor", sliceMeta, "", "start,size"},
    {"tosa::TILE(Tensor input1, Tensor multiples) -> Tensor", tileMeta, "", "multiples"},
    {"tosa::REVERSE(Tensor input1, *, int axis) -> Tensor", reverseMeta, "axis"},
    {"tosa::GATHER(Tensor values, Tensor indices) -> Tensor", gatherMeta},
    {"tosa::SCATTER(Tensor values_in, Tensor indices, Tensor input) -> Tensor", scatterMeta},
    {"tosa::RESIZE(Tensor input, Tensor scale, Tensor offset, Tensor border, *, str mode) -> Tensor", resizeMeta,
     "mode", "scale,offset,border"},
};

/// The schemas of kDefs (parsed once) with their serialization facts, by op id.
struct TosaTable {
  std::vector<ops::OpSchema> schemas;
  std::unordered_map<ir::OpId, TosaSerialization> serialization;
};

const TosaTable& tosaTable() {
  static const TosaTable table = [] {
    TosaTable t;
    for (const Def& d : kDefs) {
      auto s = ops::parseSchema(d.schema, d.meta);
      if (!s) {
        fmt::print(stderr, "internal error: bad TOSA schema: {}\n", s.message());
        continue;
      }
      // Contract: op names are "tosa.<SPEC_NAME>" (no overload suffix).
      std::string name = s->name;
      if (name.size() > 8 && name.compare(name.size() - 8, 8, ".default") == 0) name.resize(name.size() - 8);
      s->name = name;
      s->id = ir::internOp(name);
      t.serialization.emplace(s->id, TosaSerialization{name.substr(5), splitNames(d.fields),
                                                       splitNames(d.shapeInputs), splitNames(d.metadataCopies)});
      t.schemas.push_back(std::move(s).value());
    }
    return t;
  }();
  return table;
}

}  // namespace

const TosaSerialization* tosaSerialization(ir::OpId op) {
  const auto& m = tosaTable().serialization;
  auto it = m.find(op);
  return it == m.end() ? nullptr : &it->second;
}

bool isTosaOp(ir::OpId op) { return tosaSerialization(op) != nullptr; }

void registerTosaOps(ops::OpRegistry& r) {
  for (const ops::OpSchema& s : tosaTable().schemas) r.add(s);
}

}  // namespace ls::arm
