// Reference-executor kernels for the TOSA 1.0 ops (tosa.*), following the specification's
// pseudo-code: FP ops compute in float (accumulate in float), integer CONV2D/MATMUL/pooling
// accumulate in int32 with zero points subtracted, RESCALE applies apply_scale_32/16 with
// SINGLE_ROUND / DOUBLE_ROUND and saturates to the output type, TABLE looks up int8 tables.
#include "core/backends/arm/tosa/tosa_kernels.h"
#include "core/backends/arm/tosa/tosa_validate.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/backends/arm/tosa/tosa_ops.h"
#include "core/exec/gemm.h"
#include "core/exec/kernel_util.h"

namespace ls::arm {

using exec::KernelCtx;
using exec::Tensor;
using ir::DType;
using ir::Shape;

namespace {

__extension__ typedef __int128 Int128;  // 64x32-bit products of the spec's 64-bit arithmetic

bool isFloatT(DType t) { return t == DType::Float32 || t == DType::Float16 || t == DType::BFloat16 || t == DType::Float64; }

Result<std::vector<int64_t>> attrInts(KernelCtx& c, const char* name) { return c.getIntList(c.argIndex(name)); }

/// The int list behind a shape_t input (a tosa.CONST_SHAPE reference).
Result<std::vector<int64_t>> shapeInput(KernelCtx& c, int i) {
  const ir::ValueRef* r = c.arg(i).ref();
  if (!r) return c.error("{}: expected a tosa.CONST_SHAPE reference", c.argDesc(i));
  auto v = constShapeValues(c.graph(), *r);
  if (!v) return c.error("{}: expected a tosa.CONST_SHAPE node", c.argDesc(i));
  return *v;
}

/// First element of a one-element operand (zero point, shift) as int64.
Result<int64_t> scalarInt(KernelCtx& c, int i) {
  LS_ASSIGN_OR_RETURN(t, c.tensor(i));
  if (t->numel() < 1) return c.error("{}: empty tensor", c.argDesc(i));
  return t->getInt(0);
}

Status checkFpZero(KernelCtx& c, int i) {
  LS_ASSIGN_OR_RETURN(t, c.tensor(i));
  if (isFloatT(t->dtype()) && t->numel() >= 1 && t->getDouble(0) != 0.0)
    return c.error("{}: floating-point zero points must be 0 (TOSA ERROR_IF)", c.argDesc(i));
  return Status::ok();
}

/// Input and weight zero points of a convolution (args 3 and 4): their values for integer
/// inputs; float inputs require both to be 0 (TOSA ERROR_IF) and read as 0.
Result<std::pair<int64_t, int64_t>> convZeroPoints(KernelCtx& c, bool fp) {
  if (fp) {
    LS_RETURN_IF_ERROR(checkFpZero(c, 3));
    LS_RETURN_IF_ERROR(checkFpZero(c, 4));
    return std::pair<int64_t, int64_t>{0, 0};
  }
  LS_ASSIGN_OR_RETURN(izp, scalarInt(c, 3));
  LS_ASSIGN_OR_RETURN(wzp, scalarInt(c, 4));
  return std::pair<int64_t, int64_t>{izp, wzp};
}

// ---------------------------------------------------------------- constants and layout

Status constK(KernelCtx& c) {
  Tensor& o = c.newOutput(0);
  const ir::Arg* v = c.node().kwarg("values");
  if (auto* fl = v ? std::get_if<ir::FloatList>(&v->v) : nullptr)
    for (int64_t i = 0; i < o.numel(); ++i) o.setDouble(i, (*fl)[size_t(i)]);
  else if (auto* il = v ? v->asIntList() : nullptr)
    for (int64_t i = 0; i < o.numel(); ++i) o.setInt(i, (*il)[size_t(i)]);
  return Status::ok();
}

Status constShapeK(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(v, c.getIntList(c.argIndex("values")));
  Tensor& o = c.newOutput(0);
  for (size_t i = 0; i < v.size(); ++i) o.setInt(int64_t(i), v[i]);
  return Status::ok();
}

Status transposeK(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(perms, attrInts(c, "perms"));
  Tensor& o = c.newOutput(0);
  std::vector<int64_t> in = exec::contiguousStrides(x->shape());
  std::vector<int64_t> src(perms.size()), dst = exec::contiguousStrides(o.shape());
  for (size_t i = 0; i < perms.size(); ++i) src[i] = in[size_t(perms[i])];
  exec::copyStrided(x->elementSize(), o.shape(), x->bytes(), 0, src.data(), o.bytes(), 0, dst.data());
  return Status::ok();
}

Status reshapeK(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  c.setOutput(0, x->reshaped(c.outMeta().shape));
  return Status::ok();
}

Status identityK(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  c.setOutput(0, *x);
  return Status::ok();
}

Status castK(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  Tensor& o = c.newOutput(0);
  const bool toInt = ir::isIntegral(o.dtype(), true);
  for (int64_t i = 0; i < o.numel(); ++i) {
    if (toInt && isFloatT(x->dtype())) {  // round to nearest, ties to even, saturate
      double v = std::nearbyint(x->getDouble(i));
      o.setDouble(i, v);
    } else if (toInt) {
      o.setInt(i, x->getInt(i));
    } else {
      o.setDouble(i, x->getDouble(i));
    }
  }
  return Status::ok();
}

Status sliceK(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(start, shapeInput(c, 1));
  Tensor& o = c.newOutput(0);
  std::vector<int64_t> s = exec::contiguousStrides(x->shape()), d = exec::contiguousStrides(o.shape());
  int64_t off = 0;
  for (size_t i = 0; i < start.size(); ++i) off += start[i] * s[i];
  exec::copyStrided(x->elementSize(), o.shape(), x->bytes(), off, s.data(), o.bytes(), 0, d.data());
  return Status::ok();
}

Status padK(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(pad, shapeInput(c, 1));
  LS_ASSIGN_OR_RETURN(pc, c.tensor(2));
  Tensor& o = c.newOutput(0);
  const double v = pc->getDouble(0);
  if (isFloatT(o.dtype())) for (int64_t i = 0; i < o.numel(); ++i) o.setDouble(i, v);
  else for (int64_t i = 0; i < o.numel(); ++i) o.setInt(i, pc->getInt(0));
  std::vector<int64_t> s = exec::contiguousStrides(x->shape()), d = exec::contiguousStrides(o.shape());
  int64_t off = 0;
  for (int i = 0; i < x->rank(); ++i) off += pad[size_t(2 * i)] * d[size_t(i)];
  exec::copyStrided(x->elementSize(), x->shape(), x->bytes(), 0, s.data(), o.bytes(), off, d.data());
  return Status::ok();
}

Status tileK(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  Tensor& o = c.newOutput(0);
  std::vector<int64_t> s = exec::contiguousStrides(x->shape());
  const int r = o.rank();
  std::vector<int64_t> idx(size_t(r), 0);
  const int es = x->elementSize();
  for (int64_t k = 0; k < o.numel(); ++k) {
    int64_t src = 0;
    for (int i = 0; i < r; ++i) src += (idx[size_t(i)] % x->dim(i)) * s[size_t(i)];
    std::memcpy(o.bytes() + k * es, x->bytes() + src * es, size_t(es));
    for (int i = r - 1; i >= 0; --i) {
      if (++idx[size_t(i)] < o.dim(i)) break;
      idx[size_t(i)] = 0;
    }
  }
  return Status::ok();
}

Status reverseK(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(axis, c.getInt(c.argIndex("axis")));
  Tensor& o = c.newOutput(0);
  std::vector<int64_t> s = exec::contiguousStrides(x->shape()), d = exec::contiguousStrides(o.shape());
  int64_t off = (x->dim(int(axis)) - 1) * s[size_t(axis)];
  s[size_t(axis)] = -s[size_t(axis)];
  exec::copyStrided(x->elementSize(), o.shape(), x->bytes(), off, s.data(), o.bytes(), 0, d.data());
  return Status::ok();
}

Status concatK(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(ins, c.tensorList(0));
  LS_ASSIGN_OR_RETURN(axis, c.getInt(c.argIndex("axis")));
  Tensor& o = c.newOutput(0);
  std::vector<int64_t> d = exec::contiguousStrides(o.shape());
  int64_t at = 0;
  for (const Tensor* t : ins) {
    std::vector<int64_t> s = exec::contiguousStrides(t->shape());
    exec::copyStrided(t->elementSize(), t->shape(), t->bytes(), 0, s.data(), o.bytes(), at * d[size_t(axis)], d.data());
    at += t->dim(int(axis));
  }
  return Status::ok();
}

Status gatherK(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(v, c.tensor(0));
  LS_ASSIGN_OR_RETURN(idx, c.tensor(1));
  Tensor& o = c.newOutput(0);
  const int64_t N = v->dim(0), K = v->dim(1), C = v->dim(2), W = idx->dim(1);
  const int es = v->elementSize();
  for (int64_t n = 0; n < N; ++n)
    for (int64_t w = 0; w < W; ++w) {
      int64_t k = idx->getInt(n * W + w);
      if (k < 0 || k >= K) return c.error("index {} out of range [0, {})", k, K);
      std::memcpy(o.bytes() + ((n * W + w) * C) * es, v->bytes() + ((n * K + k) * C) * es, size_t(C * es));
    }
  return Status::ok();
}

// ---------------------------------------------------------------- elementwise

/// Visits the broadcast output of up to three same-rank operands.
template <typename Fn>
void broadcast3(const Shape& out, const Tensor* a, const Tensor* b, const Tensor* p, Fn&& fn) {
  std::vector<int64_t> sa = exec::broadcastStrides(a->shape(), out);
  std::vector<int64_t> sb = b ? exec::broadcastStrides(b->shape(), out) : std::vector<int64_t>(size_t(out.rank()), 0);
  std::vector<int64_t> sp = p ? exec::broadcastStrides(p->shape(), out) : std::vector<int64_t>(size_t(out.rank()), 0);
  int64_t k = 0;
  exec::forEachOffset(out, {sa.data(), sb.data(), sp.data()}, [&](const int64_t* off) { fn(k++, off[0], off[1], off[2]); });
}

enum class BinOp { Add, Sub, Mul, Max, Min, IntDiv, Eq, Gt, Ge, And, Or, Xor, BitAnd, BitOr, BitXor, Shl };

template <BinOp op>
Status binaryK(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(a, c.tensor(0));
  LS_ASSIGN_OR_RETURN(b, c.tensor(1));
  Tensor& o = c.newOutput(0);
  int64_t shift = 0;
  if constexpr (op == BinOp::Mul) {
    LS_ASSIGN_OR_RETURN(sh, scalarInt(c, 2));
    shift = sh;
    if (isFloatT(a->dtype()) && shift != 0) return c.error("shift must be 0 for floating-point MUL");
  }
  const bool fp = isFloatT(a->dtype());
  if (fp && a->dtype() == DType::Float32 && o.dtype() == DType::Float32 && b->dtype() == DType::Float32) {
    const float* pa = a->data<float>();
    const float* pb = b->data<float>();
    float* po = o.data<float>();
    broadcast3(o.shape(), a, b, nullptr, [&](int64_t k, int64_t ia, int64_t ib, int64_t) {
      float x = pa[ia], y = pb[ib], r = 0;
      if constexpr (op == BinOp::Add) r = x + y;
      else if constexpr (op == BinOp::Sub) r = x - y;
      else if constexpr (op == BinOp::Mul) r = x * y;
      else if constexpr (op == BinOp::Max) r = (std::isnan(x) || std::isnan(y)) ? NAN : std::max(x, y);
      else if constexpr (op == BinOp::Min) r = (std::isnan(x) || std::isnan(y)) ? NAN : std::min(x, y);
      else r = 0;
      po[k] = r;
    });
    return Status::ok();
  }
  Status st;
  broadcast3(o.shape(), a, b, nullptr, [&](int64_t k, int64_t ia, int64_t ib, int64_t) {
    if (fp) {
      double x = a->getDouble(ia), y = b->getDouble(ib);
      if constexpr (op == BinOp::Eq) o.setInt(k, x == y);
      else if constexpr (op == BinOp::Gt) o.setInt(k, x > y);
      else if constexpr (op == BinOp::Ge) o.setInt(k, x >= y);
      else if constexpr (op == BinOp::Add) o.setDouble(k, x + y);
      else if constexpr (op == BinOp::Sub) o.setDouble(k, x - y);
      else if constexpr (op == BinOp::Mul) o.setDouble(k, x * y);
      else if constexpr (op == BinOp::Max) o.setDouble(k, std::max(x, y));
      else if constexpr (op == BinOp::Min) o.setDouble(k, std::min(x, y));
      else st = Status::error("operation needs integer operands");
      return;
    }
    int64_t x = a->getInt(ia), y = b->getInt(ib), r = 0;
    if constexpr (op == BinOp::Add) r = x + y;
    else if constexpr (op == BinOp::Sub) r = x - y;
    else if constexpr (op == BinOp::Mul) {
      // TOSA MUL (int32 with shift): round(x * y >> shift).
      Int128 prod = Int128(x) * y;
      if (shift > 0) prod = (prod + (Int128(1) << (shift - 1))) >> shift;
      r = int64_t(prod);
    } else if constexpr (op == BinOp::Max) r = std::max(x, y);
    else if constexpr (op == BinOp::Min) r = std::min(x, y);
    else if constexpr (op == BinOp::IntDiv) {
      if (y == 0) st = Status::error("INTDIV by zero");
      else r = x / y;  // truncation toward zero
    } else if constexpr (op == BinOp::Eq) r = x == y;
    else if constexpr (op == BinOp::Gt) r = x > y;
    else if constexpr (op == BinOp::Ge) r = x >= y;
    else if constexpr (op == BinOp::And) r = x && y;
    else if constexpr (op == BinOp::Or) r = x || y;
    else if constexpr (op == BinOp::Xor) r = (x != 0) != (y != 0);
    else if constexpr (op == BinOp::BitAnd) r = x & y;
    else if constexpr (op == BinOp::BitOr) r = x | y;
    else if constexpr (op == BinOp::BitXor) r = x ^ y;
    else if constexpr (op == BinOp::Shl) {
      // LOGICAL_LEFT_SHIFT: 0 <= shift <= 31, the result wrapped to the operand's width.
      if (y < 0 || y > 31) st = Status::error(fmt::format("LOGICAL_LEFT_SHIFT by {} (must be in [0, 31])", y));
      else r = int64_t(uint64_t(x) << y);
      const int bits = 8 * a->elementSize();
      if (bits < 64) r = int64_t(uint64_t(r) << (64 - bits)) >> (64 - bits);
    }
    o.setInt(k, r);
  });
  if (!st.isOk()) return c.error("{}", st.message());
  return Status::ok();
}

/// The first of POW's REQUIRE clauses (TOSA 1.0, in the specification's order) that the
/// element pair (x, y) breaks, or null when the power is defined.
const char* powRequireBroken(double x, double y) {
  if (!(x >= 0)) return "value1 >= 0";
  if (!(x > 0 || y > 0)) return "value1 > 0 || value2 > 0";
  if (std::isnan(x) || std::isnan(y)) return "!is_a_NaN(value1) && !is_a_NaN(value2)";
  if (!std::isfinite(x) || !std::isfinite(y)) return "is_finite(value1) && is_finite(value2)";
  return nullptr;
}

/// POW (floating point only). The specification REQUIREs a non-negative, finite, non-NaN base
/// and exponent, and a positive exponent for a zero base; an element breaking one makes the
/// result UNPREDICTABLE, so the kernel refuses the node, naming the clause and the first such
/// element, instead of computing a number another implementation need not agree with.
Status powK(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(a, c.tensor(0));
  LS_ASSIGN_OR_RETURN(b, c.tensor(1));
  if (!isFloatT(a->dtype()) || !isFloatT(b->dtype())) return c.error("POW needs floating-point operands");
  Tensor& o = c.newOutput(0);
  const bool f32 = a->dtype() == DType::Float32 && b->dtype() == DType::Float32 && o.dtype() == DType::Float32;
  int64_t bad = -1;
  const char* clause = nullptr;
  double badX = 0, badY = 0;
  broadcast3(o.shape(), a, b, nullptr, [&](int64_t k, int64_t ia, int64_t ib, int64_t) {
    if (clause) return;
    const double x = a->getDouble(ia), y = b->getDouble(ib);
    if ((clause = powRequireBroken(x, y))) {
      bad = k, badX = x, badY = y;
      return;
    }
    if (f32) o.data<float>()[k] = std::pow(float(x), float(y));
    else o.setDouble(k, std::pow(x, y));
  });
  if (clause)
    return c.error("UNPREDICTABLE: POW requires {} (TOSA 1.0), output element {} has input1 = {}, input2 = {}",
                   clause, bad, badX, badY);
  return Status::ok();
}

/// BITWISE_NOT: ~x (two's complement of the operand's width).
Status bitwiseNotK(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  Tensor& o = c.newOutput(0);
  for (int64_t i = 0; i < o.numel(); ++i) o.setInt(i, ~x->getInt(i));
  return Status::ok();
}

enum class UnOp { Abs, Ceil, Floor, Exp, Log, Recip, Rsqrt, Sin, Cos, Tanh, Sigmoid, Erf, Not };

template <UnOp op>
Status unaryK(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  Tensor& o = c.newOutput(0);
  if constexpr (op == UnOp::Not) {
    for (int64_t i = 0; i < o.numel(); ++i) o.setInt(i, x->getInt(i) == 0);
    return Status::ok();
  }
  if (!isFloatT(x->dtype())) {
    if constexpr (op == UnOp::Abs) {
      for (int64_t i = 0; i < o.numel(); ++i) o.setInt(i, std::llabs(x->getInt(i)));
      return Status::ok();
    }
    return c.error("expected a floating-point input");
  }
  auto f = [](double v) -> double {
    if constexpr (op == UnOp::Abs) return std::fabs(v);
    else if constexpr (op == UnOp::Ceil) return std::ceil(v);
    else if constexpr (op == UnOp::Floor) return std::floor(v);
    else if constexpr (op == UnOp::Exp) return std::exp(v);
    else if constexpr (op == UnOp::Log) return std::log(v);
    else if constexpr (op == UnOp::Recip) return 1.0 / v;
    else if constexpr (op == UnOp::Rsqrt) return 1.0 / std::sqrt(v);
    else if constexpr (op == UnOp::Sin) return std::sin(v);
    else if constexpr (op == UnOp::Cos) return std::cos(v);
    else if constexpr (op == UnOp::Tanh) return std::tanh(v);
    else if constexpr (op == UnOp::Sigmoid) return 1.0 / (1.0 + std::exp(-v));
    else if constexpr (op == UnOp::Erf) return std::erf(v);
    else return v;
  };
  if (x->dtype() == DType::Float32) {
    const float* px = x->data<float>();
    float* po = o.data<float>();
    for (int64_t i = 0; i < o.numel(); ++i) po[i] = float(f(double(px[i])));
  } else {
    for (int64_t i = 0; i < o.numel(); ++i) o.setDouble(i, f(x->getDouble(i)));
  }
  return Status::ok();
}

Status negateK(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  Tensor& o = c.newOutput(0);
  if (isFloatT(x->dtype())) {
    for (int64_t i = 0; i < o.numel(); ++i) o.setDouble(i, -x->getDouble(i));
    return Status::ok();
  }
  LS_ASSIGN_OR_RETURN(izp, scalarInt(c, 1));
  LS_ASSIGN_OR_RETURN(ozp, scalarInt(c, 2));
  int64_t lo = o.dtype() == DType::Int8 ? -128 : o.dtype() == DType::Int16 ? -32768 : INT32_MIN;
  int64_t hi = o.dtype() == DType::Int8 ? 127 : o.dtype() == DType::Int16 ? 32767 : INT32_MAX;
  for (int64_t i = 0; i < o.numel(); ++i) o.setInt(i, std::clamp(-(x->getInt(i) - izp) + ozp, lo, hi));
  return Status::ok();
}

Status clampK(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(lo, c.getFloat(c.argIndex("min_val")));
  LS_ASSIGN_OR_RETURN(hi, c.getFloat(c.argIndex("max_val")));
  Tensor& o = c.newOutput(0);
  if (x->dtype() == DType::Float32) {
    const float* px = x->data<float>();
    float* po = o.data<float>();
    const float l = float(lo), h = float(hi);
    for (int64_t i = 0; i < o.numel(); ++i) po[i] = std::isnan(px[i]) ? px[i] : std::min(std::max(px[i], l), h);
  } else if (isFloatT(x->dtype())) {
    for (int64_t i = 0; i < o.numel(); ++i) o.setDouble(i, std::min(std::max(x->getDouble(i), lo), hi));
  } else {
    for (int64_t i = 0; i < o.numel(); ++i)
      o.setInt(i, std::min(std::max(x->getInt(i), int64_t(std::llround(lo))), int64_t(std::llround(hi))));
  }
  return Status::ok();
}

Status selectK(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(p, c.tensor(0));
  LS_ASSIGN_OR_RETURN(a, c.tensor(1));
  LS_ASSIGN_OR_RETURN(b, c.tensor(2));
  Tensor& o = c.newOutput(0);
  const int es = o.elementSize();
  // Operands a/b are visited as the first two stride sets, the predicate as the third.
  broadcast3(o.shape(), a, b, p, [&](int64_t k, int64_t ia, int64_t ib, int64_t ip) {
    const bool take = p->getInt(ip) != 0;
    std::memcpy(o.bytes() + k * es, (take ? a->bytes() + ia * es : b->bytes() + ib * es), size_t(es));
  });
  return Status::ok();
}

Status tableK(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(t, c.tensor(1));
  Tensor& o = c.newOutput(0);
  if (x->dtype() == DType::Int8) {
    for (int64_t i = 0; i < o.numel(); ++i) o.setInt(i, t->getInt(x->getInt(i) + 128));
    return Status::ok();
  }
  // int16: 513-entry table with linear interpolation of the low 7 bits (spec apply_lookup_s).
  for (int64_t i = 0; i < o.numel(); ++i) {
    int64_t v = x->getInt(i) + 32768;
    int64_t idx = v >> 7, frac = v & 0x7F;
    int64_t base = t->getInt(idx), next = t->getInt(idx + 1);
    o.setInt(i, (base << 7) + (next - base) * frac);
  }
  return Status::ok();
}

// ---------------------------------------------------------------- RESCALE

/// apply_scale_32 / apply_scale_16 of the TOSA spec (64-bit intermediate, rounding shift).
int64_t applyScale(int64_t value, int64_t multiplier, int64_t shift, bool doubleRound, bool scale32) {
  Int128 round = shift > 0 ? (Int128(1) << (shift - 1)) : 0;
  if (scale32 && doubleRound && shift > 31) round += value >= 0 ? (Int128(1) << 30) : -(Int128(1) << 30);
  Int128 r = Int128(value) * multiplier + round;
  r >>= shift;  // arithmetic shift
  return int64_t(r);
}

Status rescaleK(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(mul, c.tensor(1));
  LS_ASSIGN_OR_RETURN(sh, c.tensor(2));
  LS_ASSIGN_OR_RETURN(izp, scalarInt(c, 3));
  LS_ASSIGN_OR_RETURN(ozp, scalarInt(c, 4));
  LS_ASSIGN_OR_RETURN(scale32, c.getBool(c.argIndex("scale32")));
  LS_ASSIGN_OR_RETURN(perChannel, c.getBool(c.argIndex("per_channel")));
  auto rm = c.getString(c.argIndex("rounding_mode"));
  const bool dbl = rm && *rm == "DOUBLE_ROUND";
  if (rm && *rm != "SINGLE_ROUND" && *rm != "DOUBLE_ROUND" && *rm != "INEXACT_ROUND")
    return c.error("rounding_mode must be SINGLE_ROUND, INEXACT_ROUND or DOUBLE_ROUND, got {}", *rm);
  Tensor& o = c.newOutput(0);
  int64_t lo, hi;
  switch (o.dtype()) {
    case DType::Int8: lo = -128, hi = 127; break;
    case DType::UInt8: lo = 0, hi = 255; break;
    case DType::Int16: lo = -32768, hi = 32767; break;
    case DType::UInt16: lo = 0, hi = 65535; break;
    case DType::Int32: lo = INT32_MIN, hi = INT32_MAX; break;
    default: return c.error("unsupported RESCALE output type {}", ir::dtypeName(o.dtype()));
  }
  const int64_t C = perChannel ? x->dim(x->rank() - 1) : 1;
  for (int64_t i = 0; i < o.numel(); ++i) {
    const int64_t ch = perChannel ? i % C : 0;
    int64_t m = mul->getInt(ch), s = sh->getInt(ch);
    if (s < 2 || s > 62) return c.error("shift {} outside [2, 62]", s);
    int64_t v = applyScale(x->getInt(i) - izp, m, s, dbl, scale32) + ozp;
    o.setInt(i, std::clamp(v, lo, hi));
  }
  return Status::ok();
}

// ---------------------------------------------------------------- reductions

/// x as [outer, n, inner] around its dim `axis` (element (a, k, b) at (a * n + k) * inner + b).
struct AxisSplit {
  int64_t outer = 1, n = 1, inner = 1;
};
AxisSplit splitAt(const Tensor& x, int axis) {
  AxisSplit s;
  s.n = x.dim(axis);
  for (int i = 0; i < axis; ++i) s.outer *= x.dim(i);
  for (int i = axis + 1; i < x.rank(); ++i) s.inner *= x.dim(i);
  return s;
}

enum class RedOp { Sum, Max, Min, Prod, Any, All };
template <RedOp op>
Status reduceK(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(axis, c.getInt(c.argIndex("axis")));
  Tensor& o = c.newOutput(0);
  const auto [outer, n, inner] = splitAt(*x, int(axis));
  const bool fp = isFloatT(x->dtype());
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t b = 0; b < inner; ++b) {
      double acc = 0;
      int64_t iacc = 0;
      for (int64_t k = 0; k < n; ++k) {
        int64_t idx = (a * n + k) * inner + b;
        double v = fp ? x->getDouble(idx) : 0;
        int64_t iv = fp ? 0 : x->getInt(idx);
        if (k == 0) {
          acc = v, iacc = iv;
          continue;
        }
        if constexpr (op == RedOp::Sum) acc += v, iacc += iv;
        else if constexpr (op == RedOp::Max) acc = (std::isnan(acc) || std::isnan(v)) ? NAN : std::max(acc, v), iacc = std::max(iacc, iv);
        else if constexpr (op == RedOp::Min) acc = (std::isnan(acc) || std::isnan(v)) ? NAN : std::min(acc, v), iacc = std::min(iacc, iv);
        else if constexpr (op == RedOp::Prod) acc *= v, iacc *= iv;
        else if constexpr (op == RedOp::Any) iacc = iacc || iv;
        else if constexpr (op == RedOp::All) iacc = iacc && iv;
      }
      if (fp) o.setDouble(a * inner + b, acc);
      else o.setInt(a * inner + b, iacc);
    }
  return Status::ok();
}

/// ARGMAX: the index of the first maximum along `axis` (int32); under nan_mode PROPAGATE the
/// first NaN wins (it compares above every number).
Status argmaxK(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(axis, c.getInt(c.argIndex("axis")));
  Tensor& o = c.newOutput(0);
  const auto [outer, n, inner] = splitAt(*x, int(axis));
  const bool fp = isFloatT(x->dtype());
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t b = 0; b < inner; ++b) {
      int64_t best = 0;
      for (int64_t k = 1; k < n; ++k) {
        const int64_t i = (a * n + k) * inner + b, j = (a * n + best) * inner + b;
        if (fp) {
          const double v = x->getDouble(i), m = x->getDouble(j);
          if (!std::isnan(m) && (std::isnan(v) || v > m)) best = k;
        } else if (x->getInt(i) > x->getInt(j)) {
          best = k;
        }
      }
      o.setInt(a * inner + b, best);
    }
  return Status::ok();
}

// ---------------------------------------------------------------- tensor ops

struct ConvGeom {
  int64_t n, ih, iw, ic, oh, ow, oc, kh, kw, sy, sx, dy, dx, pt, pl;
};

Status conv2dK(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(w, c.tensor(1));
  LS_ASSIGN_OR_RETURN(b, c.tensor(2));
  LS_ASSIGN_OR_RETURN(pad, attrInts(c, "pad"));
  LS_ASSIGN_OR_RETURN(stride, attrInts(c, "stride"));
  LS_ASSIGN_OR_RETURN(dil, attrInts(c, "dilation"));
  Tensor& o = c.newOutput(0);
  ConvGeom g{x->dim(0), x->dim(1), x->dim(2), x->dim(3), o.dim(1), o.dim(2), o.dim(3), w->dim(1), w->dim(2),
             stride[0], stride[1], dil[0], dil[1], pad[0], pad[2]};
  const int64_t K = g.kh * g.kw * g.ic;
  if (isFloatT(x->dtype())) {
    LS_RETURN_IF_ERROR(checkFpZero(c, 3));
    LS_RETURN_IF_ERROR(checkFpZero(c, 4));
    std::vector<float> xs, ws, bs;
    const float* px = exec::typedData<float>(*x, xs);
    const float* pw = exec::typedData<float>(*w, ws);
    const float* pb = exec::typedData<float>(*b, bs);
    const int64_t M = g.oh * g.ow;
    std::vector<float> col(size_t(M * K));
    std::vector<float> res(size_t(M * g.oc));
    for (int64_t n = 0; n < g.n; ++n) {
      for (int64_t oy = 0; oy < g.oh; ++oy)
        for (int64_t ox = 0; ox < g.ow; ++ox) {
          float* row = col.data() + (oy * g.ow + ox) * K;
          for (int64_t ky = 0; ky < g.kh; ++ky) {
            int64_t iy = oy * g.sy - g.pt + ky * g.dy;
            for (int64_t kx = 0; kx < g.kw; ++kx) {
              int64_t ix = ox * g.sx - g.pl + kx * g.dx;
              float* dst = row + (ky * g.kw + kx) * g.ic;
              if (iy < 0 || iy >= g.ih || ix < 0 || ix >= g.iw) std::fill(dst, dst + g.ic, 0.0f);
              else std::memcpy(dst, px + ((n * g.ih + iy) * g.iw + ix) * g.ic, size_t(g.ic) * sizeof(float));
            }
          }
        }
      // weight [OC, K] used transposed in place
      exec::gemmFor(c.accumulation(), M, g.oc, K, col.data(), K, pw, K, /*transB=*/true, res.data(), g.oc, false,
                    c.threads());
      for (int64_t m = 0; m < M; ++m)
        for (int64_t oc = 0; oc < g.oc; ++oc)
          o.setDouble((n * M + m) * g.oc + oc, double(res[size_t(m * g.oc + oc)] + pb[b->numel() == 1 ? 0 : oc]));
    }
    return Status::ok();
  }
  LS_ASSIGN_OR_RETURN(izp, scalarInt(c, 3));
  LS_ASSIGN_OR_RETURN(wzp, scalarInt(c, 4));
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t oy = 0; oy < g.oh; ++oy)
      for (int64_t ox = 0; ox < g.ow; ++ox)
        for (int64_t oc = 0; oc < g.oc; ++oc) {
          int64_t acc = 0;
          for (int64_t ky = 0; ky < g.kh; ++ky) {
            int64_t iy = oy * g.sy - g.pt + ky * g.dy;
            if (iy < 0 || iy >= g.ih) continue;
            for (int64_t kx = 0; kx < g.kw; ++kx) {
              int64_t ix = ox * g.sx - g.pl + kx * g.dx;
              if (ix < 0 || ix >= g.iw) continue;
              for (int64_t ic = 0; ic < g.ic; ++ic)
                acc += (x->getInt(((n * g.ih + iy) * g.iw + ix) * g.ic + ic) - izp) *
                       (w->getInt(((oc * g.kh + ky) * g.kw + kx) * g.ic + ic) - wzp);
            }
          }
          acc += b->getInt(b->numel() == 1 ? 0 : oc);
          o.setInt(((n * g.oh + oy) * g.ow + ox) * g.oc + oc, acc);
        }
  return Status::ok();
}

/// CONV3D: input [N,ID,IH,IW,IC], weight [OC,KD,KH,KW,IC], pad [d0,d1,top,bottom,left,right].
Status conv3dK(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(w, c.tensor(1));
  LS_ASSIGN_OR_RETURN(b, c.tensor(2));
  LS_ASSIGN_OR_RETURN(pad, attrInts(c, "pad"));
  LS_ASSIGN_OR_RETURN(stride, attrInts(c, "stride"));
  LS_ASSIGN_OR_RETURN(dil, attrInts(c, "dilation"));
  Tensor& o = c.newOutput(0);
  const int64_t N = x->dim(0), ID = x->dim(1), IH = x->dim(2), IW = x->dim(3), IC = x->dim(4);
  const int64_t OC = w->dim(0), KD = w->dim(1), KH = w->dim(2), KW = w->dim(3);
  const int64_t OD = o.dim(1), OH = o.dim(2), OW = o.dim(3);
  const int64_t K = KD * KH * KW * IC, M = OD * OH * OW;
  const bool fp = isFloatT(x->dtype());
  LS_ASSIGN_OR_RETURN(zps, convZeroPoints(c, fp));
  const int64_t izp = zps.first, wzp = zps.second;  // plain names: lambdas below capture them
  // Row m of the im2col matrix: the K input values output position m reads (0 outside).
  auto forEachTap = [&](int64_t n, int64_t m, auto&& fn) {
    const int64_t od = m / (OH * OW), oy = (m / OW) % OH, ox = m % OW;
    for (int64_t kd = 0; kd < KD; ++kd) {
      const int64_t iz = od * stride[0] - pad[0] + kd * dil[0];
      for (int64_t ky = 0; ky < KH; ++ky) {
        const int64_t iy = oy * stride[1] - pad[2] + ky * dil[1];
        for (int64_t kx = 0; kx < KW; ++kx) {
          const int64_t ix = ox * stride[2] - pad[4] + kx * dil[2];
          const int64_t k0 = ((kd * KH + ky) * KW + kx) * IC;
          const bool in = iz >= 0 && iz < ID && iy >= 0 && iy < IH && ix >= 0 && ix < IW;
          fn(k0, in ? (((n * ID + iz) * IH + iy) * IW + ix) * IC : int64_t(-1));
        }
      }
    }
  };
  if (fp) {
    std::vector<float> xs, ws, bs;
    const float* px = exec::typedData<float>(*x, xs);
    const float* pw = exec::typedData<float>(*w, ws);
    const float* pb = exec::typedData<float>(*b, bs);
    std::vector<float> col(size_t(M * K)), res(size_t(M * OC));
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t m = 0; m < M; ++m)
        forEachTap(n, m, [&](int64_t k0, int64_t xi) {
          float* dst = col.data() + m * K + k0;
          if (xi < 0) std::fill(dst, dst + IC, 0.0f);
          else std::memcpy(dst, px + xi, size_t(IC) * sizeof(float));
        });
      // weight [OC, K] used transposed in place
      exec::gemmFor(c.accumulation(), M, OC, K, col.data(), K, pw, K, /*transB=*/true, res.data(), OC, false,
                    c.threads());
      for (int64_t m = 0; m < M; ++m)
        for (int64_t oc = 0; oc < OC; ++oc)
          o.setDouble((n * M + m) * OC + oc, double(res[size_t(m * OC + oc)] + pb[b->numel() == 1 ? 0 : oc]));
    }
    return Status::ok();
  }
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t oc = 0; oc < OC; ++oc) {
        int64_t acc = 0;
        forEachTap(n, m, [&](int64_t k0, int64_t xi) {
          if (xi < 0) return;  // padding holds the input zero point: (zp - zp) * w = 0
          for (int64_t ic = 0; ic < IC; ++ic) acc += (x->getInt(xi + ic) - izp) * (w->getInt(oc * K + k0 + ic) - wzp);
        });
        o.setInt((n * M + m) * OC + oc, acc + b->getInt(b->numel() == 1 ? 0 : oc));
      }
  return Status::ok();
}

Status depthwiseK(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(w, c.tensor(1));  // [KH,KW,C,M]
  LS_ASSIGN_OR_RETURN(b, c.tensor(2));
  LS_ASSIGN_OR_RETURN(pad, attrInts(c, "pad"));
  LS_ASSIGN_OR_RETURN(stride, attrInts(c, "stride"));
  LS_ASSIGN_OR_RETURN(dil, attrInts(c, "dilation"));
  Tensor& o = c.newOutput(0);
  const int64_t N = x->dim(0), IH = x->dim(1), IW = x->dim(2), C = x->dim(3), KH = w->dim(0), KW = w->dim(1),
                M = w->dim(3), OH = o.dim(1), OW = o.dim(2);
  const bool fp = isFloatT(x->dtype());
  LS_ASSIGN_OR_RETURN(zps, convZeroPoints(c, fp));
  const auto [izp, wzp] = zps;
  std::vector<float> xs, ws;
  const float* px = fp ? exec::typedData<float>(*x, xs) : nullptr;
  const float* pw = fp ? exec::typedData<float>(*w, ws) : nullptr;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t oy = 0; oy < OH; ++oy)
      for (int64_t ox = 0; ox < OW; ++ox)
        for (int64_t ch = 0; ch < C; ++ch)
          for (int64_t m = 0; m < M; ++m) {
            float facc = 0;
            int64_t iacc = 0;
            for (int64_t ky = 0; ky < KH; ++ky) {
              int64_t iy = oy * stride[0] - pad[0] + ky * dil[0];
              if (iy < 0 || iy >= IH) continue;
              for (int64_t kx = 0; kx < KW; ++kx) {
                int64_t ix = ox * stride[1] - pad[2] + kx * dil[1];
                if (ix < 0 || ix >= IW) continue;
                int64_t xi = ((n * IH + iy) * IW + ix) * C + ch, wi = ((ky * KW + kx) * C + ch) * M + m;
                if (fp) facc += px[xi] * pw[wi];
                else iacc += (x->getInt(xi) - izp) * (w->getInt(wi) - wzp);
              }
            }
            int64_t oc = ch * M + m, oi = ((n * OH + oy) * OW + ox) * (C * M) + oc;
            int64_t bi = b->numel() == 1 ? 0 : oc;
            if (fp) o.setDouble(oi, double(facc) + b->getDouble(bi));
            else o.setInt(oi, iacc + b->getInt(bi));
          }
  return Status::ok();
}

Status transposeConvK(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(w, c.tensor(1));  // [OC,KH,KW,IC]
  LS_ASSIGN_OR_RETURN(b, c.tensor(2));
  LS_ASSIGN_OR_RETURN(op, attrInts(c, "out_pad"));
  LS_ASSIGN_OR_RETURN(stride, attrInts(c, "stride"));
  Tensor& o = c.newOutput(0);
  const int64_t N = x->dim(0), IH = x->dim(1), IW = x->dim(2), IC = x->dim(3), OC = w->dim(0), KH = w->dim(1),
                KW = w->dim(2), OH = o.dim(1), OW = o.dim(2);
  const bool fp = isFloatT(x->dtype());
  LS_ASSIGN_OR_RETURN(zps, convZeroPoints(c, fp));
  const auto [izp, wzp] = zps;
  std::vector<double> acc(size_t(o.numel()), 0.0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t oc = 0; oc < OC; ++oc)
      for (int64_t y = 0; y < OH; ++y)
        for (int64_t xx = 0; xx < OW; ++xx) acc[size_t(((n * OH + y) * OW + xx) * OC + oc)] = b->getDouble(b->numel() == 1 ? 0 : oc);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t iy = 0; iy < IH; ++iy)
      for (int64_t ix = 0; ix < IW; ++ix)
        for (int64_t oc = 0; oc < OC; ++oc)
          for (int64_t ky = 0; ky < KH; ++ky)
            for (int64_t kx = 0; kx < KW; ++kx) {
              int64_t oy = iy * stride[0] + op[0] + ky, ox = ix * stride[1] + op[2] + kx;
              if (oy < 0 || oy >= OH || ox < 0 || ox >= OW) continue;
              double s = 0;
              for (int64_t ic = 0; ic < IC; ++ic) {
                int64_t xi = ((n * IH + iy) * IW + ix) * IC + ic, wi = ((oc * KH + ky) * KW + kx) * IC + ic;
                s += fp ? x->getDouble(xi) * w->getDouble(wi) : double((x->getInt(xi) - izp) * (w->getInt(wi) - wzp));
              }
              acc[size_t(((n * OH + oy) * OW + ox) * OC + oc)] += s;
            }
  for (int64_t i = 0; i < o.numel(); ++i) {
    if (fp) o.setDouble(i, acc[size_t(i)]);
    else o.setInt(i, int64_t(std::llround(acc[size_t(i)])));
  }
  return Status::ok();
}

Status matmulK(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(a, c.tensor(0));
  LS_ASSIGN_OR_RETURN(b, c.tensor(1));
  Tensor& o = c.newOutput(0);
  const int64_t N = a->dim(0), H = a->dim(1), C = a->dim(2), W = b->dim(2);
  if (isFloatT(a->dtype())) {
    LS_RETURN_IF_ERROR(checkFpZero(c, 2));
    LS_RETURN_IF_ERROR(checkFpZero(c, 3));
    std::vector<float> as, bs;
    const float* pa = exec::typedData<float>(*a, as);
    const float* pb = exec::typedData<float>(*b, bs);
    if (o.dtype() == DType::Float32) {
      for (int64_t n = 0; n < N; ++n)
        exec::gemmFor(c.accumulation(), H, W, C, pa + n * H * C, C, pb + n * C * W, W, false, o.data<float>() + n * H * W, W,
                      false, c.threads());
    } else {
      std::vector<float> r(size_t(H * W));
      for (int64_t n = 0; n < N; ++n) {
        exec::gemmFor(c.accumulation(), H, W, C, pa + n * H * C, C, pb + n * C * W, W, false, r.data(), W, false,
                      c.threads());
        for (int64_t i = 0; i < H * W; ++i) o.setDouble(n * H * W + i, r[size_t(i)]);
      }
    }
    return Status::ok();
  }
  LS_ASSIGN_OR_RETURN(azp, scalarInt(c, 2));
  LS_ASSIGN_OR_RETURN(bzp, scalarInt(c, 3));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t w = 0; w < W; ++w) {
        int64_t acc = 0;
        for (int64_t k = 0; k < C; ++k) acc += (a->getInt((n * H + h) * C + k) - azp) * (b->getInt((n * C + k) * W + w) - bzp);
        o.setInt((n * H + h) * W + w, acc);
      }
  return Status::ok();
}

template <bool Avg>
Status poolK(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(k, attrInts(c, "kernel"));
  LS_ASSIGN_OR_RETURN(stride, attrInts(c, "stride"));
  LS_ASSIGN_OR_RETURN(pad, attrInts(c, "pad"));
  Tensor& o = c.newOutput(0);
  const int64_t N = x->dim(0), IH = x->dim(1), IW = x->dim(2), C = x->dim(3), OH = o.dim(1), OW = o.dim(2);
  const bool fp = isFloatT(x->dtype());
  int64_t izp = 0, ozp = 0;
  if (Avg && !fp) {
    LS_ASSIGN_OR_RETURN(a, scalarInt(c, 1));
    LS_ASSIGN_OR_RETURN(bz, scalarInt(c, 2));
    izp = a, ozp = bz;
  }
  for (int64_t n = 0; n < N; ++n)
    for (int64_t oy = 0; oy < OH; ++oy)
      for (int64_t ox = 0; ox < OW; ++ox)
        for (int64_t ch = 0; ch < C; ++ch) {
          double acc = Avg ? 0.0 : -std::numeric_limits<double>::infinity();
          int64_t iacc = Avg ? 0 : std::numeric_limits<int64_t>::min();
          int64_t count = 0;
          for (int64_t ky = 0; ky < k[0]; ++ky) {
            int64_t iy = oy * stride[0] - pad[0] + ky;
            if (iy < 0 || iy >= IH) continue;
            for (int64_t kx = 0; kx < k[1]; ++kx) {
              int64_t ix = ox * stride[1] - pad[2] + kx;
              if (ix < 0 || ix >= IW) continue;
              int64_t idx = ((n * IH + iy) * IW + ix) * C + ch;
              ++count;
              if (fp) {
                double v = x->getDouble(idx);
                acc = Avg ? acc + v : ((std::isnan(acc) || std::isnan(v)) ? NAN : std::max(acc, v));
              } else {
                int64_t v = x->getInt(idx) - (Avg ? izp : 0);
                iacc = Avg ? iacc + v : std::max(iacc, v);
              }
            }
          }
          int64_t oi = ((n * OH + oy) * OW + ox) * C + ch;
          if (fp) o.setDouble(oi, Avg ? acc / double(std::max<int64_t>(count, 1)) : acc);
          else if (Avg) o.setInt(oi, int64_t(std::llround(double(iacc) / double(std::max<int64_t>(count, 1)))) + ozp);
          else o.setInt(oi, iacc);
        }
  return Status::ok();
}

Status resizeK(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(scale, shapeInput(c, 1));
  LS_ASSIGN_OR_RETURN(offset, shapeInput(c, 2));
  auto mode = c.getString(c.argIndex("mode"));
  const bool bilinear = mode && *mode == "BILINEAR";
  Tensor& o = c.newOutput(0);
  const bool fp = isFloatT(x->dtype());
  const int64_t N = x->dim(0), IH = x->dim(1), IW = x->dim(2), C = x->dim(3), OH = o.dim(1), OW = o.dim(2);
  const int64_t yn = scale[0], yd = scale[1], xn = scale[2], xd = scale[3], oy0 = offset[0], ox0 = offset[1];
  for (int64_t n = 0; n < N; ++n)
    for (int64_t oy = 0; oy < OH; ++oy)
      for (int64_t ox = 0; ox < OW; ++ox) {
        int64_t y = oy * yd + oy0, xx = ox * xd + ox0;
        // floor division, as the spec's integer arithmetic
        int64_t iy = y >= 0 ? y / yn : -((-y + yn - 1) / yn);
        int64_t ix = xx >= 0 ? xx / xn : -((-xx + xn - 1) / xn);
        double dy = double(y - iy * yn) / double(yn), dx = double(xx - ix * xn) / double(xn);
        // Integer mode: the fractions in units of scale_n; BILINEAR int8 -> int32 scaled by y_n * x_n.
        const int64_t idy = y - iy * yn, idx = xx - ix * xn;
        for (int64_t ch = 0; ch < C; ++ch) {
          auto at = [&](int64_t yy, int64_t xv) {
            yy = std::clamp<int64_t>(yy, 0, IH - 1);
            xv = std::clamp<int64_t>(xv, 0, IW - 1);
            return ((n * IH + yy) * IW + xv) * C + ch;
          };
          const int64_t oi = ((n * OH + oy) * OW + ox) * C + ch;
          if (!fp) {
            int64_t v;
            if (bilinear) {
              v = x->getInt(at(iy, ix)) * (yn - idy) * (xn - idx) + x->getInt(at(iy, ix + 1)) * (yn - idy) * idx +
                  x->getInt(at(iy + 1, ix)) * idy * (xn - idx) + x->getInt(at(iy + 1, ix + 1)) * idy * idx;
            } else {
              v = x->getInt(at(iy + (2 * idy >= yn ? 1 : 0), ix + (2 * idx >= xn ? 1 : 0)));
            }
            o.setInt(oi, v);
            continue;
          }
          double v;
          if (bilinear) {
            auto xv = [&](int64_t yy, int64_t xc) { return x->getDouble(at(yy, xc)); };
            v = xv(iy, ix) * (1 - dy) * (1 - dx) + xv(iy, ix + 1) * (1 - dy) * dx + xv(iy + 1, ix) * dy * (1 - dx) +
                xv(iy + 1, ix + 1) * dy * dx;
          } else {
            v = x->getDouble(at(iy + (2 * idy >= yn ? 1 : 0), ix + (2 * idx >= xn ? 1 : 0)));
          }
          o.setDouble(oi, v);
        }
      }
  return Status::ok();
}

/// Every TOSA kernel first checks its node against the specification (tosa_validate.h:
/// types for PRO-INT, PRO-FP and the extensions the kernels compute, EXT-INT16 and EXT-BF16,
/// ranks, ERROR_IF rules; no level limits), so the reference executor refuses what a
/// conforming implementation refuses instead of agreeing with an illegal graph. Which
/// extensions a lowering may use is the pipeline's check (--tosa-extension), not the executor's.
template <exec::KernelFn F>
Status checkedK(exec::KernelCtx& c) {
  TosaCheckOptions o;
  o.profile = TosaCheckOptions::Profile::Fp;
  o.extensions = {"EXT-INT16", "EXT-BF16"};
  o.level8k = false;
  o.skipNonTosaTypes = true;
  std::vector<TosaViolation> v = validateTosaNode(c.graph(), c.node(), o);
  if (!v.empty()) return c.error("illegal in TOSA {}: {}", tosaSpecVersion(), v.front().message);
  return F(c);
}

}  // namespace

void registerTosaKernels(exec::KernelRegistry& r) {
  r.registerKernel("tosa.CONST", checkedK<constK>);
  r.registerKernel("tosa.CONST_SHAPE", checkedK<constShapeK>);
  r.registerKernel("tosa.TRANSPOSE", checkedK<transposeK>);
  r.registerKernel("tosa.RESHAPE", checkedK<reshapeK>);
  r.registerKernel("tosa.IDENTITY", checkedK<identityK>);
  r.registerKernel("tosa.CAST", checkedK<castK>);
  r.registerKernel("tosa.RESCALE", checkedK<rescaleK>);
  r.registerKernel("tosa.SLICE", checkedK<sliceK>);
  r.registerKernel("tosa.PAD", checkedK<padK>);
  r.registerKernel("tosa.TILE", checkedK<tileK>);
  r.registerKernel("tosa.REVERSE", checkedK<reverseK>);
  r.registerKernel("tosa.CONCAT", checkedK<concatK>);
  r.registerKernel("tosa.GATHER", checkedK<gatherK>);
  r.registerKernel("tosa.ADD", checkedK<binaryK<BinOp::Add>>);
  r.registerKernel("tosa.SUB", checkedK<binaryK<BinOp::Sub>>);
  r.registerKernel("tosa.MUL", checkedK<binaryK<BinOp::Mul>>);
  r.registerKernel("tosa.MAXIMUM", checkedK<binaryK<BinOp::Max>>);
  r.registerKernel("tosa.MINIMUM", checkedK<binaryK<BinOp::Min>>);
  r.registerKernel("tosa.POW", checkedK<powK>);
  r.registerKernel("tosa.INTDIV", checkedK<binaryK<BinOp::IntDiv>>);
  r.registerKernel("tosa.EQUAL", checkedK<binaryK<BinOp::Eq>>);
  r.registerKernel("tosa.GREATER", checkedK<binaryK<BinOp::Gt>>);
  r.registerKernel("tosa.GREATER_EQUAL", checkedK<binaryK<BinOp::Ge>>);
  r.registerKernel("tosa.LOGICAL_AND", checkedK<binaryK<BinOp::And>>);
  r.registerKernel("tosa.LOGICAL_OR", checkedK<binaryK<BinOp::Or>>);
  r.registerKernel("tosa.LOGICAL_XOR", checkedK<binaryK<BinOp::Xor>>);
  r.registerKernel("tosa.BITWISE_AND", checkedK<binaryK<BinOp::BitAnd>>);
  r.registerKernel("tosa.BITWISE_OR", checkedK<binaryK<BinOp::BitOr>>);
  r.registerKernel("tosa.BITWISE_XOR", checkedK<binaryK<BinOp::BitXor>>);
  r.registerKernel("tosa.LOGICAL_LEFT_SHIFT", checkedK<binaryK<BinOp::Shl>>);
  r.registerKernel("tosa.BITWISE_NOT", checkedK<bitwiseNotK>);
  r.registerKernel("tosa.LOGICAL_NOT", checkedK<unaryK<UnOp::Not>>);
  r.registerKernel("tosa.ABS", checkedK<unaryK<UnOp::Abs>>);
  r.registerKernel("tosa.CEIL", checkedK<unaryK<UnOp::Ceil>>);
  r.registerKernel("tosa.FLOOR", checkedK<unaryK<UnOp::Floor>>);
  r.registerKernel("tosa.EXP", checkedK<unaryK<UnOp::Exp>>);
  r.registerKernel("tosa.LOG", checkedK<unaryK<UnOp::Log>>);
  r.registerKernel("tosa.RECIPROCAL", checkedK<unaryK<UnOp::Recip>>);
  r.registerKernel("tosa.RSQRT", checkedK<unaryK<UnOp::Rsqrt>>);
  r.registerKernel("tosa.SIN", checkedK<unaryK<UnOp::Sin>>);
  r.registerKernel("tosa.COS", checkedK<unaryK<UnOp::Cos>>);
  r.registerKernel("tosa.TANH", checkedK<unaryK<UnOp::Tanh>>);
  r.registerKernel("tosa.SIGMOID", checkedK<unaryK<UnOp::Sigmoid>>);
  r.registerKernel("tosa.ERF", checkedK<unaryK<UnOp::Erf>>);
  r.registerKernel("tosa.NEGATE", checkedK<negateK>);
  r.registerKernel("tosa.CLAMP", checkedK<clampK>);
  r.registerKernel("tosa.SELECT", checkedK<selectK>);
  r.registerKernel("tosa.TABLE", checkedK<tableK>);
  r.registerKernel("tosa.REDUCE_SUM", checkedK<reduceK<RedOp::Sum>>);
  r.registerKernel("tosa.REDUCE_MAX", checkedK<reduceK<RedOp::Max>>);
  r.registerKernel("tosa.REDUCE_MIN", checkedK<reduceK<RedOp::Min>>);
  r.registerKernel("tosa.REDUCE_PRODUCT", checkedK<reduceK<RedOp::Prod>>);
  r.registerKernel("tosa.REDUCE_ANY", checkedK<reduceK<RedOp::Any>>);
  r.registerKernel("tosa.REDUCE_ALL", checkedK<reduceK<RedOp::All>>);
  r.registerKernel("tosa.CONV2D", checkedK<conv2dK>);
  r.registerKernel("tosa.DEPTHWISE_CONV2D", checkedK<depthwiseK>);
  r.registerKernel("tosa.TRANSPOSE_CONV2D", checkedK<transposeConvK>);
  r.registerKernel("tosa.CONV3D", checkedK<conv3dK>);
  r.registerKernel("tosa.ARGMAX", checkedK<argmaxK>);
  r.registerKernel("tosa.MATMUL", checkedK<matmulK>);
  r.registerKernel("tosa.AVG_POOL2D", checkedK<poolK<true>>);
  r.registerKernel("tosa.MAX_POOL2D", checkedK<poolK<false>>);
  r.registerKernel("tosa.RESIZE", checkedK<resizeK>);
}

}  // namespace ls::arm
