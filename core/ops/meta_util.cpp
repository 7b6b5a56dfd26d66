// Broadcasting, type promotion and window-size helpers for meta functions.
#include "core/ops/meta_util.h"

namespace ls::ops {

using ir::DType;

Result<int> wrapDim(int64_t dim, int rank) {
  int r = std::max(rank, 1);
  if (dim < -r || dim >= r)
    return Status::error(fmt::format("dimension out of range (expected to be in range of [{}, {}], but got {})",
                                     -r, r - 1, dim));
  return int(dim < 0 ? dim + r : dim);
}

Result<ir::Shape> broadcastShapes(const ir::Shape& a, const ir::Shape& b) {
  int r = std::max(a.rank(), b.rank());
  ir::Shape out = ir::Shape::ofRank(r);
  for (int i = 0; i < r; ++i) {
    int ia = a.rank() - r + i, ib = b.rank() - r + i;
    int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    if (da == db || db == 1) out[i] = da;
    else if (da == 1) out[i] = db;
    else
      return Status::error(fmt::format("shapes {} and {} are not broadcastable (dim {}: {} vs {})", ir::toString(a),
                                       ir::toString(b), i, da, db));
  }
  return out;
}

static DType promoteSkipUndefined(DType a, DType b) {
  if (a == DType::Undefined) return b;
  if (b == DType::Undefined) return a;
  return ir::promoteTypes(a, b);
}

// at::native::combine_categories
static DType combineCategories(DType higher, DType lower) {
  if (ir::isComplex(higher)) return higher;
  if (ir::isComplex(lower)) {
    if (ir::isFloating(higher)) return higher == DType::Float64 ? DType::Complex128 : DType::Complex64;
    return lower;
  }
  if (ir::isFloating(higher)) return higher;
  if (higher == DType::Bool || ir::isFloating(lower)) return promoteSkipUndefined(higher, lower);
  if (higher != DType::Undefined) return higher;
  return lower;
}

void TypePromotion::addTensor(const ir::TensorMeta& m) {
  if (m.rank() == 0) zero_ = promoteSkipUndefined(zero_, m.dtype);
  else dim_ = promoteSkipUndefined(dim_, m.dtype);
}

void TypePromotion::addScalar(const ir::Arg& a) {
  DType t = DType::Undefined;
  if (a.asBool()) t = DType::Bool;
  else if (a.asInt()) t = DType::Int64;
  else if (a.asFloat()) t = DType::Float32;  // default dtype
  wrapped_ = promoteSkipUndefined(wrapped_, t);
}

DType TypePromotion::result() const { return combineCategories(combineCategories(dim_, zero_), wrapped_); }

int64_t pooledSize(int64_t in, int64_t kernel, int64_t pad, int64_t stride, int64_t dilation, bool ceilMode) {
  auto divRtn = [](int64_t x, int64_t y) {  // floor division
    int64_t q = x / y, r = x % y;
    if (r != 0 && ((r < 0) != (y < 0))) --q;
    return q;
  };
  int64_t out = divRtn(in + 2 * pad - dilation * (kernel - 1) - 1 + (ceilMode ? stride - 1 : 0), stride) + 1;
  if (ceilMode && (out - 1) * stride >= in + pad) --out;
  return out;
}

ir::TensorMeta sameAs(const ir::TensorMeta& in) {
  ir::TensorMeta m;
  m.dtype = in.dtype;
  m.shape = in.shape;
  m.dimOrder = in.dimOrder;
  return m;
}

ir::TensorMeta withShape(ir::DType t, const ir::Shape& s) { return ir::TensorMeta(t, s); }

Status checkRank(size_t rank, const MetaCtx& ctx) {
  if (rank > size_t(ir::kMaxRank))
    return ctx.error("result rank {} exceeds the supported maximum {}", rank, ir::kMaxRank);
  return Status::ok();
}

}  // namespace ls::ops
