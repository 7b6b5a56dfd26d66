// Reference-executor kernel of aten.scaled_dot_product_attention (softmax(q k^T * scale +
// mask) v), the op ConvertToSDPAPass fuses attention into.
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/exec/gemm.h"
#include "core/exec/kernel_util.h"
#include "core/ops/builtin_ops.h"

namespace ls::exec {
namespace {

/// softmax(q @ k^T * scale + mask) @ v over the last two dims, batch dims flattened. Scores
/// and products accumulate in T (float32, as bmm does; float64 under ExecOptions::float64),
/// the softmax in double (as _softmax does).
template <typename T>
Status sdpaIn(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(q, c.tensor(0));
  LS_ASSIGN_OR_RETURN(k, c.tensor(1));
  LS_ASSIGN_OR_RETURN(v, c.tensor(2));
  LS_RETURN_IF_ERROR(requireDType<T>(c, *k, "key"));
  LS_RETURN_IF_ERROR(requireDType<T>(c, *v, "value"));
  LS_ASSIGN_OR_RETURN(dropout, c.getFloat(4));
  if (dropout != 0.0) return c.error("dropout_p must be 0 in inference, got {}", dropout);
  LS_ASSIGN_OR_RETURN(causal, c.getBool(5));
  const int r = q->rank();
  const int64_t L = q->dim(r - 2), E = q->dim(r - 1), S = k->dim(r - 2), Ev = v->dim(r - 1);
  const int64_t B = q->numel() / std::max<int64_t>(L * E, 1);
  double scale = 1.0 / std::sqrt(double(E));
  const int scaleIdx = c.argIndex("scale");
  if (scaleIdx >= 0 && c.has(scaleIdx)) {
    LS_ASSIGN_OR_RETURN(s, c.getFloat(scaleIdx));
    scale = s;
  }
  const Tensor* mask = nullptr;
  std::vector<int64_t> mStr;
  ir::Shape scoresShape = q->shape();
  scoresShape[r - 1] = S;
  if (c.has(3)) {
    LS_ASSIGN_OR_RETURN(m, c.tensor(3));
    mask = m;
    mStr = broadcastStrides(m->shape(), scoresShape);
  }
  Tensor& out = c.newOutput(0);
  const T* qd = q->data<T>();
  const T* kd = k->data<T>();
  const T* vd = v->data<T>();
  T* od = out.data<T>();
  std::vector<T> scores(size_t(L * S));
  std::vector<double> row(static_cast<size_t>(S));
  for (int64_t b = 0; b < B; ++b) {
    gemm(L, S, E, qd + b * L * E, E, kd + b * S * E, E, /*transB=*/true, scores.data(), S, false, c.threads());
    // Multi-index of batch b (for mask broadcasting).
    int64_t maskBase = 0;
    if (mask) {
      int64_t rem = b;
      for (int d = r - 3; d >= 0; --d) {
        maskBase += (rem % scoresShape[d]) * mStr[size_t(d)];
        rem /= scoresShape[d];
      }
    }
    for (int64_t i = 0; i < L; ++i) {
      double mx = -std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < S; ++j) {
        double x = double(T(scores[size_t(i * S + j)] * T(scale)));
        if (causal && j > i) x = -std::numeric_limits<double>::infinity();
        if (mask) {
          const int64_t mi = maskBase + i * mStr[size_t(r - 2)] + j * mStr[size_t(r - 1)];
          if (mask->dtype() == ir::DType::Bool) {
            if (mask->getInt(mi) == 0) x = -std::numeric_limits<double>::infinity();
          } else {
            x = double(T(x + mask->getDouble(mi)));
          }
        }
        row[size_t(j)] = x;
        mx = std::max(mx, x);
      }
      double sum = 0;
      for (int64_t j = 0; j < S; ++j) {
        row[size_t(j)] = std::isinf(mx) && mx < 0 ? 0.0 : std::exp(row[size_t(j)] - mx);
        sum += row[size_t(j)];
      }
      for (int64_t j = 0; j < S; ++j)
        scores[size_t(i * S + j)] = sum > 0 ? T(row[size_t(j)] / sum) : std::numeric_limits<T>::quiet_NaN();
    }
    gemm(L, Ev, S, scores.data(), S, vd + b * S * Ev, Ev, false, od + b * L * Ev, Ev, false, c.threads());
  }
  return Status::ok();
}

Status sdpa(KernelCtx& c) {
  return byFloatType(c, 0, [&]<typename T>() { return sdpaIn<T>(c); });
}

}  // namespace

void registerAttentionKernels(KernelRegistry& r) { r.registerKernel(ops::kSdpaOp, sdpa); }

}  // namespace ls::exec
