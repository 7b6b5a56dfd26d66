// Data-movement kernels: views and their *_copy forms, cat/stack/split, padding, roll/flip,
// indexing (index.Tensor, index_select, gather, embedding), scatters, factories and fills.
// All are dtype-generic (they move elements by size) unless they compute values.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/exec/kernel_util.h"
#include "core/ir/op_ref.h"

namespace ls::exec {

// ---------------------------------------------------------------- strided copy

namespace {

/// Steps the multi-index `idx` over dims [0, top] except `skip` (an odometer, dim `top` fastest),
/// moving the source and destination offsets with it; false when it wraps past the last index.
inline bool nextIndex(const ir::Shape& shape, int top, int skip, int64_t* idx, const int64_t* sStr, const int64_t* dStr,
               int64_t& so, int64_t& dof) {
  for (int dd = top; dd >= 0; --dd) {
    if (dd == skip) continue;
    if (++idx[dd] < shape[dd]) {
      so += sStr[dd];
      dof += dStr[dd];
      return true;
    }
    so -= sStr[dd] * (shape[dd] - 1);
    dof -= dStr[dd] * (shape[dd] - 1);
    idx[dd] = 0;
  }
  return false;
}

/// Side of the square tiles copyTiled moves (64 x 64 elements of up to 8 bytes: 32 kB).
constexpr int64_t kTile = 64;
/// Source bytes spanned by one destination row above which copyTyped copies in tiles.
constexpr int64_t kTileMinSpan = 256 * 1024;

/// copyTyped for a transpose: the destination's innermost dim is contiguous but the source
/// reads it with a stride, while source dim `k` is contiguous. Copies square tiles of
/// (dim k, innermost dim), so both sides stay in cache lines already loaded (a plain loop
/// touches a new source line per element).
template <typename T>
void copyTiled(const ir::Shape& shape, int k, const T* src, int64_t sOff, const int64_t* sStr, T* dst, int64_t dOff,
               const int64_t* dStr) {
  const int last = shape.rank() - 1;
  const int64_t K = shape[k], N = shape[last], si = sStr[last], dk = dStr[k];
  int64_t idx[ir::kMaxRank] = {};
  int64_t so = sOff, dof = dOff;
  for (;;) {
    for (int64_t a0 = 0; a0 < K; a0 += kTile) {
      const int64_t a1 = std::min(K, a0 + kTile);
      for (int64_t b0 = 0; b0 < N; b0 += kTile) {
        const int64_t b1 = std::min(N, b0 + kTile);
        for (int64_t a = a0; a < a1; ++a) {
          const T* s = src + so + a;
          T* d = dst + dof + a * dk;
          for (int64_t b = b0; b < b1; ++b) d[b] = s[b * si];
        }
      }
    }
    if (!nextIndex(shape, last - 1, k, idx, sStr, dStr, so, dof)) return;
  }
}

template <typename T>
void copyTyped(const ir::Shape& shape, const T* src, int64_t sOff, const int64_t* sStr, T* dst, int64_t dOff,
               const int64_t* dStr) {
  const int rank = shape.rank();
  if (shape.numel() == 0) return;
  if (rank == 0) {
    dst[dOff] = src[sOff];
    return;
  }
  // Tiles pay only when one destination row's source span no longer stays in cache (measured:
  // a [3072, 768] transpose 3.3x faster; a 48 kB span, as a conv1d weight's, ~30% slower).
  if (rank >= 2 && dStr[rank - 1] == 1 && sStr[rank - 1] > 1 && shape[rank - 1] >= 8 &&
      shape[rank - 1] * sStr[rank - 1] * int64_t(sizeof(T)) > kTileMinSpan) {
    for (int k = rank - 2; k >= 0; --k) {
      if (sStr[k] == 1 && shape[k] >= 8) {
        copyTiled(shape, k, src, sOff, sStr, dst, dOff, dStr);
        return;
      }
    }
  }
  const int64_t inner = shape[rank - 1], si = sStr[rank - 1], di = dStr[rank - 1];
  const int64_t outer = shape.numel() / inner;
  int64_t idx[ir::kMaxRank] = {};
  int64_t so = sOff, dof = dOff;
  for (int64_t o = 0; o < outer; ++o) {
    const T* s = src + so;
    T* d = dst + dof;
    if (si == 1 && di == 1) {
      std::memcpy(d, s, size_t(inner) * sizeof(T));
    } else {
      for (int64_t j = 0; j < inner; ++j) d[j * di] = s[j * si];
    }
    nextIndex(shape, rank - 2, -1, idx, sStr, dStr, so, dof);
  }
}

struct Bytes16 {
  uint8_t b[16];
};

}  // namespace

void copyStrided(int elemSize, const ir::Shape& shape, const uint8_t* src, int64_t sOff, const int64_t* sStr,
                 uint8_t* dst, int64_t dOff, const int64_t* dStr) {
  switch (elemSize) {
    case 1: copyTyped(shape, src, sOff, sStr, dst, dOff, dStr); break;
    case 2:
      copyTyped(shape, reinterpret_cast<const uint16_t*>(src), sOff, sStr, reinterpret_cast<uint16_t*>(dst), dOff, dStr);
      break;
    case 4:
      copyTyped(shape, reinterpret_cast<const uint32_t*>(src), sOff, sStr, reinterpret_cast<uint32_t*>(dst), dOff, dStr);
      break;
    case 8:
      copyTyped(shape, reinterpret_cast<const uint64_t*>(src), sOff, sStr, reinterpret_cast<uint64_t*>(dst), dOff, dStr);
      break;
    case 16:
      copyTyped(shape, reinterpret_cast<const Bytes16*>(src), sOff, sStr, reinterpret_cast<Bytes16*>(dst), dOff, dStr);
      break;
    default: break;
  }
}

namespace {

using ir::DType;
using ir::Shape;

/// out = the elements of `x` read with `strides` (elements) from `offset`, shaped as output 0.
Status gatherStrided(KernelCtx& c, const Tensor& x, int64_t offset, const std::vector<int64_t>& strides) {
  Tensor& out = c.newOutputForOverwrite(0);
  std::vector<int64_t> dst = contiguousStrides(out.shape());
  copyStrided(x.elementSize(), out.shape(), x.bytes(), offset, strides.data(), out.bytes(), 0, dst.data());
  return Status::ok();
}

/// Normalised slice start as at::native::slice (clamped into [0, size]).
int64_t sliceStart(const KernelCtx& c, int startArg, int64_t size) {
  int64_t start = 0;
  if (c.has(startArg)) {
    auto s = c.getInt(startArg);
    if (s) start = s.value();
  }
  if (start < 0) start += size;
  return std::clamp<int64_t>(start, 0, size);
}

int64_t sliceStep(const KernelCtx& c, int stepArg) {
  if (!c.has(stepArg)) return 1;
  auto s = c.getInt(stepArg);
  return s ? s.value() : 1;
}

// ---------------------------------------------------------------- views (share storage)

Status viewLike(KernelCtx& c) {  // view_copy, _unsafe_view, reshape, view, squeeze*, unsqueeze_copy
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  c.setOutput(0, x->reshaped(c.outMeta().shape));
  return Status::ok();
}

Status identity(KernelCtx& c) {  // clone, lift_fresh_copy, alias_copy, detach_copy
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  c.setOutput(0, *x);
  return Status::ok();
}

Status toCopy(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  c.setOutput(0, x->to(c.outMeta().dtype));
  return Status::ok();
}

// ---------------------------------------------------------------- permutations

Status permuteImpl(KernelCtx& c, const Tensor& x, const std::vector<int>& perm) {
  std::vector<int64_t> in = contiguousStrides(x.shape());
  std::vector<int64_t> s(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) s[i] = in[size_t(perm[i])];
  return gatherStrided(c, x, 0, s);
}

Status permuteCopy(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(dims, c.getIntList(1));
  std::vector<int> perm;
  for (int64_t d : dims) perm.push_back(wrapDim(d, x->rank()));
  return permuteImpl(c, *x, perm);
}

Status transposeCopy(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(d0, c.getInt(1));
  LS_ASSIGN_OR_RETURN(d1, c.getInt(2));
  std::vector<int> perm(size_t(x->rank()));
  std::iota(perm.begin(), perm.end(), 0);
  if (x->rank() > 0) std::swap(perm[size_t(wrapDim(d0, x->rank()))], perm[size_t(wrapDim(d1, x->rank()))]);
  return permuteImpl(c, *x, perm);
}

Status tCopy(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  if (x->rank() < 2) {
    c.setOutput(0, *x);
    return Status::ok();
  }
  return permuteImpl(c, *x, {1, 0});
}

Status expandCopy(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  return gatherStrided(c, *x, 0, broadcastStrides(x->shape(), c.outMeta().shape));
}

Status repeat(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  Tensor& out = c.newOutput(0);
  const Shape& os = out.shape();
  const int n = os.rank(), lead = n - x->rank();
  std::vector<int64_t> inStr = contiguousStrides(x->shape());
  const int es = x->elementSize();
  std::vector<int64_t> idx(size_t(n), 0);
  for (int64_t o = 0; o < out.numel(); ++o) {
    int64_t src = 0;
    for (int d = lead; d < n; ++d) src += (idx[size_t(d)] % x->dim(d - lead)) * inStr[size_t(d - lead)];
    std::memcpy(out.bytes() + o * es, x->bytes() + src * es, size_t(es));
    for (int d = n - 1; d >= 0; --d) {
      if (++idx[size_t(d)] < os[d]) break;
      idx[size_t(d)] = 0;
    }
  }
  return Status::ok();
}

Status flip(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(dims, c.getIntList(1));
  std::vector<int64_t> s = contiguousStrides(x->shape());
  int64_t offset = 0;
  uint32_t seen = 0;
  for (int64_t d : dims) {
    int w = wrapDim(d, x->rank());
    if (seen & (1u << w) || x->rank() == 0) continue;
    seen |= 1u << w;
    offset += (x->dim(w) - 1) * s[size_t(w)];
    s[size_t(w)] = -s[size_t(w)];
  }
  return gatherStrided(c, *x, offset, s);
}

/// pixel_shuffle(x, r): (..., C*r*r, H, W) -> (..., C, H*r, W*r),
/// out[.., c, h*r + i, w*r + j] = x[.., c*r*r + i*r + j, h, w]; unshuffle is its inverse.
Status pixelShuffleImpl(KernelCtx& c, bool shuffle) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(r, c.getInt(1));
  Tensor& out = c.newOutput(0);
  const Tensor& big = shuffle ? *x : out;  // the (C*r*r, H, W) side
  const int k = big.rank();
  const int64_t Cs = big.dim(k - 3) / (r * r), H = big.dim(k - 2), W = big.dim(k - 1);
  const int64_t batch = big.numel() / std::max<int64_t>(1, Cs * r * r * H * W);
  const int es = x->elementSize();
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t ch = 0; ch < Cs; ++ch)
      for (int64_t i = 0; i < r; ++i)
        for (int64_t j = 0; j < r; ++j)
          for (int64_t h = 0; h < H; ++h)
            for (int64_t w = 0; w < W; ++w) {
              const int64_t packed = (((n * Cs + ch) * r * r + i * r + j) * H + h) * W + w;
              const int64_t spread = ((n * Cs + ch) * H * r + h * r + i) * W * r + w * r + j;
              const int64_t src = shuffle ? packed : spread, dst = shuffle ? spread : packed;
              std::memcpy(out.bytes() + dst * es, x->bytes() + src * es, size_t(es));
            }
  return Status::ok();
}
Status pixelShuffle(KernelCtx& c) { return pixelShuffleImpl(c, true); }
Status pixelUnshuffle(KernelCtx& c) { return pixelShuffleImpl(c, false); }

/// tril(x, k): the last two dims keep elements with col - row <= k, zero elsewhere.
Status tril(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(k, c.getInt(1));  // the schema default is 0
  Tensor& out = c.newOutput(0);
  const int64_t R = x->dim(x->rank() - 2), C = x->dim(x->rank() - 1);
  const int es = x->elementSize();
  for (int64_t i = 0; i < x->numel(); ++i) {
    const int64_t col = i % C, row = (i / C) % R;
    if (col - row <= k) std::memcpy(out.bytes() + i * es, x->bytes() + i * es, size_t(es));
  }
  return Status::ok();
}

/// cumsum(x, dim): running sums along dim, in the output dtype (int64 for integer inputs).
Status cumsum(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(d, c.getInt(1));
  const int dim = wrapDim(d, x->rank());
  Tensor& out = c.newOutput(0);
  if (x->numel() == 0) return Status::ok();
  const int64_t L = x->rank() == 0 ? 1 : x->dim(dim);
  int64_t inner = 1;
  for (int k = dim + 1; k < x->rank(); ++k) inner *= x->dim(k);
  const int64_t outer = x->numel() / (L * inner);
  const bool integral = ir::isIntegral(out.dtype(), true);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      double acc = 0;
      int64_t iacc = 0;
      for (int64_t l = 0; l < L; ++l) {
        const int64_t at = (o * L + l) * inner + i;
        if (integral) out.setInt(at, iacc += x->getInt(at));
        else out.setDouble(at, acc += x->getDouble(at));
      }
    }
  return Status::ok();
}

/// eye(n[, m]): ones on the main diagonal.
Status eye(KernelCtx& c) {
  Tensor& out = c.newOutput(0);
  const int64_t R = out.dim(0), C = out.dim(1);
  for (int64_t i = 0; i < std::min(R, C); ++i) out.setDouble(i * C + i, 1.0);
  return Status::ok();
}

// ---------------------------------------------------------------- slicing

Status sliceCopy(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(d, c.getInt(1));
  int dim = wrapDim(d, x->rank());
  std::vector<int64_t> s = contiguousStrides(x->shape());
  int64_t start = sliceStart(c, 2, x->dim(dim));
  int64_t step = sliceStep(c, 4);
  int64_t offset = start * s[size_t(dim)];
  s[size_t(dim)] *= step;
  return gatherStrided(c, *x, offset, s);
}

Status selectCopy(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(d, c.getInt(1));
  LS_ASSIGN_OR_RETURN(index, c.getInt(2));
  int dim = wrapDim(d, x->rank());
  std::vector<int64_t> s = contiguousStrides(x->shape());
  int64_t i = index < 0 ? index + x->dim(dim) : index;
  int64_t offset = i * s[size_t(dim)];
  s.erase(s.begin() + dim);
  return gatherStrided(c, *x, offset, s);
}

/// Outputs k = slices of `x` along `dim` of the output shapes' lengths, consecutively.
Status splitImpl(KernelCtx& c, const Tensor& x, int dim) {
  std::vector<int64_t> s = contiguousStrides(x.shape());
  int64_t start = 0;
  for (size_t k = 0; k < c.outMetas().size(); ++k) {
    Tensor& out = c.newOutput(k);
    std::vector<int64_t> dst = contiguousStrides(out.shape());
    copyStrided(x.elementSize(), out.shape(), x.bytes(), start * s[size_t(dim)], s.data(), out.bytes(), 0, dst.data());
    start += out.dim(dim);
  }
  return Status::ok();
}

Status splitCopy(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(d, c.getInt(2));
  return splitImpl(c, *x, wrapDim(d, x->rank()));
}

Status splitWithSizesCopy(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(d, c.getInt(2));
  return splitImpl(c, *x, wrapDim(d, x->rank()));
}

Status unbindCopy(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(d, c.getInt(1));
  int dim = wrapDim(d, x->rank());
  std::vector<int64_t> s = contiguousStrides(x->shape());
  int64_t step = s[size_t(dim)];
  s.erase(s.begin() + dim);
  for (size_t k = 0; k < c.outMetas().size(); ++k) {
    Tensor& out = c.newOutput(k);
    std::vector<int64_t> dst = contiguousStrides(out.shape());
    copyStrided(x->elementSize(), out.shape(), x->bytes(), int64_t(k) * step, s.data(), out.bytes(), 0, dst.data());
  }
  return Status::ok();
}

Status asStridedCopy(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(stride, c.getIntList(2));
  int64_t offset = 0;
  if (c.has(3)) {
    LS_ASSIGN_OR_RETURN(o, c.getInt(3));
    offset = o;
  }
  // Elements are read from the input's contiguous storage (as_strided on a contiguous tensor).
  return gatherStrided(c, *x, offset, stride);
}

// ---------------------------------------------------------------- cat / stack / pad / roll

Status catImpl(KernelCtx& c, const std::vector<const Tensor*>& list, int dim, bool stack) {
  Tensor& out = c.newOutput(0);
  std::vector<int64_t> dst = contiguousStrides(out.shape());
  int64_t at = 0;
  for (const Tensor* t : list) {
    if (!stack && t->rank() == 1 && t->dim(0) == 0 && out.rank() != 1) continue;  // legacy empty tensor
    Tensor src = t->to(out.dtype());
    Shape region = src.shape();
    if (stack) region.insert(dim, 1);
    std::vector<int64_t> sStr = contiguousStrides(region);
    copyStrided(out.elementSize(), region, src.bytes(), 0, sStr.data(), out.bytes(), at * dst[size_t(dim)],
                dst.data());
    at += region[dim];
  }
  return Status::ok();
}

Status cat(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(list, c.tensorList(0));
  LS_ASSIGN_OR_RETURN(d, c.getInt(1));
  for (const Tensor* t : list)
    if (!t) return c.error("None is not allowed in cat");
  return catImpl(c, list, wrapDim(d, c.outMeta().rank()), false);
}

Status stack(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(list, c.tensorList(0));
  LS_ASSIGN_OR_RETURN(d, c.getInt(1));
  for (const Tensor* t : list)
    if (!t) return c.error("None is not allowed in stack");
  return catImpl(c, list, wrapDim(d, c.outMeta().rank()), true);
}

/// Fills every element of `t` with a number (cast to t's dtype as torch does).
void fillWith(Tensor& t, double v, bool isInt) {
  if (t.numel() == 0) return;
  t.setDouble(0, v);
  if (isInt && ir::isIntegral(t.dtype(), true)) t.setInt(0, int64_t(v));
  const int es = t.elementSize();
  for (int64_t i = 1; i < t.numel(); ++i) std::memcpy(t.bytes() + i * es, t.bytes(), size_t(es));
}

Status constantPadNd(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(pad, c.getIntList(1));
  double value = 0.0;
  bool isInt = true;
  if (c.has(2)) {
    LS_ASSIGN_OR_RETURN(v, c.operand(2));
    value = v.number;
    isInt = v.isInt;
  }
  Tensor& out = c.newOutput(0);
  fillWith(out, value, isInt);
  std::vector<int64_t> sStr = contiguousStrides(x->shape()), dStr = contiguousStrides(out.shape());
  Shape region = x->shape();
  int64_t sOff = 0, dOff = 0;
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    int d = x->rank() - 1 - int(i);
    int64_t before = pad[2 * i], after = pad[2 * i + 1];
    int64_t srcStart = std::max<int64_t>(0, -before), dstStart = std::max<int64_t>(0, before);
    int64_t len = x->dim(d) - srcStart - std::max<int64_t>(0, -after);
    if (len <= 0) return Status::ok();  // everything cropped: only the fill value remains
    region[d] = len;
    sOff += srcStart * sStr[size_t(d)];
    dOff += dstStart * dStr[size_t(d)];
  }
  copyStrided(x->elementSize(), region, x->bytes(), sOff, sStr.data(), out.bytes(), dOff, dStr.data());
  return Status::ok();
}

/// out = x rolled by `shift` along `dim` (elements move to higher indices).
Tensor rollDim(const Tensor& x, int dim, int64_t shift) {
  const int64_t n = x.dim(dim);
  Tensor out(x.dtype(), x.shape());
  if (n == 0) return out;
  shift = ((shift % n) + n) % n;
  std::vector<int64_t> s = contiguousStrides(x.shape());
  const int64_t st = s[size_t(dim)];
  Shape a = x.shape(), b = x.shape();
  a[dim] = n - shift;  // x[0 : n-shift] -> out[shift : n]
  b[dim] = shift;      // x[n-shift : n] -> out[0 : shift]
  copyStrided(x.elementSize(), a, x.bytes(), 0, s.data(), out.bytes(), shift * st, s.data());
  copyStrided(x.elementSize(), b, x.bytes(), (n - shift) * st, s.data(), out.bytes(), 0, s.data());
  return out;
}

Status roll(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(shifts, c.getIntList(1));
  LS_ASSIGN_OR_RETURN(dims, c.getIntList(2));
  if (dims.empty()) {  // flattened roll
    Tensor flat = x->reshaped(Shape{x->numel()});
    c.setOutput(0, rollDim(flat, 0, shifts.empty() ? 0 : shifts[0]).reshaped(x->shape()));
    return Status::ok();
  }
  Tensor cur = *x;
  for (size_t i = 0; i < dims.size() && i < shifts.size(); ++i) cur = rollDim(cur, wrapDim(dims[i], x->rank()), shifts[i]);
  c.setOutput(0, cur);
  return Status::ok();
}

// ---------------------------------------------------------------- indexing

Result<int64_t> checkedIndex(const KernelCtx& c, int64_t v, int64_t size, int dim) {
  if (v < -size || v >= size)
    return c.error("index {} is out of bounds for dimension {} with size {}", v, dim, size);
  return v < 0 ? v + size : v;
}

Status indexTensor(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(idx, c.tensorList(1));
  const int rank = x->rank();
  struct Index {
    int dim;
    std::vector<int64_t> values;
    std::vector<int64_t> strides;  // broadcast into the index shape
  };
  std::vector<Index> indices;
  Shape bshape;
  bool first = true;
  int firstDim = -1, lastDim = -1;
  bool adjacent = true;
  for (size_t i = 0; i < idx.size(); ++i) {
    if (!idx[i]) continue;
    if (!ir::isIntegral(idx[i]->dtype(), false))
      return c.error("indices must be integer tensors (bool masks are not supported), got {}",
                     ir::dtypeName(idx[i]->dtype()));
    if (firstDim < 0) firstDim = int(i);
    else if (lastDim != int(i) - 1) adjacent = false;
    lastDim = int(i);
    if (first) {
      bshape = idx[i]->shape();
      first = false;
    } else {  // right-aligned broadcast
      int r = std::max(bshape.rank(), idx[i]->rank());
      Shape s = Shape::ofRank(r);
      for (int k = 0; k < r; ++k) {
        int ia = bshape.rank() - r + k, ib = idx[i]->rank() - r + k;
        int64_t da = ia >= 0 ? bshape[ia] : 1, db = ib >= 0 ? idx[i]->dim(ib) : 1;
        if (da != db && da != 1 && db != 1) return c.error("indexing tensors could not be broadcast together");
        s[k] = da == 1 ? db : da;
      }
      bshape = s;
    }
    indices.push_back(Index{int(i), idx[i]->toInts(), {}});
  }
  if (indices.empty()) {
    c.setOutput(0, *x);
    return Status::ok();
  }
  for (Index& ix : indices) ix.strides = broadcastStrides(idx[size_t(ix.dim)]->shape(), bshape);
  // Output dim layout: where the broadcast index dims go and which input dim each other
  // output dim reads.
  const int br = bshape.rank();
  Tensor& out = c.newOutput(0);
  const Shape& os = out.shape();
  std::vector<int> outToIn(size_t(os.rank()), -1);  // -1: part of the index block
  int bstart = 0;
  if (adjacent) {
    bstart = firstDim;
    for (int d = 0; d < firstDim; ++d) outToIn[size_t(d)] = d;
    for (int d = lastDim + 1; d < rank; ++d) outToIn[size_t(d - (lastDim + 1) + firstDim + br)] = d;
  } else {
    int o = br;
    for (int d = 0; d < rank; ++d) {
      bool indexed = d < int(idx.size()) && idx[size_t(d)];
      if (!indexed) outToIn[size_t(o++)] = d;
    }
  }
  std::vector<int64_t> inStr = contiguousStrides(x->shape());
  const int es = x->elementSize();
  std::vector<int64_t> o(size_t(os.rank()), 0);
  for (int64_t flat = 0; flat < out.numel(); ++flat) {
    int64_t src = 0;
    for (int d = 0; d < os.rank(); ++d)
      if (outToIn[size_t(d)] >= 0) src += o[size_t(d)] * inStr[size_t(outToIn[size_t(d)])];
    for (const Index& ix : indices) {
      int64_t bo = 0;
      for (int k = 0; k < br; ++k) bo += o[size_t(bstart + k)] * ix.strides[size_t(k)];
      LS_ASSIGN_OR_RETURN(v, checkedIndex(c, ix.values[size_t(bo)], x->dim(ix.dim), ix.dim));
      src += v * inStr[size_t(ix.dim)];
    }
    std::memcpy(out.bytes() + flat * es, x->bytes() + src * es, size_t(es));
    for (int d = os.rank() - 1; d >= 0; --d) {
      if (++o[size_t(d)] < os[d]) break;
      o[size_t(d)] = 0;
    }
  }
  return Status::ok();
}

Status indexSelect(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(d, c.getInt(1));
  LS_ASSIGN_OR_RETURN(index, c.tensor(2));
  int dim = wrapDim(d, x->rank());
  Tensor& out = c.newOutput(0);
  if (x->rank() == 0) {
    std::memcpy(out.bytes(), x->bytes(), x->nbytes());
    return Status::ok();
  }
  std::vector<int64_t> ids = index->toInts();
  int64_t outer = 1, inner = 1;
  for (int k = 0; k < dim; ++k) outer *= x->dim(k);
  for (int k = dim + 1; k < x->rank(); ++k) inner *= x->dim(k);
  const int64_t es = x->elementSize(), n = x->dim(dim);
  for (int64_t o = 0; o < outer; ++o)
    for (size_t j = 0; j < ids.size(); ++j) {
      LS_ASSIGN_OR_RETURN(v, checkedIndex(c, ids[j], n, dim));
      std::memcpy(out.bytes() + ((o * int64_t(ids.size()) + int64_t(j)) * inner) * es,
                  x->bytes() + ((o * n + v) * inner) * es, size_t(inner * es));
    }
  return Status::ok();
}

Status embedding(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(w, c.tensor(0));
  LS_ASSIGN_OR_RETURN(index, c.tensor(1));
  Tensor& out = c.newOutput(0);
  std::vector<int64_t> ids = index->toInts();
  const int64_t row = w->dim(1) * w->elementSize();
  for (size_t j = 0; j < ids.size(); ++j) {
    LS_ASSIGN_OR_RETURN(v, checkedIndex(c, ids[j], w->dim(0), 0));
    std::memcpy(out.bytes() + int64_t(j) * row, w->bytes() + v * row, size_t(row));
  }
  return Status::ok();
}

Status gather(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(d, c.getInt(1));
  LS_ASSIGN_OR_RETURN(index, c.tensor(2));
  int dim = wrapDim(d, x->rank());
  Tensor& out = c.newOutput(0);
  std::vector<int64_t> ids = index->toInts();
  std::vector<int64_t> inStr = contiguousStrides(x->shape());
  const Shape& os = out.shape();
  const int es = x->elementSize();
  std::vector<int64_t> o(size_t(os.rank()), 0);
  for (int64_t flat = 0; flat < out.numel(); ++flat) {
    int64_t src = 0;
    for (int k = 0; k < os.rank(); ++k) {
      if (k == dim) {
        LS_ASSIGN_OR_RETURN(v, checkedIndex(c, ids[size_t(flat)], x->dim(dim), dim));
        src += v * inStr[size_t(k)];
      } else {
        src += o[size_t(k)] * inStr[size_t(k)];
      }
    }
    std::memcpy(out.bytes() + flat * es, x->bytes() + src * es, size_t(es));
    for (int k = os.rank() - 1; k >= 0; --k) {
      if (++o[size_t(k)] < os[k]) break;
      o[size_t(k)] = 0;
    }
  }
  return Status::ok();
}

Status sliceScatter(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(src, c.tensor(1));
  LS_ASSIGN_OR_RETURN(d, c.getInt(2));
  int dim = wrapDim(d, x->rank());
  Tensor& out = c.newOutput(0);
  std::memcpy(out.bytes(), x->bytes(), x->nbytes());
  Tensor s = src->to(out.dtype());
  std::vector<int64_t> dStr = contiguousStrides(out.shape()), sStr = contiguousStrides(s.shape());
  int64_t start = sliceStart(c, 3, x->dim(dim));
  int64_t step = sliceStep(c, 5);
  int64_t dOff = start * dStr[size_t(dim)];
  dStr[size_t(dim)] *= step;
  copyStrided(out.elementSize(), s.shape(), s.bytes(), 0, sStr.data(), out.bytes(), dOff, dStr.data());
  return Status::ok();
}

Status selectScatter(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(src, c.tensor(1));
  LS_ASSIGN_OR_RETURN(d, c.getInt(2));
  LS_ASSIGN_OR_RETURN(index, c.getInt(3));
  int dim = wrapDim(d, x->rank());
  Tensor& out = c.newOutput(0);
  std::memcpy(out.bytes(), x->bytes(), x->nbytes());
  Tensor s = src->to(out.dtype());
  std::vector<int64_t> dStr = contiguousStrides(out.shape()), sStr = contiguousStrides(s.shape());
  LS_ASSIGN_OR_RETURN(i, checkedIndex(c, index, x->dim(dim), dim));
  int64_t dOff = i * dStr[size_t(dim)];
  dStr.erase(dStr.begin() + dim);
  copyStrided(out.elementSize(), s.shape(), s.bytes(), 0, sStr.data(), out.bytes(), dOff, dStr.data());
  return Status::ok();
}

// ---------------------------------------------------------------- factories and fills

Status fillNumberArg(KernelCtx& c, int valueArg) {
  Tensor& out = c.newOutput(0);
  LS_ASSIGN_OR_RETURN(v, c.operand(valueArg));
  if (v.tensor) return c.error("{}: expected a number", c.argDesc(valueArg));
  fillWith(out, v.number, v.isInt);
  return Status::ok();
}

Status zerosKernel(KernelCtx& c) {  // new_zeros, new_empty, zeros, empty, zeros_like
  c.newOutput(0);
  return Status::ok();
}

Status onesKernel(KernelCtx& c) {  // new_ones, ones, ones_like
  fillWith(c.newOutput(0), 1.0, true);
  return Status::ok();
}

Status newFull(KernelCtx& c) { return fillNumberArg(c, 2); }
Status full(KernelCtx& c) { return fillNumberArg(c, 1); }
Status fullLike(KernelCtx& c) { return fillNumberArg(c, 1); }
Status scalarTensor(KernelCtx& c) { return fillNumberArg(c, 0); }
Status fillScalar(KernelCtx& c) { return fillNumberArg(c, 1); }

Status fillTensor(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(v, c.operand(1));
  Tensor& out = c.newOutput(0);
  if (!v.tensor) {
    fillWith(out, v.number, v.isInt);
  } else if (v.tensor->numel() != 1) {
    return c.error("fill value must be a 0-dimension tensor with one element, got {}", ir::toString(v.tensor->meta()));
  } else if (ir::isIntegral(v.tensor->dtype(), true)) {
    fillWith(out, double(v.tensor->getInt(0)), true);
    if (ir::isIntegral(out.dtype(), true) && out.numel() > 0) {  // exact for large int64 values
      out.setInt(0, v.tensor->getInt(0));
      for (int64_t i = 1; i < out.numel(); ++i)
        std::memcpy(out.bytes() + i * out.elementSize(), out.bytes(), size_t(out.elementSize()));
    }
  } else {
    fillWith(out, v.tensor->getDouble(0), false);
  }
  return Status::ok();
}

Status arange(KernelCtx& c) {
  // arange(end) / arange.start(start, end) / arange.start_step(start, end, step).
  double start = 0.0, step = 1.0;
  if (c.node().op != LS_OP("aten.arange.default")) {
    LS_ASSIGN_OR_RETURN(s0, c.getFloat(0));
    start = s0;
  }
  if (c.node().op == LS_OP("aten.arange.start_step")) {
    LS_ASSIGN_OR_RETURN(s2, c.getFloat(2));
    step = s2;
  }
  Tensor& out = c.newOutput(0);
  for (int64_t i = 0; i < out.numel(); ++i) out.setDouble(i, start + double(i) * step);
  return Status::ok();
}

/// linspace(start, end, steps): start + i * (end - start) / (steps - 1); the second half is
/// counted back from end (as PyTorch does, so the last value is end exactly).
Status linspace(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(start, c.getFloat(0));
  LS_ASSIGN_OR_RETURN(end, c.getFloat(1));
  Tensor& out = c.newOutput(0);
  const int64_t n = out.numel();
  if (n == 1) out.setDouble(0, start);
  if (n <= 1) return Status::ok();
  const double step = (end - start) / double(n - 1);
  const int64_t half = n / 2;
  for (int64_t i = 0; i < n; ++i) out.setDouble(i, i < half ? start + step * double(i) : end - step * double(n - 1 - i));
  return Status::ok();
}

Status nativeDropout(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(p, c.getFloat(1));
  bool train = false;
  if (c.has(2)) {
    LS_ASSIGN_OR_RETURN(t, c.getBool(2));
    train = t;
  }
  if (train && p > 0.0) return c.error("training-mode dropout (p={}) is random; the reference executor runs eval graphs", p);
  c.setOutput(0, *x);
  fillWith(c.newOutput(1), 1.0, true);
  return Status::ok();
}

}  // namespace

void registerShapeKernels(KernelRegistry& r) {
  for (const char* op : {"aten.view_copy.default", "aten._unsafe_view.default", "aten.reshape.default",
                         "aten.view.default", "aten.unsqueeze_copy.default", "aten.squeeze_copy.default",
                         "aten.squeeze_copy.dim", "aten.squeeze_copy.dims"})
    r.registerKernel(op, viewLike);
  for (const char* op : {"aten.clone.default", "aten.lift_fresh_copy.default", "aten.alias_copy.default",
                         "aten.detach_copy.default"})
    r.registerKernel(op, identity);
  r.registerKernel("aten._to_copy.default", toCopy);
  r.registerKernel("aten.permute_copy.default", permuteCopy);
  r.registerKernel("aten.permute.default", permuteCopy);
  r.registerKernel("aten.transpose_copy.int", transposeCopy);
  r.registerKernel("aten.t_copy.default", tCopy);
  r.registerKernel("aten.expand_copy.default", expandCopy);
  r.registerKernel("aten.repeat.default", repeat);
  r.registerKernel("aten.flip.default", flip);
  r.registerKernel("aten.pixel_shuffle.default", pixelShuffle);
  r.registerKernel("aten.pixel_unshuffle.default", pixelUnshuffle);
  r.registerKernel("aten.tril.default", tril);
  r.registerKernel("aten.cumsum.default", cumsum);
  r.registerKernel("aten.eye.default", eye);
  r.registerKernel("aten.eye.m", eye);
  r.registerKernel("aten.slice_copy.Tensor", sliceCopy);
  r.registerKernel("aten.select_copy.int", selectCopy);
  r.registerKernel("aten.split_copy.Tensor", splitCopy);
  r.registerKernel("aten.split.Tensor", splitCopy);
  r.registerKernel("aten.split_with_sizes_copy.default", splitWithSizesCopy);
  r.registerKernel("aten.unbind_copy.int", unbindCopy);
  r.registerKernel("aten.as_strided_copy.default", asStridedCopy);
  r.registerKernel("aten.cat.default", cat);
  r.registerKernel("aten.stack.default", stack);
  r.registerKernel("aten.constant_pad_nd.default", constantPadNd);
  r.registerKernel("aten.roll.default", roll);
  r.registerKernel("aten.index.Tensor", indexTensor);
  r.registerKernel("aten.index_select.default", indexSelect);
  r.registerKernel("aten.embedding.default", embedding);
  r.registerKernel("aten.gather.default", gather);
  r.registerKernel("aten.slice_scatter.default", sliceScatter);
  r.registerKernel("aten.select_scatter.default", selectScatter);
  for (const char* op : {"aten.new_zeros.default", "aten.new_empty.default", "aten.zeros.default",
                         "aten.empty.memory_format", "aten.zeros_like.default"})
    r.registerKernel(op, zerosKernel);
  for (const char* op : {"aten.new_ones.default", "aten.ones.default", "aten.ones_like.default"})
    r.registerKernel(op, onesKernel);
  r.registerKernel("aten.new_full.default", newFull);
  r.registerKernel("aten.full.default", full);
  r.registerKernel("aten.full_like.default", fullLike);
  r.registerKernel("aten.scalar_tensor.default", scalarTensor);
  r.registerKernel("aten.fill.Scalar", fillScalar);
  r.registerKernel("aten.fill.Tensor", fillTensor);
  r.registerKernel("aten.arange.start_step", arange);
  r.registerKernel("aten.arange.default", arange);
  r.registerKernel("aten.linspace.default", linspace);
  r.registerKernel("aten.arange.start", arange);
  r.registerKernel("aten.native_dropout.default", nativeDropout);
}

}  // namespace ls::exec
