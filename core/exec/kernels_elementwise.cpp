// Elementwise and reduction kernels: activations and unary math, broadcasting binary
// arithmetic / comparisons with torch type promotion (Python scalars included), where,
// masked_fill, clamp, and sum/mean/amax/var/max/argmax reductions.
//
// Compute types: float32 (and f16/bf16, rounded on store) in float, float64 in double,
// integers and bool in int64 (wrapped to the output width on store). Output dtypes always
// come from ops::inferNode; comparisons compare in torch's common dtype.
#include <algorithm>
#include <optional>
#include <cmath>
#include <limits>

#include "core/exec/kernel_util.h"
#include "core/exec/parallel.h"
#include "core/ops/meta_util.h"

namespace ls::exec {
namespace {

using ir::DType;
using ir::Shape;

/// The type a kernel computes in for values of dtype t.
DType computeType(DType t) {
  if (t == DType::Float64) return DType::Float64;
  if (ir::isFloating(t)) return DType::Float32;
  return DType::Int64;
}

/// Elements of `t` as T (no copy when the dtype already matches T's compute dtype).
template <typename T>
const T* elements(const Tensor& t, std::vector<T>& buf) {
  if constexpr (std::is_same_v<T, float>) {
    if (t.dtype() == DType::Float32) return t.data<float>();
  } else if constexpr (std::is_same_v<T, double>) {
    if (t.dtype() == DType::Float64) return t.data<double>();
  } else {
    if (t.dtype() == DType::Int64) return t.data<int64_t>();
  }
  const int64_t n = t.numel();
  buf.resize(size_t(n));
  if constexpr (!std::is_integral_v<T>) {  // the values getDouble gives, converted in one loop
    if (t.dtype() == DType::Float32) return std::copy(t.data<float>(), t.data<float>() + n, buf.data()) - n;
    if (t.dtype() == DType::Float64) return std::copy(t.data<double>(), t.data<double>() + n, buf.data()) - n;
  }
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_integral_v<T>) buf[size_t(i)] = t.getInt(i);
    else buf[size_t(i)] = T(t.getDouble(i));
  }
  return buf.data();
}

template <typename T>
T numberAs(const Operand& o) {
  if constexpr (std::is_integral_v<T>) return o.isInt ? T(o.intValue) : T(o.number);
  else return T(o.number);
}

/// Writes computed values (compute type T) into `out`, converting when out's dtype differs.
template <typename T>
void storeAll(Tensor& out, const std::vector<T>& v) {
  for (int64_t i = 0; i < out.numel(); ++i) {
    if constexpr (std::is_integral_v<T>) out.setInt(i, int64_t(v[size_t(i)]));
    else out.setDouble(i, double(v[size_t(i)]));
  }
}

template <typename T>
bool isNan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else return false;
}

// ---------------------------------------------------------------- unary

/// out[i] = f(x[i]) in the output's compute type. f must accept float, double and int64_t.
template <typename F>
Status unaryMap(KernelCtx& c, F f) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  Tensor& out = c.newOutputForOverwrite(0);
  const int64_t n = out.numel();
  switch (computeType(out.dtype())) {
    case DType::Float32: {
      std::vector<float> buf;
      const float* in = elements<float>(*x, buf);
      if (out.dtype() == DType::Float32) {
        float* o = out.data<float>();
        parallelFor(c.threads(), n, 8, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) o[i] = f(in[i]);
        });
      } else {
        for (int64_t i = 0; i < n; ++i) out.setDouble(i, double(f(in[i])));
      }
      break;
    }
    case DType::Float64: {
      std::vector<double> buf;
      const double* in = elements<double>(*x, buf);
      double* o = out.data<double>();
      for (int64_t i = 0; i < n; ++i) o[i] = f(in[i]);
      break;
    }
    default: {
      std::vector<int64_t> buf;
      const int64_t* in = elements<int64_t>(*x, buf);
      for (int64_t i = 0; i < n; ++i) out.setInt(i, int64_t(f(in[i])));
      break;
    }
  }
  return Status::ok();
}

#define LS_UNARY(name, expr)                                  \
  Status name(KernelCtx& c) {                                 \
    return unaryMap(c, [](auto x) {                           \
      using T = decltype(x);                                  \
      (void)sizeof(T);                                        \
      return T(expr);                                         \
    });                                                       \
  }

LS_UNARY(relu, x < T(0) ? T(0) : x)
LS_UNARY(hardswish, x * std::min(std::max(x + T(3), T(0)), T(6)) / T(6))
LS_UNARY(hardsigmoid, std::min(std::max(x + T(3), T(0)), T(6)) / T(6))
LS_UNARY(sigmoid, T(1) / (T(1) + std::exp(-x)))
LS_UNARY(silu, x / (T(1) + std::exp(-x)))
LS_UNARY(neg, -x)
LS_UNARY(absK, x < T(0) ? -x : x)
LS_UNARY(floorK, std::floor(x))
LS_UNARY(ceilK, std::ceil(x))
LS_UNARY(roundK, std::nearbyint(x))  // half to even (default rounding mode)
LS_UNARY(expK, std::exp(x))
LS_UNARY(logK, std::log(x))
LS_UNARY(sqrtK, std::sqrt(x))
LS_UNARY(rsqrtK, T(1) / std::sqrt(x))
LS_UNARY(reciprocal, T(1) / x)
LS_UNARY(erfK, std::erf(x))
LS_UNARY(sinK, std::sin(x))
LS_UNARY(cosK, std::cos(x))
LS_UNARY(tanhK, std::tanh(x))
LS_UNARY(tanK, std::tan(x))
LS_UNARY(sinhK, std::sinh(x))
LS_UNARY(coshK, std::cosh(x))
LS_UNARY(asinK, std::asin(x))
LS_UNARY(acosK, std::acos(x))
LS_UNARY(atanK, std::atan(x))
LS_UNARY(asinhK, std::asinh(x))
LS_UNARY(acoshK, std::acosh(x))
LS_UNARY(atanhK, std::atanh(x))
LS_UNARY(expm1K, std::expm1(x))
LS_UNARY(log1pK, std::log1p(x))
LS_UNARY(signK, x > T(0) ? T(1) : (x < T(0) ? T(-1) : x))  // 0 stays 0, NaN stays NaN
#undef LS_UNARY

Status gelu(KernelCtx& c) {
  std::string mode = c.getString(1).value_or("none");
  if (mode == "tanh") {
    return unaryMap(c, [](auto x) {
      using T = decltype(x);
      const T kBeta = T(M_SQRT2 * M_2_SQRTPI * 0.5);  // sqrt(2 / pi)
      const T kKappa = T(0.044715);
      T inner = kBeta * (x + kKappa * x * x * x);
      return T(T(0.5) * x * (T(1) + std::tanh(inner)));
    });
  }
  if (mode != "none") return c.error("gelu: approximate must be 'none' or 'tanh', got '{}'", mode);
  return unaryMap(c, [](auto x) {
    using T = decltype(x);
    return T(x * T(0.5) * (T(1) + std::erf(x * T(M_SQRT1_2))));
  });
}

Status hardtanh(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(lo, c.getFloat(1));
  LS_ASSIGN_OR_RETURN(hi, c.getFloat(2));
  return unaryMap(c, [lo, hi](auto x) {
    using T = decltype(x);
    return std::min(std::max(x, T(lo)), T(hi));
  });
}

Status leakyRelu(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(slope, c.getFloat(1));
  return unaryMap(c, [slope](auto x) {
    using T = decltype(x);
    return x > T(0) ? x : T(x * T(slope));
  });
}

Status elu(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(alpha, c.getFloat(1));
  LS_ASSIGN_OR_RETURN(scale, c.getFloat(2));
  LS_ASSIGN_OR_RETURN(inScale, c.getFloat(3));
  return unaryMap(c, [=](auto x) {
    using T = decltype(x);
    return x > T(0) ? T(T(scale) * x) : T(T(scale) * T(alpha) * (std::exp(x * T(inScale)) - T(1)));
  });
}

Status clamp(KernelCtx& c) {
  std::optional<double> lo, hi;
  if (c.has(1)) {
    LS_ASSIGN_OR_RETURN(v, c.getFloat(1));
    lo = v;
  }
  if (c.has(2)) {
    LS_ASSIGN_OR_RETURN(v, c.getFloat(2));
    hi = v;
  }
  return unaryMap(c, [lo, hi](auto x) {
    using T = decltype(x);
    if (isNan(x)) return x;
    if (lo && x < T(*lo)) x = T(*lo);
    if (hi && x > T(*hi)) x = T(*hi);
    return x;
  });
}

/// clamp.Tensor: min(max(x, lo), hi) over the broadcast shape, each bound optional; NaN in x
/// or in a bound gives NaN (as maximum/minimum do).
Status clampTensor(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  const Tensor* lo = nullptr;
  const Tensor* hi = nullptr;
  if (c.has(1)) {
    LS_ASSIGN_OR_RETURN(t, c.tensor(1));
    lo = t;
  }
  if (c.has(2)) {
    LS_ASSIGN_OR_RETURN(t, c.tensor(2));
    hi = t;
  }
  Tensor& out = c.newOutput(0);
  const Shape& os = out.shape();
  const int r = os.rank();
  const std::vector<int64_t> zeros(size_t(r), 0);
  std::vector<int64_t> sx = broadcastStrides(x->shape(), os);
  std::vector<int64_t> sl = lo ? broadcastStrides(lo->shape(), os) : zeros;
  std::vector<int64_t> sh = hi ? broadcastStrides(hi->shape(), os) : zeros;
  std::vector<int64_t> so = contiguousStrides(os);
  if (ir::isIntegral(out.dtype(), true)) {
    forEachOffset(os, {sx.data(), sl.data(), sh.data(), so.data()}, [&](const int64_t* off) {
      int64_t v = x->getInt(off[0]);
      if (lo) v = std::max(v, lo->getInt(off[1]));
      if (hi) v = std::min(v, hi->getInt(off[2]));
      out.setInt(off[3], v);
    });
  } else {
    forEachOffset(os, {sx.data(), sl.data(), sh.data(), so.data()}, [&](const int64_t* off) {
      double v = x->getDouble(off[0]);
      if (lo) {
        const double l = lo->getDouble(off[1]);
        v = std::isnan(v) || std::isnan(l) ? NAN : std::max(v, l);
      }
      if (hi) {
        const double h = hi->getDouble(off[2]);
        v = std::isnan(v) || std::isnan(h) ? NAN : std::min(v, h);
      }
      out.setDouble(off[3], v);
    });
  }
  return Status::ok();
}

Status powTensorScalar(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(e, c.operand(1));
  return unaryMap(c, [e](auto x) {
    using T = decltype(x);
    if constexpr (std::is_integral_v<T>) {
      int64_t p = e.isInt ? e.intValue : int64_t(e.number), r = 1, b = x;
      if (p < 0) return T(x == 1 ? 1 : (x == -1 ? (p % 2 ? -1 : 1) : 0));
      for (; p; p >>= 1, b *= b)
        if (p & 1) r *= b;
      return T(r);
    } else {
      T ex = T(e.number);
      if (ex == T(2)) return T(x * x);
      if (ex == T(0.5)) return T(std::sqrt(x));
      return T(std::pow(x, ex));
    }
  });
}

Status logicalNot(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  Tensor& out = c.newOutput(0);
  for (int64_t i = 0; i < out.numel(); ++i) out.setInt(i, x->getDouble(i) == 0.0);
  return Status::ok();
}

// ---------------------------------------------------------------- bitwise

enum class BitOp { And, Or, Xor, Shl };

/// bitwise_and/or/xor/left shift on integer or bool operands (tensor or number), broadcast.
template <BitOp op>
Status bitwiseK(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(a, c.operand(0));
  LS_ASSIGN_OR_RETURN(b, c.operand(1));
  Tensor& out = c.newOutput(0);
  const ir::Shape& os = out.shape();
  const std::vector<int64_t> ostr = contiguousStrides(os);
  const std::vector<int64_t> astr = a.tensor ? broadcastStrides(a.tensor->shape(), os) : std::vector<int64_t>(size_t(os.rank()), 0);
  const std::vector<int64_t> bstr = b.tensor ? broadcastStrides(b.tensor->shape(), os) : std::vector<int64_t>(size_t(os.rank()), 0);
  const bool isBool = out.dtype() == DType::Bool;
  auto value = [](const Operand& o, int64_t off) { return o.tensor ? o.tensor->getInt(off) : o.intValue; };
  forEachOffset(os, {ostr.data(), astr.data(), bstr.data()}, [&](const int64_t* off) {
    const int64_t x = value(a, off[1]), y = value(b, off[2]);
    int64_t r = 0;
    if constexpr (op == BitOp::And) r = x & y;
    else if constexpr (op == BitOp::Or) r = x | y;
    else if constexpr (op == BitOp::Xor) r = x ^ y;
    else r = (y < 0 || y >= 64) ? 0 : int64_t(uint64_t(x) << y);
    out.setInt(off[0], isBool ? int64_t(r != 0) : r);
  });
  return Status::ok();
}

Status bitwiseNot(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  Tensor& out = c.newOutput(0);
  const bool isBool = out.dtype() == DType::Bool;
  for (int64_t i = 0; i < out.numel(); ++i) out.setInt(i, isBool ? int64_t(x->getInt(i) == 0) : ~x->getInt(i));
  return Status::ok();
}

// ---------------------------------------------------------------- binary

enum class Bin { Add, Sub, Rsub, Mul, Div, DivTrunc, DivFloor, Rem, Max, Min, Pow, Eq, Ne, Lt, Le, Gt, Ge, And, Or, Xor };

bool isCompare(Bin op) { return op >= Bin::Eq && op <= Bin::Ge; }

/// out[idx] = f(a[idx_a], b[idx_b]) over the broadcast output shape. Contiguous or scalar
/// operands take a flat loop; otherwise rows of the innermost dim.
template <typename T, typename O, typename F>
void binaryLoop(int threads, const Shape& os, const T* a, const std::vector<int64_t>& sa, const T* b,
                const std::vector<int64_t>& sb, O* out, F f) {
  const int64_t n = os.numel();
  if (n == 0) return;
  const std::vector<int64_t> full = contiguousStrides(os);
  auto isZero = [](const std::vector<int64_t>& s) { return std::all_of(s.begin(), s.end(), [](int64_t v) { return v == 0; }); };
  const bool aFlat = sa == full || isZero(sa), bFlat = sb == full || isZero(sb);
  if (aFlat && bFlat) {
    const int64_t as = isZero(sa) ? 0 : 1, bs = isZero(sb) ? 0 : 1;
    parallelFor(threads, n, 4, [&](int64_t lo, int64_t hi) {
      if (as == 1 && bs == 1) {
        for (int64_t i = lo; i < hi; ++i) out[i] = f(a[i], b[i]);
      } else if (as == 1) {
        const T bv = b[0];
        for (int64_t i = lo; i < hi; ++i) out[i] = f(a[i], bv);
      } else if (bs == 1) {
        const T av = a[0];
        for (int64_t i = lo; i < hi; ++i) out[i] = f(av, b[i]);
      } else {
        for (int64_t i = lo; i < hi; ++i) out[i] = f(a[0], b[0]);
      }
    });
    return;
  }
  const int rank = os.rank();
  const int64_t inner = os[rank - 1], rows = n / inner;
  const int64_t ia = sa[size_t(rank - 1)], ib = sb[size_t(rank - 1)];
  parallelFor(threads, rows, inner * 4, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      int64_t oa = 0, ob = 0, rem = r;
      for (int d = rank - 2; d >= 0; --d) {
        int64_t i = rem % os[d];
        rem /= os[d];
        oa += i * sa[size_t(d)];
        ob += i * sb[size_t(d)];
      }
      O* o = out + r * inner;
      for (int64_t j = 0; j < inner; ++j) o[j] = f(a[oa + j * ia], b[ob + j * ib]);
    }
  });
}

template <typename T>
T floorDivide(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if (b == 0) return 0;
    T q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  } else {  // at::native div_floor for floating types
    if (b == 0) return a / b;
    T mod = std::fmod(a, b);
    T div = (a - mod) / b;
    if (mod != 0 && (b < 0) != (mod < 0)) div -= T(1);
    if (div == 0) return std::copysign(T(0), a / b);
    T fl = std::floor(div);
    if (div - fl > T(0.5)) fl += T(1);
    return fl;
  }
}

/// Python-style remainder (torch.remainder): the result takes the divisor's sign.
template <typename T>
T remainderOf(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if (b == 0) return 0;
    T m = a % b;
    if (m != 0 && ((m < 0) != (b < 0))) m += b;
    return m;
  } else {
    T m = std::fmod(a, b);
    if (m != 0 && ((m < 0) != (b < 0))) m += b;
    return m;
  }
}

template <typename T>
T truncDivide(T a, T b) {
  if constexpr (std::is_integral_v<T>) return b == 0 ? 0 : a / b;
  else return std::trunc(a / b);
}

/// Runs op in compute type T; O is the stored type (T, or uint8_t for bool results).
template <typename T>
Status binaryTyped(KernelCtx& c, Bin op, const Operand& x, const Operand& y, double alphaIn) {
  Tensor& out = c.newOutputForOverwrite(0);
  const Shape& os = out.shape();
  std::vector<T> bufA, bufB;
  const T* a = x.tensor ? elements<T>(*x.tensor, bufA) : (bufA.assign(1, numberAs<T>(x)), bufA.data());
  const T* b = y.tensor ? elements<T>(*y.tensor, bufB) : (bufB.assign(1, numberAs<T>(y)), bufB.data());
  std::vector<int64_t> sa = x.tensor ? broadcastStrides(x.tensor->shape(), os) : std::vector<int64_t>(size_t(os.rank()), 0);
  std::vector<int64_t> sb = y.tensor ? broadcastStrides(y.tensor->shape(), os) : std::vector<int64_t>(size_t(os.rank()), 0);
  const int th = c.threads();
  if (isCompare(op) || op == Bin::And || op == Bin::Or || op == Bin::Xor) {
    uint8_t* o = out.data<uint8_t>();  // bool output
    switch (op) {
      case Bin::Eq: binaryLoop(th, os, a, sa, b, sb, o, [](T p, T q) { return uint8_t(p == q); }); break;
      case Bin::Ne: binaryLoop(th, os, a, sa, b, sb, o, [](T p, T q) { return uint8_t(p != q); }); break;
      case Bin::Lt: binaryLoop(th, os, a, sa, b, sb, o, [](T p, T q) { return uint8_t(p < q); }); break;
      case Bin::Le: binaryLoop(th, os, a, sa, b, sb, o, [](T p, T q) { return uint8_t(p <= q); }); break;
      case Bin::Gt: binaryLoop(th, os, a, sa, b, sb, o, [](T p, T q) { return uint8_t(p > q); }); break;
      case Bin::Ge: binaryLoop(th, os, a, sa, b, sb, o, [](T p, T q) { return uint8_t(p >= q); }); break;
      case Bin::And: binaryLoop(th, os, a, sa, b, sb, o, [](T p, T q) { return uint8_t(p != T(0) && q != T(0)); }); break;
      case Bin::Or: binaryLoop(th, os, a, sa, b, sb, o, [](T p, T q) { return uint8_t(p != T(0) || q != T(0)); }); break;
      case Bin::Xor: binaryLoop(th, os, a, sa, b, sb, o, [](T p, T q) { return uint8_t((p != T(0)) != (q != T(0))); }); break;
      default: break;
    }
    return Status::ok();
  }
  const T alpha = std::is_integral_v<T> ? T(int64_t(alphaIn)) : T(alphaIn);
  const bool direct = (std::is_same_v<T, float> && out.dtype() == DType::Float32) ||
                      (std::is_same_v<T, double> && out.dtype() == DType::Float64) ||
                      (std::is_same_v<T, int64_t> && out.dtype() == DType::Int64);
  std::vector<T> tmp;
  T* o = direct ? out.data<T>() : (tmp.resize(size_t(out.numel())), tmp.data());
  switch (op) {
    case Bin::Add:
      if (alpha == T(1)) binaryLoop(th, os, a, sa, b, sb, o, [](T p, T q) { return T(p + q); });
      else binaryLoop(th, os, a, sa, b, sb, o, [alpha](T p, T q) { return T(p + alpha * q); });
      break;
    case Bin::Sub:
      if (alpha == T(1)) binaryLoop(th, os, a, sa, b, sb, o, [](T p, T q) { return T(p - q); });
      else binaryLoop(th, os, a, sa, b, sb, o, [alpha](T p, T q) { return T(p - alpha * q); });
      break;
    case Bin::Rsub: binaryLoop(th, os, a, sa, b, sb, o, [alpha](T p, T q) { return T(q - alpha * p); }); break;
    case Bin::Mul: binaryLoop(th, os, a, sa, b, sb, o, [](T p, T q) { return T(p * q); }); break;
    case Bin::Div:
      if constexpr (std::is_integral_v<T>) return c.error("true division must produce a floating type");
      else binaryLoop(th, os, a, sa, b, sb, o, [](T p, T q) { return T(p / q); });
      break;
    case Bin::DivTrunc: binaryLoop(th, os, a, sa, b, sb, o, [](T p, T q) { return truncDivide(p, q); }); break;
    case Bin::DivFloor: binaryLoop(th, os, a, sa, b, sb, o, [](T p, T q) { return floorDivide(p, q); }); break;
    case Bin::Rem: binaryLoop(th, os, a, sa, b, sb, o, [](T p, T q) { return remainderOf(p, q); }); break;
    case Bin::Max:
      binaryLoop(th, os, a, sa, b, sb, o, [](T p, T q) { return isNan(p) ? p : isNan(q) ? q : std::max(p, q); });
      break;
    case Bin::Min:
      binaryLoop(th, os, a, sa, b, sb, o, [](T p, T q) { return isNan(p) ? p : isNan(q) ? q : std::min(p, q); });
      break;
    case Bin::Pow: binaryLoop(th, os, a, sa, b, sb, o, [](T p, T q) { return T(std::pow(p, q)); }); break;
    default: return c.error("unsupported binary op");
  }
  if (!direct) storeAll(out, tmp);
  return Status::ok();
}

Status binary(KernelCtx& c, Bin op, int otherArg = 1, int alphaArg = -1) {
  LS_ASSIGN_OR_RETURN(x, c.operand(0));
  LS_ASSIGN_OR_RETURN(y, c.operand(otherArg));
  double alpha = 1.0;
  if (alphaArg >= 0 && c.has(alphaArg)) {
    LS_ASSIGN_OR_RETURN(a, c.getFloat(alphaArg));
    alpha = a;
  }
  DType t = computeType(c.outMeta().dtype);
  if (isCompare(op)) {  // compare in the common dtype of the operands
    ops::TypePromotion tp;
    for (int i : {0, otherArg}) {
      if (const Tensor* tt = (i == 0 ? x : y).tensor) tp.addTensor(tt->meta());
      else tp.addScalar(c.arg(i));
    }
    t = computeType(tp.result());
  } else if (op == Bin::And || op == Bin::Or || op == Bin::Xor) {
    t = DType::Float64;
  }
  switch (t) {
    case DType::Float32: return binaryTyped<float>(c, op, x, y, alpha);
    case DType::Float64: return binaryTyped<double>(c, op, x, y, alpha);
    default: return binaryTyped<int64_t>(c, op, x, y, alpha);
  }
}

Status add(KernelCtx& c) { return binary(c, Bin::Add, 1, 2); }
Status sub(KernelCtx& c) { return binary(c, Bin::Sub, 1, 2); }
Status rsub(KernelCtx& c) { return binary(c, Bin::Rsub, 1, 2); }
Status mul(KernelCtx& c) { return binary(c, Bin::Mul); }
Status div(KernelCtx& c) { return binary(c, Bin::Div); }
Status divMode(KernelCtx& c) {
  auto mode = c.getString(2);
  if (!mode) return binary(c, Bin::Div);
  if (*mode == "trunc") return binary(c, Bin::DivTrunc);
  if (*mode == "floor") return binary(c, Bin::DivFloor);
  return c.error("div: rounding_mode must be None, 'trunc' or 'floor', got '{}'", *mode);
}
Status floorDivideK(KernelCtx& c) { return binary(c, Bin::DivFloor); }
Status remainderK(KernelCtx& c) { return binary(c, Bin::Rem); }
Status maximum(KernelCtx& c) { return binary(c, Bin::Max); }
Status minimum(KernelCtx& c) { return binary(c, Bin::Min); }
Status powTT(KernelCtx& c) { return binary(c, Bin::Pow); }
Status eq(KernelCtx& c) { return binary(c, Bin::Eq); }
Status ne(KernelCtx& c) { return binary(c, Bin::Ne); }
Status lt(KernelCtx& c) { return binary(c, Bin::Lt); }
Status le(KernelCtx& c) { return binary(c, Bin::Le); }
Status gt(KernelCtx& c) { return binary(c, Bin::Gt); }
Status ge(KernelCtx& c) { return binary(c, Bin::Ge); }
Status logicalAnd(KernelCtx& c) { return binary(c, Bin::And); }
Status logicalOr(KernelCtx& c) { return binary(c, Bin::Or); }
Status logicalXor(KernelCtx& c) { return binary(c, Bin::Xor); }

// ---------------------------------------------------------------- where / masked_fill

/// Elementwise select over a broadcast shape: out = cond ? a : b (a, b tensors or numbers).
Status selectImpl(KernelCtx& c, const Tensor& cond, const Operand& a, const Operand& b) {
  Tensor& out = c.newOutput(0);
  const Shape& os = out.shape();
  std::vector<int64_t> sc = broadcastStrides(cond.shape(), os);
  std::vector<int64_t> sa = a.tensor ? broadcastStrides(a.tensor->shape(), os) : std::vector<int64_t>(size_t(os.rank()), 0);
  std::vector<int64_t> sb = b.tensor ? broadcastStrides(b.tensor->shape(), os) : std::vector<int64_t>(size_t(os.rank()), 0);
  std::vector<int64_t> so = contiguousStrides(os);
  const bool integral = ir::isIntegral(out.dtype(), true);
  forEachOffset(os, {sc.data(), sa.data(), sb.data(), so.data()}, [&](const int64_t* off) {
    const Operand& pick = cond.getDouble(off[0]) != 0.0 ? a : b;
    const int64_t src = &pick == &a ? off[1] : off[2];
    if (integral) out.setInt(off[3], pick.tensor ? pick.tensor->getInt(src) : numberAs<int64_t>(pick));
    else out.setDouble(off[3], pick.tensor ? pick.tensor->getDouble(src) : pick.number);
  });
  return Status::ok();
}

Status where(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(cond, c.tensor(0));
  LS_ASSIGN_OR_RETURN(a, c.operand(1));
  LS_ASSIGN_OR_RETURN(b, c.operand(2));
  return selectImpl(c, *cond, a, b);
}

Status maskedFill(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.operand(0));
  LS_ASSIGN_OR_RETURN(mask, c.tensor(1));
  LS_ASSIGN_OR_RETURN(v, c.operand(2));
  if (v.tensor && v.tensor->numel() != 1) return c.error("masked_fill value must be a number or a 1-element tensor");
  Operand value = v;
  if (v.tensor) {
    value.number = v.tensor->getDouble(0);
    value.intValue = v.tensor->getInt(0);
    value.isInt = ir::isIntegral(v.tensor->dtype(), true);
    value.tensor = nullptr;
  }
  return selectImpl(c, *mask, value, x);
}

// ---------------------------------------------------------------- reductions

enum class Red { Sum, Mean, Max, Min, Var, VarBiased, Std, Any };

/// Reduced-dim mask from a dim-list arg (None or [] = all dims).
Result<uint32_t> reduceMask(KernelCtx& c, int argIdx, int rank) {
  std::vector<int64_t> dims;
  if (argIdx >= 0 && c.has(argIdx)) {
    LS_ASSIGN_OR_RETURN(d, c.getIntList(argIdx));
    dims = d;
  }
  if (dims.empty()) return rank == 0 ? 0u : (rank >= 32 ? ~0u : (1u << rank) - 1);
  uint32_t m = 0;
  for (int64_t d : dims) m |= 1u << wrapDim(d, rank);
  return m;
}

/// Output offsets of every input element (input-dim strides into the keepdim output; 0 on
/// reduced dims) and the number of reduced elements per output.
void reducePlan(const Shape& in, uint32_t mask, std::vector<int64_t>& outStr, int64_t& count) {
  Shape keep = in;
  count = 1;
  for (int d = 0; d < in.rank(); ++d)
    if (mask & (1u << d)) {
      keep[d] = 1;
      count *= in[d];
    }
  outStr = contiguousStrides(keep);
  for (int d = 0; d < in.rank(); ++d)
    if (mask & (1u << d)) outStr[size_t(d)] = 0;
}

/// True when the reduced dims are exactly the trailing dims (then rows are contiguous).
bool isSuffixMask(uint32_t mask, int rank) {
  int d = rank - 1;
  while (d >= 0 && (mask & (1u << d))) --d;
  for (; d >= 0; --d)
    if (mask & (1u << d)) return false;
  return true;
}

Status reduceImpl(KernelCtx& c, Red op, int dimArg, int correctionArg = -1) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(mask, reduceMask(c, dimArg, x->rank()));
  Tensor& out = c.newOutput(0);
  const int64_t m = out.numel();
  std::vector<int64_t> outStr;
  int64_t count = 0;
  reducePlan(x->shape(), mask, outStr, count);
  const bool integral =
      op == Red::Any || (ir::isIntegral(out.dtype(), true) && op != Red::Mean && op != Red::Var &&
                         op != Red::VarBiased && op != Red::Std);
  std::vector<double> acc(size_t(m), op == Red::Max ? -INFINITY : op == Red::Min ? INFINITY : 0.0);
  std::vector<int64_t> iacc(integral ? size_t(m) : 0,
                            op == Red::Max ? std::numeric_limits<int64_t>::min()
                            : op == Red::Min ? std::numeric_limits<int64_t>::max() : 0);
  std::vector<double> buf;
  const double* xd = nullptr;
  std::vector<int64_t> ibuf;
  if (op == Red::Any) {  // any: the max of "is non-zero" (NaN is non-zero)
    ibuf.resize(size_t(x->numel()));
    for (int64_t i = 0; i < x->numel(); ++i)
      ibuf[size_t(i)] = ir::isFloating(x->dtype()) ? int64_t(x->getDouble(i) != 0.0) : int64_t(x->getInt(i) != 0);
  } else if (integral) {
    ibuf = x->toInts();
  } else {
    xd = elements<double>(*x, buf);
  }
  auto accumulate = [&](int64_t o, int64_t i) {
    if (integral) {
      int64_t v = ibuf[size_t(i)];
      int64_t& a = iacc[size_t(o)];
      a = op == Red::Max || op == Red::Any ? std::max(a, v) : op == Red::Min ? std::min(a, v) : a + v;
    } else {
      double v = xd[i];
      double& a = acc[size_t(o)];
      if (op == Red::Max) {
        if (!std::isnan(a) && (std::isnan(v) || v > a)) a = v;  // NaN propagates
      } else if (op == Red::Min) {
        if (!std::isnan(a) && (std::isnan(v) || v < a)) a = v;
      } else {
        a += v;
      }
    }
  };
  if (isSuffixMask(mask, x->rank())) {
    for (int64_t o = 0; o < m; ++o)
      for (int64_t k = 0; k < count; ++k) accumulate(o, o * count + k);
  } else {
    std::vector<int64_t> inStr = contiguousStrides(x->shape());
    forEachOffset(x->shape(), {inStr.data(), outStr.data()}, [&](const int64_t* off) { accumulate(off[1], off[0]); });
  }
  if (op == Red::Var || op == Red::VarBiased || op == Red::Std) {
    double correction = op == Red::VarBiased ? 0.0 : 1.0;
    if (correctionArg >= 0 && c.has(correctionArg)) {
      LS_ASSIGN_OR_RETURN(cv, c.getFloat(correctionArg));
      correction = cv;
    }
    std::vector<double> mean(acc.size());
    for (size_t o = 0; o < acc.size(); ++o) mean[o] = acc[o] / double(count);
    std::fill(acc.begin(), acc.end(), 0.0);
    std::vector<int64_t> inStr = contiguousStrides(x->shape());
    forEachOffset(x->shape(), {inStr.data(), outStr.data()}, [&](const int64_t* off) {
      double d = xd[off[0]] - mean[size_t(off[1])];
      acc[size_t(off[1])] += d * d;
    });
    for (double& a : acc) a /= std::max(double(count) - correction, 0.0);
    if (op == Red::Std)
      for (double& a : acc) a = std::sqrt(a);
  }
  for (int64_t o = 0; o < m; ++o) {
    if (integral) out.setInt(o, iacc[size_t(o)]);
    else out.setDouble(o, op == Red::Mean ? acc[size_t(o)] / double(count) : acc[size_t(o)]);
  }
  return Status::ok();
}

Status meanDim(KernelCtx& c) { return reduceImpl(c, Red::Mean, 1); }
Status meanAll(KernelCtx& c) { return reduceImpl(c, Red::Mean, -1); }
Status sumDim(KernelCtx& c) { return reduceImpl(c, Red::Sum, 1); }
Status sumAll(KernelCtx& c) { return reduceImpl(c, Red::Sum, -1); }
Status amax(KernelCtx& c) { return reduceImpl(c, Red::Max, 1); }
Status anyDims(KernelCtx& c) { return reduceImpl(c, Red::Any, 1); }
Status anyAll(KernelCtx& c) { return reduceImpl(c, Red::Any, -1); }
Status amin(KernelCtx& c) { return reduceImpl(c, Red::Min, 1); }
Status varCorrection(KernelCtx& c) { return reduceImpl(c, Red::Var, 1, 2); }
/// var.dim(x, dim, unbiased, keepdim): correction 1 when unbiased, else 0.
Status varDim(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(unbiased, c.getBool(2));
  return reduceImpl(c, unbiased ? Red::Var : Red::VarBiased, 1);
}
Status stdCorrection(KernelCtx& c) { return reduceImpl(c, Red::Std, 1, 2); }

/// _weight_norm_interface(v, g, dim): w = v * g[i] / |v[i]| along `dim` (|.| the 2-norm of the
/// slice); dim -1: one norm over v. Outputs w and the norms (shaped like g).
Status weightNorm(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(v, c.tensor(0));
  LS_ASSIGN_OR_RETURN(g, c.tensor(1));
  LS_ASSIGN_OR_RETURN(dim, c.getInt(2));
  Tensor& w = c.newOutput(0);
  Tensor& norms = c.newOutput(1);
  int64_t outer = 1, n = 1, inner = v->numel();
  if (dim != -1) {
    const int d = wrapDim(dim, v->rank());
    outer = 1, n = v->dim(d), inner = 1;
    for (int i = 0; i < d; ++i) outer *= v->dim(i);
    for (int i = d + 1; i < v->rank(); ++i) inner *= v->dim(i);
  }
  std::vector<double> sq(size_t(n), 0.0);
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t k = 0; k < n; ++k)
      for (int64_t b = 0; b < inner; ++b) {
        const double x = v->getDouble((a * n + k) * inner + b);
        sq[size_t(k)] += x * x;
      }
  for (int64_t k = 0; k < n; ++k) norms.setDouble(k, std::sqrt(sq[size_t(k)]));
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t k = 0; k < n; ++k)
      for (int64_t b = 0; b < inner; ++b) {
        const int64_t i = (a * n + k) * inner + b;
        w.setDouble(i, v->getDouble(i) * g->getDouble(k) / std::sqrt(sq[size_t(k)]));
      }
  return Status::ok();
}

Status zeroK(KernelCtx& c) {
  c.newOutput(0);  // zero-filled
  return Status::ok();
}

/// linalg_vector_norm(x, ord, dim, keepdim): (sum |x|^ord)^(1/ord) over dim (every dim when
/// none); ord inf / -inf: max / min |x|; ord 0: the number of non-zeros.
Status vectorNorm(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  double ord = 2.0;  // the schema default; norm.ScalarOpt_dim's p=None is 2 too
  if (c.has(1)) {
    LS_ASSIGN_OR_RETURN(p, c.getFloat(1));
    ord = p;
  }
  LS_ASSIGN_OR_RETURN(mask, reduceMask(c, 2, x->rank()));
  Tensor& out = c.newOutput(0);
  std::vector<int64_t> outStr;
  int64_t count = 0;
  reducePlan(x->shape(), mask, outStr, count);
  const bool isMax = std::isinf(ord) && ord > 0, isMin = std::isinf(ord) && ord < 0;
  std::vector<double> acc(size_t(out.numel()), isMax ? 0.0 : isMin ? INFINITY : 0.0);
  std::vector<double> buf;
  const double* xd = elements<double>(*x, buf);
  std::vector<int64_t> inStr = contiguousStrides(x->shape());
  forEachOffset(x->shape(), {inStr.data(), outStr.data()}, [&](const int64_t* off) {
    const double v = std::fabs(xd[off[0]]);
    double& a = acc[size_t(off[1])];
    if (std::isnan(v)) a = v;
    else if (std::isnan(a)) return;
    else if (isMax) a = std::max(a, v);
    else if (isMin) a = std::min(a, v);
    else if (ord == 0.0) a += v != 0.0 ? 1.0 : 0.0;
    else if (ord == 1.0) a += v;
    else if (ord == 2.0) a += v * v;
    else a += std::pow(v, ord);
  });
  for (int64_t o = 0; o < out.numel(); ++o) {
    double a = acc[size_t(o)];
    if (!isMax && !isMin && ord != 0.0 && ord != 1.0) a = ord == 2.0 ? std::sqrt(a) : std::pow(a, 1.0 / ord);
    out.setDouble(o, a);
  }
  return Status::ok();
}

/// prelu(x, w): x where x > 0, else w * x; w has 1 element or one per channel (dim 1).
Status prelu(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(w, c.tensor(1));
  Tensor& out = c.newOutput(0);
  const int64_t C = x->rank() >= 2 ? x->dim(1) : 1;
  int64_t inner = 1;
  for (int d = 2; d < x->rank(); ++d) inner *= x->dim(d);
  if (w->numel() != 1 && w->numel() != C)
    return c.error("weight has {} elements; expected 1 or the {} channels", w->numel(), C);
  for (int64_t i = 0; i < x->numel(); ++i) {
    const double v = x->getDouble(i);
    const double a = w->getDouble(w->numel() == 1 ? 0 : (i / inner) % C);
    out.setDouble(i, v > 0 ? v : a * v);
  }
  return Status::ok();
}

/// glu(x, dim): the first half of x along dim times sigmoid of the second half.
Status glu(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(d, c.getInt(1));  // the schema default is -1
  const int dim = wrapDim(d, x->rank());
  Tensor& out = c.newOutput(0);
  const int64_t half = out.dim(dim);
  int64_t inner = 1, outer = 1;
  for (int k = dim + 1; k < x->rank(); ++k) inner *= x->dim(k);
  for (int k = 0; k < dim; ++k) outer *= x->dim(k);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t h = 0; h < half; ++h)
      for (int64_t i = 0; i < inner; ++i) {
        const double a = x->getDouble((o * 2 * half + h) * inner + i);
        const double b = x->getDouble((o * 2 * half + half + h) * inner + i);
        out.setDouble((o * half + h) * inner + i, a / (1.0 + std::exp(-b)));
      }
  return Status::ok();
}

/// logit(x, eps): log(z / (1 - z)), z = clamp(x, eps, 1 - eps) when eps is given.
Status logit(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  std::optional<double> eps;
  if (c.has(1)) {
    LS_ASSIGN_OR_RETURN(e, c.getFloat(1));
    eps = e;
  }
  Tensor& out = c.newOutput(0);
  for (int64_t i = 0; i < x->numel(); ++i) {
    double z = x->getDouble(i);
    if (eps && !std::isnan(z)) z = std::clamp(z, *eps, 1.0 - *eps);
    out.setDouble(i, std::log(z / (1.0 - z)));
  }
  return Status::ok();
}

/// clamp_min(x, min): max(x, min), NaN kept.
Status clampMin(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(lo, c.getFloat(1));
  Tensor& out = c.newOutput(0);
  for (int64_t i = 0; i < x->numel(); ++i) {
    const double v = x->getDouble(i);
    out.setDouble(i, std::isnan(v) ? v : std::max(v, lo));
  }
  return Status::ok();
}

/// max.dim / min.dim / argmax / argmin along one dim (first occurrence wins; NaN wins).
Status argReduce(KernelCtx& c, bool isMax, bool withValues) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  uint32_t mask = 0;
  int dim = -1;
  if (c.has(1)) {
    LS_ASSIGN_OR_RETURN(d, c.getInt(1));
    dim = wrapDim(d, x->rank());
    mask = x->rank() == 0 ? 0u : 1u << dim;
  } else {
    mask = x->rank() == 0 ? 0u : (1u << x->rank()) - 1;  // argmax over the flattened tensor
  }
  std::vector<int64_t> outStr;
  int64_t count = 0;
  reducePlan(x->shape(), mask, outStr, count);
  std::vector<int64_t> posStr(size_t(x->rank()), 0);  // position within the reduced dims
  {
    Shape red = Shape::ofRank(x->rank(), 1);
    for (int d = 0; d < x->rank(); ++d)
      if (mask & (1u << d)) red[d] = x->dim(d);
    posStr = contiguousStrides(red);
    for (int d = 0; d < x->rank(); ++d)
      if (!(mask & (1u << d))) posStr[size_t(d)] = 0;
  }
  const size_t k = withValues ? 1 : 0;
  Tensor& idxOut = c.newOutput(k);
  const int64_t m = idxOut.numel();
  std::vector<double> best(size_t(m), 0.0);
  std::vector<int64_t> bestPos(size_t(m), -1), bestOff(size_t(m), 0);
  std::vector<int64_t> inStr = contiguousStrides(x->shape());
  forEachOffset(x->shape(), {inStr.data(), outStr.data(), posStr.data()}, [&](const int64_t* off) {
    double v = x->getDouble(off[0]);
    size_t o = size_t(off[1]);
    bool take = bestPos[o] < 0 || (!std::isnan(best[o]) && (std::isnan(v) || (isMax ? v > best[o] : v < best[o])));
    if (take) {
      best[o] = v;
      bestPos[o] = off[2];
      bestOff[o] = off[0];
    }
  });
  for (int64_t o = 0; o < m; ++o) idxOut.setInt(o, bestPos[size_t(o)]);
  if (withValues) {
    Tensor& vals = c.newOutput(0);
    const int es = x->elementSize();
    for (int64_t o = 0; o < m; ++o)  // copy the element itself (exact for every dtype)
      std::memcpy(vals.bytes() + o * es, x->bytes() + bestOff[size_t(o)] * es, size_t(es));
  }
  return Status::ok();
}

Status maxDim(KernelCtx& c) { return argReduce(c, true, true); }
Status minDim(KernelCtx& c) { return argReduce(c, false, true); }
Status argmax(KernelCtx& c) { return argReduce(c, true, false); }
Status argmin(KernelCtx& c) { return argReduce(c, false, false); }

}  // namespace

void registerElementwiseKernels(KernelRegistry& r) {
  r.registerKernel("aten.relu.default", relu);
  r.registerKernel("aten.hardtanh.default", hardtanh);
  r.registerKernel("aten.hardswish.default", hardswish);
  r.registerKernel("aten.hardsigmoid.default", hardsigmoid);
  r.registerKernel("aten.sigmoid.default", sigmoid);
  r.registerKernel("aten.silu.default", silu);
  r.registerKernel("aten.gelu.default", gelu);
  r.registerKernel("aten.leaky_relu.default", leakyRelu);
  r.registerKernel("aten.elu.default", elu);
  r.registerKernel("aten.neg.default", neg);
  r.registerKernel("aten.abs.default", absK);
  r.registerKernel("aten.floor.default", floorK);
  r.registerKernel("aten.ceil.default", ceilK);
  r.registerKernel("aten.round.default", roundK);
  r.registerKernel("aten.exp.default", expK);
  r.registerKernel("aten.log.default", logK);
  r.registerKernel("aten.sqrt.default", sqrtK);
  r.registerKernel("aten.rsqrt.default", rsqrtK);
  r.registerKernel("aten.reciprocal.default", reciprocal);
  r.registerKernel("aten.erf.default", erfK);
  r.registerKernel("aten.sin.default", sinK);
  r.registerKernel("aten.cos.default", cosK);
  r.registerKernel("aten.tanh.default", tanhK);
  r.registerKernel("aten.tan.default", tanK);
  r.registerKernel("aten.sinh.default", sinhK);
  r.registerKernel("aten.cosh.default", coshK);
  r.registerKernel("aten.asin.default", asinK);
  r.registerKernel("aten.acos.default", acosK);
  r.registerKernel("aten.atan.default", atanK);
  r.registerKernel("aten.asinh.default", asinhK);
  r.registerKernel("aten.acosh.default", acoshK);
  r.registerKernel("aten.atanh.default", atanhK);
  r.registerKernel("aten.expm1.default", expm1K);
  r.registerKernel("aten.log1p.default", log1pK);
  r.registerKernel("aten.sign.default", signK);
  r.registerKernel("aten.clamp.default", clamp);
  r.registerKernel("aten.clamp.Tensor", clampTensor);
  r.registerKernel("aten.pow.Tensor_Scalar", powTensorScalar);
  r.registerKernel("aten.logical_not.default", logicalNot);

  r.registerKernel("aten.add.Tensor", add);
  r.registerKernel("aten.add.Scalar", add);
  r.registerKernel("aten.sub.Tensor", sub);
  r.registerKernel("aten.sub.Scalar", sub);
  r.registerKernel("aten.rsub.Scalar", rsub);
  r.registerKernel("aten.mul.Tensor", mul);
  r.registerKernel("aten.mul.Scalar", mul);
  r.registerKernel("aten.div.Tensor", div);
  r.registerKernel("aten.div.Scalar", div);
  r.registerKernel("aten.div.Tensor_mode", divMode);
  r.registerKernel("aten.maximum.default", maximum);
  r.registerKernel("aten.minimum.default", minimum);
  r.registerKernel("aten.pow.Tensor_Tensor", powTT);
  for (const char* s : {"Scalar", "Tensor"}) {
    r.registerKernel(std::string("aten.eq.") + s, eq);
    r.registerKernel(std::string("aten.ne.") + s, ne);
    r.registerKernel(std::string("aten.lt.") + s, lt);
    r.registerKernel(std::string("aten.le.") + s, le);
    r.registerKernel(std::string("aten.gt.") + s, gt);
    r.registerKernel(std::string("aten.ge.") + s, ge);
  }
  r.registerKernel("aten.logical_and.default", logicalAnd);
  r.registerKernel("aten.logical_or.default", logicalOr);
  r.registerKernel("aten.logical_xor.default", logicalXor);
  for (const char* s : {"Tensor", "Scalar"}) {
    r.registerKernel(std::string("aten.bitwise_and.") + s, bitwiseK<BitOp::And>);
    r.registerKernel(std::string("aten.bitwise_or.") + s, bitwiseK<BitOp::Or>);
    r.registerKernel(std::string("aten.bitwise_xor.") + s, bitwiseK<BitOp::Xor>);
  }
  r.registerKernel("aten.bitwise_left_shift.Tensor", bitwiseK<BitOp::Shl>);
  r.registerKernel("aten.__lshift__.Scalar", bitwiseK<BitOp::Shl>);
  r.registerKernel("aten.bitwise_not.default", bitwiseNot);
  r.registerKernel("aten.where.self", where);
  r.registerKernel("aten.masked_fill.Scalar", maskedFill);

  r.registerKernel("aten.mean.dim", meanDim);
  r.registerKernel("aten.mean.default", meanAll);
  r.registerKernel("aten.sum.dim_IntList", sumDim);
  r.registerKernel("aten.sum.default", sumAll);
  r.registerKernel("aten.amax.default", amax);
  r.registerKernel("aten.any.default", anyAll);
  r.registerKernel("aten.any.dim", anyDims);
  r.registerKernel("aten.any.dims", anyDims);
  r.registerKernel("aten.amin.default", amin);
  r.registerKernel("aten.var.correction", varCorrection);
  r.registerKernel("aten.var.dim", varDim);
  r.registerKernel("aten.std.correction", stdCorrection);
  r.registerKernel("aten.linalg_vector_norm.default", vectorNorm);
  r.registerKernel("aten.norm.ScalarOpt_dim", vectorNorm);
  r.registerKernel("aten.norm.Scalar", vectorNorm);
  r.registerKernel("aten._weight_norm_interface.default", weightNorm);
  r.registerKernel("aten.zero.default", zeroK);
  r.registerKernel("aten.prelu.default", prelu);
  r.registerKernel("aten.glu.default", glu);
  r.registerKernel("aten.logit.default", logit);
  r.registerKernel("aten.clamp_min.default", clampMin);
  r.registerKernel("aten.floor_divide.default", floorDivideK);
  r.registerKernel("aten.floor_divide.Scalar", floorDivideK);
  r.registerKernel("aten.remainder.Tensor", remainderK);
  r.registerKernel("aten.remainder.Scalar", remainderK);
  r.registerKernel("aten.max.dim", maxDim);
  r.registerKernel("aten.min.dim", minDim);
  r.registerKernel("aten.argmax.default", argmax);
  r.registerKernel("aten.argmin.default", argmin);
}

}  // namespace ls::exec
