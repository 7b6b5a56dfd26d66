// Tensor storage, element conversions (incl. f16/bf16) and printing.
#include "core/exec/tensor.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <limits>

namespace ls::exec {

using ir::DType;

// ---------------------------------------------------------------- f16 / bf16

float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: renormalise
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      bits = sign | uint32_t(127 - 15 - e) << 23 | (mant & 0x3ffu) << 13;
    }
  } else if (exp == 0x1f) {
    bits = sign | 0x7f800000u | mant << 13;
  } else {
    bits = sign | (exp + 127 - 15) << 23 | mant << 13;
  }
  return std::bit_cast<float>(bits);
}

uint16_t floatToHalf(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint16_t sign = uint16_t((x >> 16) & 0x8000u);
  uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) return uint16_t(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0));  // inf/nan
  if (absx >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // rounds to >= 65520: overflow to inf
  if (absx < 0x38800000u) {  // below the smallest normal half: subnormal or zero
    float a = std::bit_cast<float>(absx);
    // Scale so that one half-subnormal ulp (2^-24) is 1.0, then round to nearest even.
    float scaled = a * 16777216.0f;
    return uint16_t(sign | uint16_t(std::nearbyint(scaled)));
  }
  uint32_t mant = absx & 0x7fffffu;
  uint32_t exp = (absx >> 23) - 127 + 15;
  uint32_t half = exp << 10 | mant >> 13;
  uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;  // round to nearest even
  return uint16_t(sign | half);
}

float bfloat16ToFloat(uint16_t b) { return std::bit_cast<float>(uint32_t(b) << 16); }

uint16_t floatToBfloat16(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40u);  // quiet nan
  uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  return uint16_t((x + rounding) >> 16);
}

// ---------------------------------------------------------------- construction

std::vector<int64_t> contiguousStrides(const ir::Shape& shape) {
  std::vector<int64_t> s(size_t(shape.rank()), 1);
  for (int i = shape.rank() - 2; i >= 0; --i) s[size_t(i)] = s[size_t(i) + 1] * shape[i + 1];
  return s;
}

Tensor::Tensor(DType dtype, const ir::Shape& shape) : dtype_(dtype), shape_(shape) {
  auto v = std::make_shared<std::vector<uint8_t>>(size_t(shape.numel()) * size_t(ir::dtypeSize(dtype)));
  data_ = v->data();
  owner_ = std::move(v);
  vector_ = true;
}

Tensor Tensor::uninitialized(DType dtype, const ir::Shape& shape) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = shape;
  const size_t n = size_t(shape.numel()) * size_t(ir::dtypeSize(dtype));
  std::shared_ptr<uint8_t[]> bytes = std::make_shared_for_overwrite<uint8_t[]>(std::max<size_t>(n, 1));
  t.data_ = bytes.get();
  t.owner_ = std::move(bytes);
  return t;
}

Tensor Tensor::fromFloats(const ir::Shape& shape, std::vector<float> values) {
  Tensor t(DType::Float32, shape);
  assert(int64_t(values.size()) == shape.numel());
  std::memcpy(t.bytes(), values.data(), std::min(values.size() * sizeof(float), t.nbytes()));
  return t;
}

Tensor Tensor::fromDoubles(DType dtype, const ir::Shape& shape, const std::vector<double>& values) {
  Tensor t(dtype, shape);
  assert(int64_t(values.size()) == shape.numel());
  for (int64_t i = 0; i < std::min<int64_t>(t.numel(), int64_t(values.size())); ++i) t.setDouble(i, values[size_t(i)]);
  return t;
}

Tensor Tensor::fromInts(DType dtype, const ir::Shape& shape, const std::vector<int64_t>& values) {
  Tensor t(dtype, shape);
  assert(int64_t(values.size()) == shape.numel());
  for (int64_t i = 0; i < std::min<int64_t>(t.numel(), int64_t(values.size())); ++i) t.setInt(i, values[size_t(i)]);
  return t;
}

Tensor Tensor::scalar(DType dtype, double value) {
  Tensor t(dtype, ir::Shape{});
  t.setDouble(0, value);
  return t;
}

Tensor Tensor::fromBytes(DType dtype, const ir::Shape& shape, std::span<const uint8_t> bytes) {
  Tensor t(dtype, shape);
  const size_t n = std::min(bytes.size(), t.nbytes());
  if (n) std::memcpy(t.bytes(), bytes.data(), n);  // an empty tensor may have no storage at all
  return t;
}

Tensor Tensor::fromVector(DType dtype, const ir::Shape& shape, std::vector<uint8_t> bytes) {
  assert(bytes.size() == size_t(shape.numel()) * size_t(ir::dtypeSize(dtype)));
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = shape;
  auto v = std::make_shared<std::vector<uint8_t>>(std::move(bytes));
  t.data_ = v->data();
  t.owner_ = std::move(v);
  t.vector_ = true;
  return t;
}

Tensor Tensor::view(DType dtype, const ir::Shape& shape, std::span<const uint8_t> bytes,
                    std::shared_ptr<const void> owner) {
  assert(bytes.size() == size_t(shape.numel()) * size_t(ir::dtypeSize(dtype)));
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = shape;
  // Shares ownership with the owner of the bytes; view_ stops writable()/releaseBytes() from
  // handing them out for writing (data_ is non-const only for the owned case).
  t.data_ = const_cast<uint8_t*>(bytes.data());
  t.owner_ = std::move(owner);
  t.view_ = true;
  return t;
}

// ---------------------------------------------------------------- element access

double Tensor::getDouble(int64_t i) const {
  const uint8_t* p = bytes();
  switch (dtype_) {
    case DType::Bool: return p[i] != 0 ? 1.0 : 0.0;
    case DType::UInt8: return double(p[i]);
    case DType::Int8: return double(reinterpret_cast<const int8_t*>(p)[i]);
    case DType::UInt16: return double(reinterpret_cast<const uint16_t*>(p)[i]);
    case DType::Int16: return double(reinterpret_cast<const int16_t*>(p)[i]);
    case DType::Int32: return double(reinterpret_cast<const int32_t*>(p)[i]);
    case DType::Int64: return double(reinterpret_cast<const int64_t*>(p)[i]);
    case DType::Float16: return double(halfToFloat(reinterpret_cast<const uint16_t*>(p)[i]));
    case DType::BFloat16: return double(bfloat16ToFloat(reinterpret_cast<const uint16_t*>(p)[i]));
    case DType::Float32: return double(reinterpret_cast<const float*>(p)[i]);
    case DType::Float64: return reinterpret_cast<const double*>(p)[i];
    default: return 0.0;
  }
}

int64_t Tensor::getInt(int64_t i) const {
  const uint8_t* p = bytes();
  switch (dtype_) {
    case DType::Bool: return p[i] != 0;
    case DType::UInt8: return p[i];
    case DType::Int8: return reinterpret_cast<const int8_t*>(p)[i];
    case DType::UInt16: return reinterpret_cast<const uint16_t*>(p)[i];
    case DType::Int16: return reinterpret_cast<const int16_t*>(p)[i];
    case DType::Int32: return reinterpret_cast<const int32_t*>(p)[i];
    case DType::Int64: return reinterpret_cast<const int64_t*>(p)[i];
    default: {
      double d = getDouble(i);
      if (!std::isfinite(d)) return 0;
      return int64_t(d);
    }
  }
}

namespace {
// Float -> integer cast as C++/torch do it (truncation), saturating out-of-range values so the
// conversion is defined.
template <typename I>
I castFloatToInt(double v) {
  if (std::isnan(v)) return 0;
  double t = std::trunc(v);
  if (t <= double(std::numeric_limits<int64_t>::min())) return I(std::numeric_limits<int64_t>::min());
  if (t >= double(std::numeric_limits<int64_t>::max())) return I(std::numeric_limits<int64_t>::max());
  return I(int64_t(t));  // wraps to the narrower width like torch's cast through int64
}
}  // namespace

void Tensor::setDouble(int64_t i, double v) {
  uint8_t* p = bytes();
  switch (dtype_) {
    case DType::Bool: p[i] = v != 0.0; break;
    case DType::UInt8: p[i] = castFloatToInt<uint8_t>(v); break;
    case DType::Int8: reinterpret_cast<int8_t*>(p)[i] = castFloatToInt<int8_t>(v); break;
    case DType::UInt16: reinterpret_cast<uint16_t*>(p)[i] = castFloatToInt<uint16_t>(v); break;
    case DType::Int16: reinterpret_cast<int16_t*>(p)[i] = castFloatToInt<int16_t>(v); break;
    case DType::Int32: reinterpret_cast<int32_t*>(p)[i] = castFloatToInt<int32_t>(v); break;
    case DType::Int64: reinterpret_cast<int64_t*>(p)[i] = castFloatToInt<int64_t>(v); break;
    case DType::Float16: reinterpret_cast<uint16_t*>(p)[i] = floatToHalf(float(v)); break;
    case DType::BFloat16: reinterpret_cast<uint16_t*>(p)[i] = floatToBfloat16(float(v)); break;
    case DType::Float32: reinterpret_cast<float*>(p)[i] = float(v); break;
    case DType::Float64: reinterpret_cast<double*>(p)[i] = v; break;
    default: break;
  }
}

void Tensor::setInt(int64_t i, int64_t v) {
  uint8_t* p = bytes();
  switch (dtype_) {
    case DType::Bool: p[i] = v != 0; break;
    case DType::UInt8: p[i] = uint8_t(v); break;
    case DType::Int8: reinterpret_cast<int8_t*>(p)[i] = int8_t(v); break;
    case DType::UInt16: reinterpret_cast<uint16_t*>(p)[i] = uint16_t(v); break;
    case DType::Int16: reinterpret_cast<int16_t*>(p)[i] = int16_t(v); break;
    case DType::Int32: reinterpret_cast<int32_t*>(p)[i] = int32_t(v); break;
    case DType::Int64: reinterpret_cast<int64_t*>(p)[i] = v; break;
    default: setDouble(i, double(v)); break;
  }
}

std::vector<float> Tensor::toFloats() const {
  std::vector<float> out(static_cast<size_t>(numel()));
  if (dtype_ == DType::Float32) {
    std::memcpy(out.data(), bytes(), nbytes());
  } else {
    for (int64_t i = 0; i < numel(); ++i) out[size_t(i)] = float(getDouble(i));
  }
  return out;
}

std::vector<double> Tensor::toDoubles() const {
  std::vector<double> out(static_cast<size_t>(numel()));
  for (int64_t i = 0; i < numel(); ++i) out[size_t(i)] = getDouble(i);
  return out;
}

std::vector<int64_t> Tensor::toInts() const {
  std::vector<int64_t> out(static_cast<size_t>(numel()));
  for (int64_t i = 0; i < numel(); ++i) out[size_t(i)] = getInt(i);
  return out;
}

// ---------------------------------------------------------------- derived tensors

Tensor Tensor::reshaped(const ir::Shape& shape) const {
  assert(shape.numel() == numel());
  Tensor t = *this;
  t.shape_ = shape;
  return t;
}

Tensor Tensor::to(DType dtype) const {
  if (dtype == dtype_) return *this;
  Tensor t(dtype, shape_);
  const int64_t n = numel();
  if (dtype == DType::Float32 && dtype_ == DType::Float64) {
    const double* s = data<double>();
    float* d = t.data<float>();
    for (int64_t i = 0; i < n; ++i) d[i] = float(s[i]);
  } else if (dtype == DType::Float64 && dtype_ == DType::Float32) {
    const float* s = data<float>();
    double* d = t.data<double>();
    for (int64_t i = 0; i < n; ++i) d[i] = double(s[i]);
  } else if (ir::isIntegral(dtype_, true) && ir::isIntegral(dtype, true)) {
    for (int64_t i = 0; i < n; ++i) t.setInt(i, getInt(i));
  } else {
    for (int64_t i = 0; i < n; ++i) t.setDouble(i, getDouble(i));
  }
  return t;
}

Tensor Tensor::clone() const {
  if (!defined()) return *this;
  Tensor t(dtype_, shape_);
  std::memcpy(t.bytes(), bytes(), nbytes());
  return t;
}

Tensor Tensor::writable() && {
  if (!defined() || view_ || sharesStorage()) return clone();
  return std::move(*this);
}

std::vector<uint8_t> Tensor::releaseBytes() && {
  std::vector<uint8_t> out;
  if (vector_ && !sharesStorage())
    out = std::move(*std::const_pointer_cast<std::vector<uint8_t>>(std::static_pointer_cast<const std::vector<uint8_t>>(owner_)));
  else if (data_) out.assign(bytes(), bytes() + nbytes());
  *this = Tensor();
  return out;
}

std::string Tensor::toString(int maxElements) const {
  if (!defined()) return "undefined";
  std::string s = ir::toString(meta()) + " {";
  int64_t n = std::min<int64_t>(numel(), maxElements);
  for (int64_t i = 0; i < n; ++i) {
    if (i) s += ", ";
    if (ir::isFloating(dtype_)) s += fmt::format("{:.6g}", getDouble(i));
    else s += std::to_string(getInt(i));
  }
  if (numel() > n) s += ", ...";
  return s + "}";
}

}  // namespace ls::exec
