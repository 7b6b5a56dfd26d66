// Helpers shared by the kernel files of the reference executor (internal to core/exec).
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/exec/kernel.h"

namespace ls::exec {

/// Wraps a possibly negative dim into [0, rank) (rank 0 accepts -1 and 0).
inline int wrapDim(int64_t d, int rank) {
  int r = rank > 0 ? rank : 1;
  return int(d < 0 ? d + r : d);
}

/// Strides (elements) of `in` broadcast to `out` (right-aligned; 0 on broadcast dims), with
/// out.rank() entries.
inline std::vector<int64_t> broadcastStrides(const ir::Shape& in, const ir::Shape& out) {
  std::vector<int64_t> s(size_t(out.rank()), 0);
  int64_t stride = 1;
  for (int i = in.rank() - 1, o = out.rank() - 1; i >= 0 && o >= 0; --i, --o) {
    s[size_t(o)] = in[i] == 1 && out[o] != 1 ? 0 : stride;
    stride *= in[i];
  }
  return s;
}

/// dst[dOff + sum(i_d * dStr_d)] = src[sOff + sum(i_d * sStr_d)] for every index i of `shape`.
/// Strides and offsets are in elements of size `elemSize` (1, 2, 4, 8 or any); strides may
/// be 0 (broadcast) or negative (flip).
void copyStrided(int elemSize, const ir::Shape& shape, const uint8_t* src, int64_t sOff, const int64_t* sStr,
                 uint8_t* dst, int64_t dOff, const int64_t* dStr);

/// Calls fn(outerIndex vector) style iteration helper: visits every multi-index of `shape`
/// in row-major order, passing the flat offsets computed with each stride set.
/// `strides` holds `nsets` stride vectors (each shape.rank() long); fn(const int64_t* offsets).
template <typename Fn>
void forEachOffset(const ir::Shape& shape, const std::vector<const int64_t*>& strides, Fn&& fn) {
  const int rank = shape.rank();
  const size_t ns = strides.size();
  std::vector<int64_t> off(ns, 0);
  if (shape.numel() == 0) return;
  if (rank == 0) {
    fn(off.data());
    return;
  }
  std::vector<int64_t> idx(size_t(rank), 0);
  const int64_t total = shape.numel();
  for (int64_t n = 0; n < total; ++n) {
    fn(off.data());
    for (int d = rank - 1; d >= 0; --d) {
      if (++idx[size_t(d)] < shape[d]) {
        for (size_t s = 0; s < ns; ++s) off[s] += strides[s][d];
        break;
      }
      for (size_t s = 0; s < ns; ++s) off[s] -= strides[s][d] * (shape[d] - 1);
      idx[size_t(d)] = 0;
    }
  }
}

/// Float32 data of `t` (no copy when t is float32; otherwise converted into `scratch`).
inline const float* floatData(const Tensor& t, std::vector<float>& scratch) {
  if (t.dtype() == ir::DType::Float32) return t.data<float>();
  scratch = t.toFloats();
  return scratch.data();
}

}  // namespace ls::exec
