// Helpers shared by the kernel files of the reference executor (internal to core/exec).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
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

/// The dtype of a kernel's element type (float: Float32, double: Float64).
template <typename T>
constexpr ir::DType floatDType() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  return std::is_same_v<T, float> ? ir::DType::Float32 : ir::DType::Float64;
}

/// Float kernels are written once over their element type T (float, or double when the
/// executor evaluates float32 in float64, ExecOptions::float64): calls fn.template
/// operator()<T>() for the dtype of tensor arg `arg`, an error naming the arg for others.
template <typename Fn>
Status byFloatType(KernelCtx& c, int arg, Fn&& fn) {
  LS_ASSIGN_OR_RETURN(t, c.tensor(arg));
  if (t->dtype() == ir::DType::Float32) return fn.template operator()<float>();
  if (t->dtype() == ir::DType::Float64) return fn.template operator()<double>();
  return c.error("{} must be float32 or float64 for this kernel, got {}", c.argDesc(arg), ir::dtypeName(t->dtype()));
}

/// Error unless `t` has T's dtype (the other float operands of a kernel dispatched on one).
template <typename T>
Status requireDType(const KernelCtx& c, const Tensor& t, const char* what) {
  if (t.dtype() != floatDType<T>())
    return c.error("{} must be {} like the input, got {}", what, ir::dtypeName(floatDType<T>()), ir::dtypeName(t.dtype()));
  return Status::ok();
}

/// Data of `t` as T (no copy when t has T's dtype; otherwise converted into `scratch`).
template <typename T>
const T* typedData(const Tensor& t, std::vector<T>& scratch) {
  if (t.dtype() == floatDType<T>()) return t.data<T>();
  scratch.resize(size_t(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) scratch[size_t(i)] = T(t.getDouble(i));
  return scratch.data();
}

}  // namespace ls::exec
