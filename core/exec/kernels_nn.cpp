// Neural-network kernels: convolution (1-D/2-D, grouped, depthwise, strided, padded,
// dilated, transposed), matmul family (mm, addmm, bmm, linear), pooling, bilinear/nearest
// upsampling, batch/layer/group norm and (log-)softmax. Float kernels are written once over
// their element type: float32, or float64 when the executor evaluates float32 in float64
// (ExecOptions::float64); matmuls also take integer inputs through a naive loop. Index formulas follow PyTorch's CPU
// kernels so results match eager mode up to float rounding.
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/exec/gemm.h"
#include "core/exec/kernel_util.h"
#include "core/exec/parallel.h"

namespace ls::exec {
namespace {

using ir::DType;
using ir::Shape;

// ---------------------------------------------------------------- convolution

struct Conv2dGeom {
  int64_t n, cin, h, w;        // input
  int64_t cout, kh, kw;        // weight (cout = out channels)
  int64_t oh, ow;              // output
  int64_t sh, sw, ph, pw, dh, dw;
  int64_t groups;
};

/// Depthwise-style conv (one input channel per group): direct loops per output channel.
template <typename T>
void convDepthwise(const Conv2dGeom& g, const T* x, const T* w, T* out, int threads) {
  const int64_t coutG = g.cout / g.groups;
  const int64_t planes = g.n * g.cout;
  parallelFor(threads, planes, g.oh * g.ow * g.kh * g.kw, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const int64_t n = p / g.cout, oc = p % g.cout, ic = oc / coutG;
      const T* in = x + (n * g.cin + ic) * g.h * g.w;
      const T* wk = w + oc * g.kh * g.kw;
      T* o = out + p * g.oh * g.ow;
      for (int64_t oh = 0; oh < g.oh; ++oh) {
        T* orow = o + oh * g.ow;
        for (int64_t kh = 0; kh < g.kh; ++kh) {
          const int64_t ih = oh * g.sh - g.ph + kh * g.dh;
          if (ih < 0 || ih >= g.h) continue;
          const T* irow = in + ih * g.w;
          for (int64_t kw = 0; kw < g.kw; ++kw) {
            const T wv = wk[kh * g.kw + kw];
            const int64_t off = kw * g.dw - g.pw;  // iw = ow * sw + off
            // Valid ow: 0 <= ow*sw + off < W.
            int64_t lo = off >= 0 ? 0 : (-off + g.sw - 1) / g.sw;
            int64_t hi = g.w - off <= 0 ? 0 : std::min(g.ow, (g.w - off + g.sw - 1) / g.sw);
            if (g.sw == 1) {
              const T* src = irow + off;
              for (int64_t ow = lo; ow < hi; ++ow) orow[ow] += wv * src[ow];
            } else {
              for (int64_t ow = lo; ow < hi; ++ow) orow[ow] += wv * irow[ow * g.sw + off];
            }
          }
        }
      }
    }
  });
}

/// General grouped conv: im2col per (image, group) + GEMM; 1x1 stride-1 unpadded convs
/// multiply the input directly.
template <typename T>
void convIm2col(const Conv2dGeom& g, const T* x, const T* w, T* out, int threads, Accumulation acc) {
  const int64_t cinG = g.cin / g.groups, coutG = g.cout / g.groups;
  const int64_t K = cinG * g.kh * g.kw, P = g.oh * g.ow;
  const bool pointwise = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0;
  std::vector<T> col(pointwise ? 0 : size_t(K * P));
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t gr = 0; gr < g.groups; ++gr) {
      const T* xg = x + (n * g.cin + gr * cinG) * g.h * g.w;
      const T* wg = w + gr * coutG * K;
      T* og = out + (n * g.cout + gr * coutG) * P;
      if (pointwise) {
        gemmFor(acc, coutG, P, K, wg, K, xg, P, false, og, P, false, threads);
        continue;
      }
      parallelFor(threads, K, P, [&](int64_t b, int64_t e) {
        for (int64_t row = b; row < e; ++row) {
          const int64_t ci = row / (g.kh * g.kw), kh = (row / g.kw) % g.kh, kw = row % g.kw;
          const T* in = xg + ci * g.h * g.w;
          T* dst = col.data() + row * P;
          for (int64_t oh = 0; oh < g.oh; ++oh) {
            const int64_t ih = oh * g.sh - g.ph + kh * g.dh;
            T* d = dst + oh * g.ow;
            if (ih < 0 || ih >= g.h) {
              std::fill(d, d + g.ow, T(0));
              continue;
            }
            const T* irow = in + ih * g.w;
            for (int64_t ow = 0; ow < g.ow; ++ow) {
              const int64_t iw = ow * g.sw - g.pw + kw * g.dw;
              d[ow] = (iw >= 0 && iw < g.w) ? irow[iw] : T(0);
            }
          }
        }
      });
      gemmFor(acc, coutG, P, K, wg, K, col.data(), P, false, og, P, false, threads);
    }
  }
}

/// Transposed conv as a scatter: every input element adds w * x to the outputs it reaches.
/// weight is [Cin, Cout/groups, kh, kw].
template <typename T>
void convTransposed(const Conv2dGeom& g, const T* x, const T* w, T* out, int threads) {
  const int64_t cinG = g.cin / g.groups, coutG = g.cout / g.groups;
  parallelFor(threads, g.n * g.cout, g.h * g.w * cinG * g.kh * g.kw, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const int64_t n = p / g.cout, oc = p % g.cout, gr = oc / coutG, ocg = oc % coutG;
      T* o = out + p * g.oh * g.ow;
      for (int64_t icg = 0; icg < cinG; ++icg) {
        const int64_t ic = gr * cinG + icg;
        const T* in = x + (n * g.cin + ic) * g.h * g.w;
        const T* wk = w + (ic * coutG + ocg) * g.kh * g.kw;
        for (int64_t ih = 0; ih < g.h; ++ih)
          for (int64_t iw = 0; iw < g.w; ++iw) {
            const T v = in[ih * g.w + iw];
            for (int64_t kh = 0; kh < g.kh; ++kh) {
              const int64_t oh = ih * g.sh - g.ph + kh * g.dh;
              if (oh < 0 || oh >= g.oh) continue;
              for (int64_t kw = 0; kw < g.kw; ++kw) {
                const int64_t ow = iw * g.sw - g.pw + kw * g.dw;
                if (ow < 0 || ow >= g.ow) continue;
                o[oh * g.ow + ow] += v * wk[kh * g.kw + kw];
              }
            }
          }
      }
    }
  });
}

/// 3-D convolution geometry (NCDHW input, [Cout, Cin/groups, kd, kh, kw] weight; transposed:
/// [Cin, Cout/groups, kd, kh, kw]).
struct Conv3dGeom {
  int64_t n, cin, in[3];
  int64_t cout, k[3];
  int64_t out[3];
  int64_t stride[3], pad[3], dil[3];
  int64_t groups;
  int64_t inPlane() const { return in[0] * in[1] * in[2]; }
  int64_t outPlane() const { return out[0] * out[1] * out[2]; }
  int64_t kVol() const { return k[0] * k[1] * k[2]; }
};

/// 3-D conv: im2col per (image, group) + GEMM.
template <typename T>
void conv3dIm2col(const Conv3dGeom& g, const T* x, const T* w, T* out, int threads, Accumulation acc) {
  const int64_t cinG = g.cin / g.groups, coutG = g.cout / g.groups;
  const int64_t K = cinG * g.kVol(), P = g.outPlane();
  std::vector<T> col(size_t(K * P));
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t gr = 0; gr < g.groups; ++gr) {
      const T* xg = x + (n * g.cin + gr * cinG) * g.inPlane();
      parallelFor(threads, K, P, [&](int64_t b, int64_t e) {
        for (int64_t row = b; row < e; ++row) {
          const int64_t ci = row / g.kVol(), kk = row % g.kVol();
          const int64_t kd = kk / (g.k[1] * g.k[2]), kh = (kk / g.k[2]) % g.k[1], kw = kk % g.k[2];
          const T* in = xg + ci * g.inPlane();
          T* d = col.data() + row * P;
          for (int64_t od = 0; od < g.out[0]; ++od) {
            const int64_t id = od * g.stride[0] - g.pad[0] + kd * g.dil[0];
            for (int64_t oh = 0; oh < g.out[1]; ++oh) {
              const int64_t ih = oh * g.stride[1] - g.pad[1] + kh * g.dil[1];
              const bool rowOk = id >= 0 && id < g.in[0] && ih >= 0 && ih < g.in[1];
              const T* irow = rowOk ? in + (id * g.in[1] + ih) * g.in[2] : nullptr;
              for (int64_t ow = 0; ow < g.out[2]; ++ow, ++d) {
                const int64_t iw = ow * g.stride[2] - g.pad[2] + kw * g.dil[2];
                *d = (rowOk && iw >= 0 && iw < g.in[2]) ? irow[iw] : T(0);
              }
            }
          }
        }
      });
      gemmFor(acc, coutG, P, K, w + gr * coutG * K, K, col.data(), P, false, out + (n * g.cout + gr * coutG) * P, P, false,
              threads);
    }
}

/// Transposed 3-D conv as a scatter (weight [Cin, Cout/groups, kd, kh, kw]).
template <typename T>
void conv3dTransposed(const Conv3dGeom& g, const T* x, const T* w, T* out, int threads) {
  const int64_t cinG = g.cin / g.groups, coutG = g.cout / g.groups;
  parallelFor(threads, g.n * g.cout, g.inPlane() * cinG * g.kVol(), [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const int64_t n = p / g.cout, oc = p % g.cout, gr = oc / coutG, ocg = oc % coutG;
      T* o = out + p * g.outPlane();
      for (int64_t icg = 0; icg < cinG; ++icg) {
        const int64_t ic = gr * cinG + icg;
        const T* in = x + (n * g.cin + ic) * g.inPlane();
        const T* wk = w + (ic * coutG + ocg) * g.kVol();
        for (int64_t id = 0; id < g.in[0]; ++id)
          for (int64_t ih = 0; ih < g.in[1]; ++ih)
            for (int64_t iw = 0; iw < g.in[2]; ++iw) {
              const T v = in[(id * g.in[1] + ih) * g.in[2] + iw];
              for (int64_t kd = 0; kd < g.k[0]; ++kd) {
                const int64_t od = id * g.stride[0] - g.pad[0] + kd * g.dil[0];
                if (od < 0 || od >= g.out[0]) continue;
                for (int64_t kh = 0; kh < g.k[1]; ++kh) {
                  const int64_t oh = ih * g.stride[1] - g.pad[1] + kh * g.dil[1];
                  if (oh < 0 || oh >= g.out[1]) continue;
                  for (int64_t kw = 0; kw < g.k[2]; ++kw) {
                    const int64_t ow = iw * g.stride[2] - g.pad[2] + kw * g.dil[2];
                    if (ow < 0 || ow >= g.out[2]) continue;
                    o[(od * g.out[1] + oh) * g.out[2] + ow] += v * wk[(kd * g.k[1] + kh) * g.k[2] + kw];
                  }
                }
              }
            }
      }
    }
  });
}

template <typename T>
Status addConvBias(KernelCtx& c, T* o, int64_t n, int64_t cout, int64_t plane) {
  if (!c.has(2)) return Status::ok();
  LS_ASSIGN_OR_RETURN(b, c.tensor(2));
  LS_RETURN_IF_ERROR(requireDType<T>(c, *b, "bias"));
  const T* bias = b->data<T>();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t oc = 0; oc < cout; ++oc) {
      T* p = o + (i * cout + oc) * plane;
      for (int64_t j = 0; j < plane; ++j) p[j] += bias[oc];
    }
  return Status::ok();
}

template <typename T>
Status convolution3d(KernelCtx& c, const Tensor& x, const Tensor& w) {
  LS_ASSIGN_OR_RETURN(stride, c.getIntList(3, 3));
  LS_ASSIGN_OR_RETURN(pad, c.getIntList(4, 3));
  LS_ASSIGN_OR_RETURN(dil, c.getIntList(5, 3));
  LS_ASSIGN_OR_RETURN(transposed, c.getBool(6));
  LS_ASSIGN_OR_RETURN(groups, c.getInt(8));
  Tensor& out = c.newOutput(0);
  Conv3dGeom g;
  g.n = x.dim(0), g.cin = x.dim(1), g.cout = out.dim(1), g.groups = groups;
  for (int i = 0; i < 3; ++i) {
    g.in[i] = x.dim(2 + i), g.k[i] = w.dim(2 + i), g.out[i] = out.dim(2 + i);
    g.stride[i] = stride[size_t(i)], g.pad[i] = pad[size_t(i)], g.dil[i] = dil[size_t(i)];
  }
  if (g.groups <= 0 || g.cin % g.groups != 0 || g.cout % g.groups != 0)
    return c.error("channels ({} in, {} out) must be divisible by groups {}", g.cin, g.cout, g.groups);
  T* o = out.data<T>();
  if (transposed) conv3dTransposed(g, x.data<T>(), w.data<T>(), o, c.threads());
  else conv3dIm2col(g, x.data<T>(), w.data<T>(), o, c.threads(), c.accumulation());
  return addConvBias(c, o, g.n, g.cout, g.outPlane());
}

template <typename T>
Status convolutionIn(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(w, c.tensor(1));
  const int k = w->rank() - 2;
  if (k < 1 || k > 3) return c.error("only 1-D, 2-D and 3-D convolutions are supported, weight is {}", ir::toString(w->meta()));
  LS_RETURN_IF_ERROR(requireDType<T>(c, *w, "weight"));
  if (k == 3) return convolution3d<T>(c, *x, *w);
  LS_ASSIGN_OR_RETURN(stride, c.getIntList(3, k));
  LS_ASSIGN_OR_RETURN(pad, c.getIntList(4, k));
  LS_ASSIGN_OR_RETURN(dil, c.getIntList(5, k));
  LS_ASSIGN_OR_RETURN(transposed, c.getBool(6));
  LS_ASSIGN_OR_RETURN(groups, c.getInt(8));
  Tensor& out = c.newOutput(0);
  // 1-D convs run as 2-D with height 1.
  auto sp = [&](const Tensor& t, int i) { return k == 1 ? (i == 0 ? int64_t(1) : t.dim(2)) : t.dim(2 + i); };
  auto par = [&](const std::vector<int64_t>& v, int i, int64_t one) { return k == 1 ? (i == 0 ? one : v[0]) : v[size_t(i)]; };
  Conv2dGeom g;
  g.n = x->dim(0), g.cin = x->dim(1), g.h = sp(*x, 0), g.w = sp(*x, 1);
  g.cout = out.dim(1), g.kh = sp(*w, 0), g.kw = sp(*w, 1);
  g.oh = sp(out, 0), g.ow = sp(out, 1);
  g.sh = par(stride, 0, 1), g.sw = par(stride, 1, 1);
  g.ph = par(pad, 0, 0), g.pw = par(pad, 1, 0);
  g.dh = par(dil, 0, 1), g.dw = par(dil, 1, 1);
  g.groups = groups;
  if (g.groups <= 0 || g.cin % g.groups != 0 || g.cout % g.groups != 0)
    return c.error("channels ({} in, {} out) must be divisible by groups {}", g.cin, g.cout, g.groups);
  T* o = out.data<T>();
  if (transposed) convTransposed(g, x->data<T>(), w->data<T>(), o, c.threads());
  else if (g.cin / g.groups == 1 && g.groups > 1) convDepthwise(g, x->data<T>(), w->data<T>(), o, c.threads());
  else convIm2col(g, x->data<T>(), w->data<T>(), o, c.threads(), c.accumulation());
  return addConvBias(c, o, g.n, g.cout, g.oh * g.ow);
}

Status convolution(KernelCtx& c) {
  return byFloatType(c, 0, [&]<typename T>() { return convolutionIn<T>(c); });
}

// ---------------------------------------------------------------- matmul family

/// Naive C = A[M,K] B[K,N] for integer dtypes (in int64) and other floats (in double).
void naiveMatmul(const Tensor& a, int64_t aOff, const Tensor& b, int64_t bOff, Tensor& out, int64_t oOff, int64_t M,
                 int64_t N, int64_t K) {
  const bool integral = ir::isIntegral(out.dtype(), true);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double s = 0;
      int64_t si = 0;
      for (int64_t k = 0; k < K; ++k) {
        if (integral) si += a.getInt(aOff + i * K + k) * b.getInt(bOff + k * N + j);
        else s += a.getDouble(aOff + i * K + k) * b.getDouble(bOff + k * N + j);
      }
      if (integral) out.setInt(oOff + i * N + j, si);
      else out.setDouble(oOff + i * N + j, s);
    }
}

/// Calls fn.template operator()<T>() for float32 (T = float) or float64 (double) operand `a`,
/// else returns `other()` (integer matmuls through naiveMatmul).
template <typename Fn, typename Other>
Status byMatmulType(const Tensor& a, Fn&& fn, Other&& other) {
  if (a.dtype() == DType::Float32) return fn.template operator()<float>();
  if (a.dtype() == DType::Float64) return fn.template operator()<double>();
  return other();
}

Status mm(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(a, c.tensor(0));
  LS_ASSIGN_OR_RETURN(b, c.tensor(1));
  Tensor& out = c.newOutputForOverwrite(0);
  const int64_t M = a->dim(0), K = a->dim(1), N = b->dim(1);
  return byMatmulType(
      *a,
      [&]<typename T>() {
        LS_RETURN_IF_ERROR(requireDType<T>(c, *b, "mat2"));
        gemmFor(c.accumulation(), M, N, K, a->data<T>(), K, b->data<T>(), N, false, out.data<T>(), N, false,
                c.threads());
        return Status::ok();
      },
      [&] {
        naiveMatmul(*a, 0, *b, 0, out, 0, M, N, K);
        return Status::ok();
      });
}

Status bmm(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(a, c.tensor(0));
  LS_ASSIGN_OR_RETURN(b, c.tensor(1));
  Tensor& out = c.newOutputForOverwrite(0);
  const int64_t B = a->dim(0), M = a->dim(1), K = a->dim(2), N = b->dim(2);
  return byMatmulType(
      *a,
      [&]<typename T>() {
        LS_RETURN_IF_ERROR(requireDType<T>(c, *b, "mat2"));
        for (int64_t i = 0; i < B; ++i)
          gemmFor(c.accumulation(), M, N, K, a->data<T>() + i * M * K, K, b->data<T>() + i * K * N, N, false,
                  out.data<T>() + i * M * N, N, false, c.threads());
        return Status::ok();
      },
      [&] {
        for (int64_t i = 0; i < B; ++i) naiveMatmul(*a, i * M * K, *b, i * K * N, out, i * M * N, M, N, K);
        return Status::ok();
      });
}

/// addmm in T: out = beta * self + alpha * (a b), self broadcast.
template <typename T>
Status addmmIn(KernelCtx& c, const Tensor& self, const Tensor& a, const Tensor& b, double alpha, double beta,
               Tensor& out) {
  LS_RETURN_IF_ERROR(requireDType<T>(c, b, "mat2"));
  const int64_t M = a.dim(0), K = a.dim(1), N = b.dim(1);
  T* o = out.data<T>();
  // The product into the output (it writes every element), then combined with self in place.
  gemmFor(c.accumulation(), M, N, K, a.data<T>(), K, b.data<T>(), N, false, o, N, false, c.threads());
  std::vector<T> sbuf;
  const T* s = typedData(self, sbuf);
  std::vector<int64_t> ss = broadcastStrides(self.shape(), out.shape());
  const T fa = T(alpha), fb = T(beta);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      T p = o[i * N + j];
      if (alpha != 1.0) p *= fa;
      // beta == 0 ignores self entirely (nan/inf in self do not propagate), as in torch.
      o[i * N + j] = beta == 0.0 ? p : (beta == 1.0 ? s[i * ss[0] + j * ss[1]] : fb * s[i * ss[0] + j * ss[1]]) + p;
    }
  return Status::ok();
}

Status addmm(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(self, c.tensor(0));
  LS_ASSIGN_OR_RETURN(a, c.tensor(1));
  LS_ASSIGN_OR_RETURN(b, c.tensor(2));
  LS_ASSIGN_OR_RETURN(beta, c.getFloat(3));
  LS_ASSIGN_OR_RETURN(alpha, c.getFloat(4));
  Tensor& out = c.newOutputForOverwrite(0);
  const int64_t M = a->dim(0), K = a->dim(1), N = b->dim(1);
  return byMatmulType(
      *a, [&]<typename T>() { return addmmIn<T>(c, *self, *a, *b, alpha, beta, out); },
      [&] {
        naiveMatmul(*a, 0, *b, 0, out, 0, M, N, K);
        std::vector<int64_t> ss = broadcastStrides(self->shape(), out.shape());
        for (int64_t i = 0; i < M; ++i)
          for (int64_t j = 0; j < N; ++j) {
            int64_t o = i * N + j, s = i * ss[0] + j * ss[1];
            double v = alpha * out.getDouble(o) + (beta != 0.0 ? beta * self->getDouble(s) : 0.0);
            if (ir::isIntegral(out.dtype(), true)) out.setInt(o, int64_t(v));
            else out.setDouble(o, v);
          }
        return Status::ok();
      });
}

template <typename T>
Status linearIn(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(w, c.tensor(1));
  LS_RETURN_IF_ERROR(requireDType<T>(c, *w, "weight"));
  Tensor& out = c.newOutputForOverwrite(0);
  const int64_t in = x->dim(x->rank() - 1);
  const int64_t rows = x->numel() / std::max<int64_t>(in, 1);
  const int64_t outF = w->rank() == 2 ? w->dim(0) : 1;
  // x W^T with W [out, in] used in place.
  gemmFor(c.accumulation(), rows, outF, in, x->data<T>(), in, w->data<T>(), in, /*transB=*/true, out.data<T>(),
          outF, false, c.threads());
  if (c.has(2)) {
    LS_ASSIGN_OR_RETURN(b, c.tensor(2));
    std::vector<T> bbuf;
    const T* bd = typedData(*b, bbuf);
    T* o = out.data<T>();
    const bool scalarBias = b->numel() == 1;
    if (scalarBias || (b->rank() == 1 && b->dim(0) == outF)) {
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < outF; ++j) o[r * outF + j] += bd[scalarBias ? 0 : j];
    } else {  // a bias of any shape that broadcasts to the output (torch adds it as such)
      const std::vector<int64_t> os = contiguousStrides(out.shape()), bs = broadcastStrides(b->shape(), out.shape());
      forEachOffset(out.shape(), {os.data(), bs.data()}, [&](const int64_t* off) { o[off[0]] += bd[off[1]]; });
    }
  }
  return Status::ok();
}

Status linear(KernelCtx& c) {
  return byFloatType(c, 0, [&]<typename T>() { return linearIn<T>(c); });
}

// ---------------------------------------------------------------- pooling

struct Pool2d {
  int64_t kh, kw, sh, sw, ph, pw, dh = 1, dw = 1;
};

Result<Pool2d> poolArgs(KernelCtx& c, bool hasDilation) {
  LS_ASSIGN_OR_RETURN(kernel, c.getIntList(1, 2));
  LS_ASSIGN_OR_RETURN(stride, c.getIntList(2, 2));
  LS_ASSIGN_OR_RETURN(pad, c.getIntList(3, 2));
  Pool2d p;
  if (kernel.size() != 2 || pad.size() != 2) return c.error("kernel_size and padding must have 1 or 2 elements");
  if (stride.empty()) stride = kernel;
  p.kh = kernel[0], p.kw = kernel[1], p.sh = stride[0], p.sw = stride[1], p.ph = pad[0], p.pw = pad[1];
  if (hasDilation) {
    LS_ASSIGN_OR_RETURN(dil, c.getIntList(4, 2));
    p.dh = dil[0], p.dw = dil[1];
  }
  return p;
}

/// max_pool2d(_with_indices): the first maximum wins, NaN wins; indices are h * W + w within
/// each input plane (PyTorch's CPU kernel).
template <typename T>
Status maxPoolImpl(KernelCtx& c, bool withIndices) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(p, poolArgs(c, true));
  Tensor& out = c.newOutput(0);
  Tensor* idx = withIndices ? &c.newOutput(1) : nullptr;
  const int r = x->rank();
  const int64_t H = x->dim(r - 2), W = x->dim(r - 1), OH = out.dim(r - 2), OW = out.dim(r - 1);
  const int64_t planes = x->numel() / (H * W);
  const T* xd = x->data<T>();
  T* od = out.data<T>();
  int64_t* id = idx ? idx->data<int64_t>() : nullptr;
  parallelFor(c.threads(), planes, OH * OW * p.kh * p.kw, [&](int64_t b, int64_t e) {
    for (int64_t pl = b; pl < e; ++pl) {
      const T* in = xd + pl * H * W;
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          int64_t ih0 = oh * p.sh - p.ph, iw0 = ow * p.sw - p.pw;
          const int64_t ih1 = std::min(ih0 + (p.kh - 1) * p.dh + 1, H);
          const int64_t iw1 = std::min(iw0 + (p.kw - 1) * p.dw + 1, W);
          while (ih0 < 0) ih0 += p.dh;
          while (iw0 < 0) iw0 += p.dw;
          int64_t best = ih0 * W + iw0;
          T bestV = -std::numeric_limits<T>::infinity();
          for (int64_t ih = ih0; ih < ih1; ih += p.dh)
            for (int64_t iw = iw0; iw < iw1; iw += p.dw) {
              const T v = in[ih * W + iw];
              if (v > bestV || std::isnan(v)) {
                bestV = v;
                best = ih * W + iw;
              }
            }
          od[pl * OH * OW + oh * OW + ow] = bestV;
          if (id) id[pl * OH * OW + oh * OW + ow] = best;
        }
    }
  });
  return Status::ok();
}

Status maxPoolWithIndices(KernelCtx& c) {
  return byFloatType(c, 0, [&]<typename T>() { return maxPoolImpl<T>(c, true); });
}
Status maxPool(KernelCtx& c) {
  return byFloatType(c, 0, [&]<typename T>() { return maxPoolImpl<T>(c, false); });
}

/// avg_pool2d with ceil_mode windows clipped to input + padding, count_include_pad and
/// divisor_override as in PyTorch's CPU kernel.
template <typename T>
Status avgPoolIn(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(p, poolArgs(c, false));
  LS_ASSIGN_OR_RETURN(countIncludePad, c.getBool(5));
  std::optional<int64_t> divisor;
  if (c.has(6)) {
    LS_ASSIGN_OR_RETURN(d, c.getInt(6));
    if (d == 0) return c.error("divisor_override must be non-zero");
    divisor = d;
  }
  Tensor& out = c.newOutput(0);
  const int r = x->rank();
  const int64_t H = x->dim(r - 2), W = x->dim(r - 1), OH = out.dim(r - 2), OW = out.dim(r - 1);
  const int64_t planes = x->numel() / (H * W);
  const T* xd = x->data<T>();
  T* od = out.data<T>();
  parallelFor(c.threads(), planes, OH * OW * p.kh * p.kw, [&](int64_t b, int64_t e) {
    for (int64_t pl = b; pl < e; ++pl) {
      const T* in = xd + pl * H * W;
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          int64_t ih0 = oh * p.sh - p.ph, iw0 = ow * p.sw - p.pw;
          int64_t ih1 = std::min(ih0 + p.kh, H + p.ph), iw1 = std::min(iw0 + p.kw, W + p.pw);
          const int64_t poolSize = (ih1 - ih0) * (iw1 - iw0);
          ih0 = std::max<int64_t>(ih0, 0), iw0 = std::max<int64_t>(iw0, 0);
          ih1 = std::min(ih1, H), iw1 = std::min(iw1, W);
          T& o = od[pl * OH * OW + oh * OW + ow];
          if (ih0 >= ih1 || iw0 >= iw1) {
            o = T(0);
            continue;
          }
          T sum = T(0);
          for (int64_t ih = ih0; ih < ih1; ++ih)
            for (int64_t iw = iw0; iw < iw1; ++iw) sum += in[ih * W + iw];
          const int64_t div = divisor ? *divisor : countIncludePad ? poolSize : (ih1 - ih0) * (iw1 - iw0);
          o = sum / T(div);
        }
    }
  });
  return Status::ok();
}

Status avgPool(KernelCtx& c) {
  return byFloatType(c, 0, [&]<typename T>() { return avgPoolIn<T>(c); });
}

/// 3-D pools ([C,D,H,W] or [N,C,D,H,W]) with PyTorch's CPU semantics: max (first maximum, NaN
/// wins; indices (d * H + h) * W + w within each input volume) and avg (windows clipped to input
/// + padding, count_include_pad, divisor_override).
template <typename T>
Status pool3d(KernelCtx& c, bool isMax, bool withIndices) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(k, c.getIntList(1, 3));
  LS_ASSIGN_OR_RETURN(st, c.getIntList(2, 3));
  LS_ASSIGN_OR_RETURN(pd, c.getIntList(3, 3));
  if (st.empty()) st = k;
  std::vector<int64_t> dl{1, 1, 1};
  bool countIncludePad = true;
  std::optional<int64_t> divisor;
  if (isMax) {
    LS_ASSIGN_OR_RETURN(d, c.getIntList(4, 3));
    dl = d;
  } else {
    LS_ASSIGN_OR_RETURN(cip, c.getBool(5));
    countIncludePad = cip;
    if (c.has(6)) {
      LS_ASSIGN_OR_RETURN(dv, c.getInt(6));
      if (dv == 0) return c.error("divisor_override must be non-zero");
      divisor = dv;
    }
  }
  if (k.size() != 3 || st.size() != 3 || pd.size() != 3 || dl.size() != 3)
    return c.error("kernel_size/stride/padding/dilation must have 1 or 3 elements");
  Tensor& out = c.newOutput(0);
  Tensor* idx = withIndices ? &c.newOutput(1) : nullptr;
  const int r = x->rank();
  const int64_t in[3] = {x->dim(r - 3), x->dim(r - 2), x->dim(r - 1)};
  const int64_t on[3] = {out.dim(r - 3), out.dim(r - 2), out.dim(r - 1)};
  const int64_t inVol = in[0] * in[1] * in[2], outVol = on[0] * on[1] * on[2];
  const int64_t planes = x->numel() / std::max<int64_t>(inVol, 1);
  const T* xd = x->data<T>();
  T* od = out.data<T>();
  int64_t* id = idx ? idx->data<int64_t>() : nullptr;
  for (int64_t pl = 0; pl < planes; ++pl) {
    const T* src = xd + pl * inVol;
    for (int64_t o = 0; o < outVol; ++o) {
      const int64_t oi[3] = {o / (on[1] * on[2]), (o / on[2]) % on[1], o % on[2]};
      int64_t lo[3], hi[3], size = 1;
      for (int a = 0; a < 3; ++a) {
        lo[a] = oi[a] * st[size_t(a)] - pd[size_t(a)];
        if (isMax) {
          hi[a] = std::min(lo[a] + (k[size_t(a)] - 1) * dl[size_t(a)] + 1, in[a]);
          while (lo[a] < 0) lo[a] += dl[size_t(a)];
        } else {
          hi[a] = std::min(lo[a] + k[size_t(a)], in[a] + pd[size_t(a)]);
          size *= hi[a] - lo[a];
          lo[a] = std::max<int64_t>(lo[a], 0), hi[a] = std::min(hi[a], in[a]);
        }
      }
      T& dst = od[pl * outVol + o];
      if (isMax) {
        T best = -std::numeric_limits<T>::infinity();
        int64_t at = (lo[0] * in[1] + lo[1]) * in[2] + lo[2];
        for (int64_t a = lo[0]; a < hi[0]; a += dl[0])
          for (int64_t b = lo[1]; b < hi[1]; b += dl[1])
            for (int64_t e = lo[2]; e < hi[2]; e += dl[2]) {
              const int64_t i = (a * in[1] + b) * in[2] + e;
              if (src[i] > best || std::isnan(src[i])) best = src[i], at = i;
            }
        dst = best;
        if (id) id[pl * outVol + o] = at;
        continue;
      }
      if (lo[0] >= hi[0] || lo[1] >= hi[1] || lo[2] >= hi[2]) {
        dst = T(0);
        continue;
      }
      T sum = T(0);
      for (int64_t a = lo[0]; a < hi[0]; ++a)
        for (int64_t b = lo[1]; b < hi[1]; ++b)
          for (int64_t e = lo[2]; e < hi[2]; ++e) sum += src[(a * in[1] + b) * in[2] + e];
      const int64_t div = divisor ? *divisor
                          : countIncludePad ? size
                                            : (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
      dst = sum / T(div);
    }
  }
  return Status::ok();
}
Status pool3dK(KernelCtx& c, bool isMax, bool withIndices) {
  return byFloatType(c, 0, [&]<typename T>() { return pool3d<T>(c, isMax, withIndices); });
}
Status maxPool3dWithIndices(KernelCtx& c) { return pool3dK(c, true, true); }
Status maxPool3d(KernelCtx& c) { return pool3dK(c, true, false); }
Status avgPool3d(KernelCtx& c) { return pool3dK(c, false, false); }

template <typename T>
Status adaptiveAvgPoolIn(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  Tensor& out = c.newOutput(0);
  const int r = x->rank();
  const int64_t H = x->dim(r - 2), W = x->dim(r - 1), OH = out.dim(r - 2), OW = out.dim(r - 1);
  const int64_t planes = x->numel() / std::max<int64_t>(H * W, 1);
  const T* xd = x->data<T>();
  T* od = out.data<T>();
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t oh = 0; oh < OH; ++oh) {
      const int64_t h0 = (oh * H) / OH, h1 = ((oh + 1) * H + OH - 1) / OH;
      for (int64_t ow = 0; ow < OW; ++ow) {
        const int64_t w0 = (ow * W) / OW, w1 = ((ow + 1) * W + OW - 1) / OW;
        T sum = T(0);
        for (int64_t ih = h0; ih < h1; ++ih)
          for (int64_t iw = w0; iw < w1; ++iw) sum += xd[pl * H * W + ih * W + iw];
        od[pl * OH * OW + oh * OW + ow] = sum / T((h1 - h0) * (w1 - w0));
      }
    }
  return Status::ok();
}

Status adaptiveAvgPool(KernelCtx& c) {
  return byFloatType(c, 0, [&]<typename T>() { return adaptiveAvgPoolIn<T>(c); });
}

// ---------------------------------------------------------------- upsampling

/// at::native::area_pixel_compute_scale (in float, as torch's opmath for float32).
float areaPixelScale(int64_t in, int64_t out, bool alignCorners, std::optional<double> scale) {
  if (alignCorners) return out > 1 ? float(in - 1) / float(out - 1) : 0.0f;
  if (scale && *scale > 0) return float(1.0 / *scale);
  return float(in) / float(out);
}

/// Optional per-dim scale factors: scale_factors of the .vec overloads, or scales_h/scales_w.
std::optional<double> scaleArg(KernelCtx& c, int listArg, int singleArg, int i) {
  if (listArg >= 0 && c.has(listArg)) {
    const ir::Arg& a = c.arg(listArg);
    if (auto* fl = std::get_if<ir::FloatList>(&a.v); fl && size_t(i) < fl->size()) return (*fl)[size_t(i)];
    if (auto* il = a.asIntList(); il && size_t(i) < il->size()) return double((*il)[size_t(i)]);
  }
  if (singleArg >= 0 && c.has(singleArg + i)) {
    auto v = c.getFloat(singleArg + i);
    if (v) return v.value();
  }
  return std::nullopt;
}

struct LinearIdx {
  int64_t i0, i1;
  float l0, l1;
};

/// compute_source_index_and_lambda of PyTorch's upsample kernels.
std::vector<LinearIdx> linearIndices(int64_t in, int64_t out, bool alignCorners, std::optional<double> scale) {
  std::vector<LinearIdx> v(static_cast<size_t>(out));
  const float ratio = areaPixelScale(in, out, alignCorners, scale);
  for (int64_t o = 0; o < out; ++o) {
    LinearIdx& li = v[size_t(o)];
    if (in == out) {
      li = {o, o, 1.0f, 0.0f};
      continue;
    }
    float real = alignCorners ? ratio * float(o) : std::max(ratio * (float(o) + 0.5f) - 0.5f, 0.0f);
    li.i0 = int64_t(real);
    li.i1 = li.i0 + (li.i0 < in - 1 ? 1 : 0);
    li.l1 = std::min(std::max(real - float(li.i0), 0.0f), 1.0f);
    li.l0 = 1.0f - li.l1;
  }
  return v;
}

template <typename T>
Status bilinearImpl(KernelCtx& c, int alignArg, int listArg, int singleArg) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  if (x->rank() != 4) return c.error("bilinear upsampling expects a 4-D input, got {}", ir::toString(x->meta()));
  LS_ASSIGN_OR_RETURN(align, c.getBool(alignArg));
  Tensor& out = c.newOutput(0);
  const int64_t H = x->dim(2), W = x->dim(3), OH = out.dim(2), OW = out.dim(3);
  auto hi = linearIndices(H, OH, align, scaleArg(c, listArg, singleArg, 0));
  auto wi = linearIndices(W, OW, align, scaleArg(c, listArg, singleArg, 1));
  const int64_t planes = x->dim(0) * x->dim(1);
  const T* xd = x->data<T>();
  T* od = out.data<T>();
  parallelFor(c.threads(), planes, OH * OW * 8, [&](int64_t b, int64_t e) {
    for (int64_t pl = b; pl < e; ++pl) {
      const T* in = xd + pl * H * W;
      T* o = od + pl * OH * OW;
      for (int64_t oh = 0; oh < OH; ++oh) {
        const LinearIdx& h = hi[size_t(oh)];
        for (int64_t ow = 0; ow < OW; ++ow) {
          const LinearIdx& w = wi[size_t(ow)];
          o[oh * OW + ow] = h.l0 * (w.l0 * in[h.i0 * W + w.i0] + w.l1 * in[h.i0 * W + w.i1]) +
                            h.l1 * (w.l0 * in[h.i1 * W + w.i0] + w.l1 * in[h.i1 * W + w.i1]);
        }
      }
    }
  });
  return Status::ok();
}

Status bilinearK(KernelCtx& c, int alignArg, int listArg, int singleArg) {
  return byFloatType(c, 0, [&]<typename T>() { return bilinearImpl<T>(c, alignArg, listArg, singleArg); });
}
Status upsampleBilinearVec(KernelCtx& c) { return bilinearK(c, 2, 3, -1); }
Status upsampleBilinear(KernelCtx& c) { return bilinearK(c, 2, -1, 3); }

Status nearestImpl(KernelCtx& c, int listArg, int singleArg) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  if (x->rank() != 4) return c.error("nearest upsampling expects a 4-D input, got {}", ir::toString(x->meta()));
  Tensor& out = c.newOutput(0);
  const int64_t H = x->dim(2), W = x->dim(3), OH = out.dim(2), OW = out.dim(3);
  auto srcIdx = [](int64_t in, int64_t outSize, std::optional<double> s) {
    std::vector<int64_t> v(static_cast<size_t>(outSize));
    const float scale = (s && *s > 0) ? float(1.0 / *s) : float(in) / float(outSize);
    for (int64_t o = 0; o < outSize; ++o) v[size_t(o)] = std::min(int64_t(std::floor(float(o) * scale)), in - 1);
    return v;
  };
  auto hs = srcIdx(H, OH, scaleArg(c, listArg, singleArg, 0));
  auto ws = srcIdx(W, OW, scaleArg(c, listArg, singleArg, 1));
  const int es = x->elementSize();
  const int64_t planes = x->dim(0) * x->dim(1);
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow)
        std::memcpy(out.bytes() + ((pl * OH + oh) * OW + ow) * es,
                    x->bytes() + ((pl * H + hs[size_t(oh)]) * W + ws[size_t(ow)]) * es, size_t(es));
  return Status::ok();
}

Status upsampleNearestVec(KernelCtx& c) { return nearestImpl(c, 2, -1); }
Status upsampleNearest(KernelCtx& c) { return nearestImpl(c, -1, 2); }

// ---------------------------------------------------------------- normalisation

/// Optional per-channel float parameter (null when absent).
template <typename T>
Result<const T*> optParam(KernelCtx& c, int i, std::vector<T>& buf) {
  if (!c.has(i)) return static_cast<const T*>(nullptr);
  LS_ASSIGN_OR_RETURN(t, c.tensor(i));
  return typedData(*t, buf);
}

/// native_batch_norm & co. Eval: y = x * a + b with a = w / sqrt(var + eps),
/// b = bias - mean * a per channel; extra outputs as the metadata says (empty in eval).
/// Training: batch statistics (biased variance); outputs 1, 2 are save_mean, save_invstd.
template <typename T>
Status batchNormImpl(KernelCtx& c, int trainingArg, int epsArg) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  std::vector<T> wb, bb, mb, vb;
  LS_ASSIGN_OR_RETURN(w, optParam(c, 1, wb));
  LS_ASSIGN_OR_RETURN(b, optParam(c, 2, bb));
  LS_ASSIGN_OR_RETURN(rm, optParam(c, 3, mb));
  LS_ASSIGN_OR_RETURN(rv, optParam(c, 4, vb));
  bool training = false;
  if (trainingArg >= 0) {
    LS_ASSIGN_OR_RETURN(t, c.getBool(trainingArg));
    training = t;
  }
  LS_ASSIGN_OR_RETURN(eps, c.getFloat(epsArg));
  Tensor& out = c.newOutput(0);
  Tensor& o1 = c.newOutput(1);
  Tensor& o2 = c.newOutput(2);
  const int64_t N = x->dim(0), C = x->dim(1), plane = x->numel() / std::max<int64_t>(N * C, 1);
  const T* xd = x->data<T>();
  std::vector<double> mean(static_cast<size_t>(C)), var(static_cast<size_t>(C));
  if (training) {
    for (int64_t ch = 0; ch < C; ++ch) {
      double s = 0, s2 = 0;
      for (int64_t n = 0; n < N; ++n)
        for (int64_t i = 0; i < plane; ++i) s += xd[(n * C + ch) * plane + i];
      const double cnt = double(N * plane);
      mean[size_t(ch)] = s / cnt;
      for (int64_t n = 0; n < N; ++n)
        for (int64_t i = 0; i < plane; ++i) {
          double d = xd[(n * C + ch) * plane + i] - mean[size_t(ch)];
          s2 += d * d;
        }
      var[size_t(ch)] = s2 / cnt;
    }
  } else {
    if (!rm || !rv) return c.error("eval-mode batch norm needs running_mean and running_var");
    for (int64_t ch = 0; ch < C; ++ch) mean[size_t(ch)] = rm[ch], var[size_t(ch)] = rv[ch];
  }
  std::vector<T> scale(static_cast<size_t>(C)), shift(static_cast<size_t>(C));
  for (int64_t ch = 0; ch < C; ++ch) {
    const double invstd = 1.0 / std::sqrt(var[size_t(ch)] + eps);
    const double a = (w ? w[ch] : 1.0) * invstd;
    scale[size_t(ch)] = T(a);
    shift[size_t(ch)] = T((b ? b[ch] : 0.0) - mean[size_t(ch)] * a);
  }
  T* od = out.data<T>();
  parallelFor(c.threads(), N * C, plane, [&](int64_t lo, int64_t hi) {
    for (int64_t p = lo; p < hi; ++p) {
      const T a = scale[size_t(p % C)], sh = shift[size_t(p % C)];
      const T* in = xd + p * plane;
      T* o = od + p * plane;
      for (int64_t i = 0; i < plane; ++i) o[i] = in[i] * a + sh;
    }
  });
  if (training && o1.numel() == C && o2.numel() == C) {
    for (int64_t ch = 0; ch < C; ++ch) {
      o1.setDouble(ch, mean[size_t(ch)]);
      o2.setDouble(ch, 1.0 / std::sqrt(var[size_t(ch)] + eps));
    }
  }
  return Status::ok();
}

Status batchNormK(KernelCtx& c, int trainingArg, int epsArg) {
  return byFloatType(c, 0, [&]<typename T>() { return batchNormImpl<T>(c, trainingArg, epsArg); });
}
Status nativeBatchNorm(KernelCtx& c) { return batchNormK(c, 5, 7); }
Status batchNormNoTraining(KernelCtx& c) { return batchNormK(c, -1, 6); }

/// native_layer_norm: per row over the normalized dims, biased variance in double;
/// outputs (y, mean, rstd).
template <typename T>
Status layerNormIn(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(norm, c.getIntList(1));
  std::vector<T> wb, bb;
  LS_ASSIGN_OR_RETURN(w, optParam(c, 2, wb));
  LS_ASSIGN_OR_RETURN(b, optParam(c, 3, bb));
  LS_ASSIGN_OR_RETURN(eps, c.getFloat(4));
  Tensor& out = c.newOutput(0);
  Tensor& meanOut = c.newOutput(1);
  Tensor& rstdOut = c.newOutput(2);
  int64_t n = 1;
  for (int64_t d : norm) n *= d;
  const int64_t rows = n > 0 ? x->numel() / n : 0;
  const T* xd = x->data<T>();
  T* od = out.data<T>();
  T* md = meanOut.data<T>();
  T* rd = rstdOut.data<T>();
  parallelFor(c.threads(), rows, n * 4, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const T* in = xd + r * n;
      double s = 0;
      for (int64_t i = 0; i < n; ++i) s += in[i];
      const double mean = s / double(n);
      double s2 = 0;
      for (int64_t i = 0; i < n; ++i) s2 += (in[i] - mean) * (in[i] - mean);
      const double rstd = 1.0 / std::sqrt(s2 / double(n) + eps);
      T* o = od + r * n;
      for (int64_t i = 0; i < n; ++i) {
        double y = (in[i] - mean) * rstd;
        if (w) y *= w[i];
        if (b) y += b[i];
        o[i] = T(y);
      }
      md[r] = T(mean);
      rd[r] = T(rstd);
    }
  });
  return Status::ok();
}

Status layerNorm(KernelCtx& c) {
  return byFloatType(c, 0, [&]<typename T>() { return layerNormIn<T>(c); });
}

/// native_group_norm(input, weight, bias, N, C, HxW, group, eps) -> (y, mean[N,G], rstd[N,G]).
template <typename T>
Status groupNormIn(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  std::vector<T> wb, bb;
  LS_ASSIGN_OR_RETURN(w, optParam(c, 1, wb));
  LS_ASSIGN_OR_RETURN(b, optParam(c, 2, bb));
  LS_ASSIGN_OR_RETURN(N, c.getInt(3));
  LS_ASSIGN_OR_RETURN(C, c.getInt(4));
  LS_ASSIGN_OR_RETURN(HxW, c.getInt(5));
  LS_ASSIGN_OR_RETURN(G, c.getInt(6));
  LS_ASSIGN_OR_RETURN(eps, c.getFloat(7));
  if (G <= 0 || C % G != 0 || N * C * HxW != x->numel())
    return c.error("group norm: N={} C={} HxW={} group={} do not fit input {}", N, C, HxW, G, ir::toString(x->meta()));
  Tensor& out = c.newOutput(0);
  Tensor& meanOut = c.newOutput(1);
  Tensor& rstdOut = c.newOutput(2);
  const int64_t cg = C / G, len = cg * HxW;
  const T* xd = x->data<T>();
  T* od = out.data<T>();
  for (int64_t n = 0; n < N; ++n)
    for (int64_t g = 0; g < G; ++g) {
      const T* in = xd + (n * C + g * cg) * HxW;
      double s = 0, s2 = 0;
      for (int64_t i = 0; i < len; ++i) s += in[i];
      const double mean = s / double(len);
      for (int64_t i = 0; i < len; ++i) s2 += (in[i] - mean) * (in[i] - mean);
      const double rstd = 1.0 / std::sqrt(s2 / double(len) + eps);
      for (int64_t ch = 0; ch < cg; ++ch) {
        const int64_t cc = g * cg + ch;
        for (int64_t i = 0; i < HxW; ++i) {
          double y = (in[ch * HxW + i] - mean) * rstd;
          if (w) y *= w[cc];
          if (b) y += b[cc];
          od[(n * C + cc) * HxW + i] = T(y);
        }
      }
      meanOut.setDouble(n * G + g, mean);
      rstdOut.setDouble(n * G + g, rstd);
    }
  return Status::ok();
}

Status groupNorm(KernelCtx& c) {
  return byFloatType(c, 0, [&]<typename T>() { return groupNormIn<T>(c); });
}

/// softmax / log_softmax along one dim (max-subtracted; sums in double).
Status softmaxImpl(KernelCtx& c, bool log) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(d, c.getInt(1));
  Tensor& out = c.newOutputForOverwrite(0);
  const int dim = wrapDim(d, x->rank());
  const int64_t len = x->rank() == 0 ? 1 : x->dim(dim);
  int64_t outer = 1, inner = 1;
  for (int k = 0; k < dim; ++k) outer *= x->dim(k);
  for (int k = dim + 1; k < x->rank(); ++k) inner *= x->dim(k);
  const std::vector<double> xs = x->toDoubles();
  const double* xd = xs.data();
  const bool f32 = out.dtype() == DType::Float32;
  float* of = f32 ? out.data<float>() : nullptr;
  parallelFor(c.threads(), outer * inner, len * 8, [&](int64_t lo, int64_t hi) {
    std::vector<double> e(static_cast<size_t>(len));
    for (int64_t p = lo; p < hi; ++p) {
      const int64_t o = p / inner, i = p % inner;
      const int64_t base = o * len * inner + i;
      double mx = -INFINITY;
      for (int64_t k = 0; k < len; ++k) mx = std::max(mx, xd[base + k * inner]);
      double sum = 0;
      for (int64_t k = 0; k < len; ++k) {
        e[size_t(k)] = std::exp(xd[base + k * inner] - mx);
        sum += e[size_t(k)];
      }
      const double logSum = std::log(sum);
      for (int64_t k = 0; k < len; ++k) {
        const double v = log ? xd[base + k * inner] - mx - logSum : e[size_t(k)] / sum;
        if (f32) of[base + k * inner] = float(v);
        else out.setDouble(base + k * inner, v);
      }
    }
  });
  return Status::ok();
}

Status softmax(KernelCtx& c) { return softmaxImpl(c, false); }
Status logSoftmax(KernelCtx& c) { return softmaxImpl(c, true); }

}  // namespace

void registerNnKernels(KernelRegistry& r) {
  r.registerKernel("aten.convolution.default", convolution);
  r.registerKernel("aten.mm.default", mm);
  r.registerKernel("aten.bmm.default", bmm);
  r.registerKernel("aten.addmm.default", addmm);
  r.registerKernel("aten.linear.default", linear);
  r.registerKernel("aten.max_pool2d_with_indices.default", maxPoolWithIndices);
  r.registerKernel("aten.max_pool2d.default", maxPool);
  r.registerKernel("aten.avg_pool2d.default", avgPool);
  r.registerKernel("aten.max_pool3d_with_indices.default", maxPool3dWithIndices);
  r.registerKernel("aten.max_pool3d.default", maxPool3d);
  r.registerKernel("aten.avg_pool3d.default", avgPool3d);
  r.registerKernel("aten.adaptive_avg_pool2d.default", adaptiveAvgPool);
  r.registerKernel("aten._adaptive_avg_pool2d.default", adaptiveAvgPool);
  r.registerKernel("aten.upsample_bilinear2d.vec", upsampleBilinearVec);
  r.registerKernel("aten.upsample_bilinear2d.default", upsampleBilinear);
  r.registerKernel("aten.upsample_nearest2d.vec", upsampleNearestVec);
  r.registerKernel("aten.upsample_nearest2d.default", upsampleNearest);
  r.registerKernel("aten.native_batch_norm.default", nativeBatchNorm);
  r.registerKernel("aten._native_batch_norm_legit.default", nativeBatchNorm);
  r.registerKernel("aten._native_batch_norm_legit_no_training.default", batchNormNoTraining);
  r.registerKernel("aten.native_layer_norm.default", layerNorm);
  r.registerKernel("aten.native_group_norm.default", groupNorm);
  r.registerKernel("aten._softmax.default", softmax);
  r.registerKernel("aten.softmax.int", softmax);
  r.registerKernel("aten._log_softmax.default", logSoftmax);
  r.registerKernel("aten.log_softmax.int", logSoftmax);
}

}  // namespace ls::exec
