// DType names, parsing and torch type promotion.
#include "core/ir/dtype.h"

#include <array>
#include <string>

namespace ls::ir {
namespace {

struct DTypeInfo {
  std::string_view name;
  std::string_view shortName;
  int size;
  int torchCode;
};

constexpr std::array<DTypeInfo, size_t(DType::COUNT)> kInfo = {{
    {"undefined", "?", 0, -1},
    {"bool", "bool", 1, 11},
    {"uint8", "u8", 1, 0},
    {"int8", "i8", 1, 1},
    {"uint16", "u16", 2, 27},
    {"int16", "i16", 2, 2},
    {"int32", "i32", 4, 3},
    {"int64", "i64", 8, 4},
    {"float16", "f16", 2, 5},
    {"bfloat16", "bf16", 2, 15},
    {"float32", "f32", 4, 6},
    {"float64", "f64", 8, 7},
    {"complex64", "c64", 8, 9},
    {"complex128", "c128", 16, 10},
}};
static_assert(kInfo.size() == size_t(DType::COUNT), "dtype table must cover every DType");

}  // namespace

std::string_view dtypeName(DType t) { return t < DType::COUNT ? kInfo[size_t(t)].name : "invalid"; }
std::string_view dtypeShortName(DType t) {
  return t < DType::COUNT ? kInfo[size_t(t)].shortName : "invalid";
}
int dtypeSize(DType t) { return t < DType::COUNT ? kInfo[size_t(t)].size : 0; }

std::optional<DType> parseDType(std::string_view s) {
  if (s.substr(0, 6) == "torch.") s.remove_prefix(6);
  for (size_t i = 1; i < kInfo.size(); ++i)
    if (kInfo[i].name == s) return DType(i);
  if (s == "float") return DType::Float32;
  if (s == "double") return DType::Float64;
  if (s == "half") return DType::Float16;
  if (s == "long") return DType::Int64;
  if (s == "int") return DType::Int32;
  if (s == "short") return DType::Int16;
  if (s == "cfloat") return DType::Complex64;
  if (s == "cdouble") return DType::Complex128;
  return std::nullopt;
}

bool isFloating(DType t) {
  return t == DType::Float16 || t == DType::BFloat16 || t == DType::Float32 || t == DType::Float64;
}
bool isComplex(DType t) { return t == DType::Complex64 || t == DType::Complex128; }
bool isIntegral(DType t, bool includeBool) {
  switch (t) {
    case DType::Bool: return includeBool;
    case DType::UInt8:
    case DType::Int8:
    case DType::UInt16:
    case DType::Int16:
    case DType::Int32:
    case DType::Int64: return true;
    default: return false;
  }
}
int dtypeCategory(DType t) {
  if (t == DType::Bool) return 0;
  if (isIntegral(t, false)) return 1;
  if (isFloating(t)) return 2;
  if (isComplex(t)) return 3;
  return -1;
}

DType promoteTypes(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::Undefined) return b;
  if (b == DType::Undefined) return a;
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  int ca = dtypeCategory(a), cb = dtypeCategory(b);
  if (ca != cb) {
    if (ca > cb) std::swap(a, b), std::swap(ca, cb);
    // b has the higher category.
    if (cb == 3) {
      // complex with float64 -> complex128
      if (a == DType::Float64) return DType::Complex128;
      return b;
    }
    return b;  // integer with floating -> the floating type
  }
  if (ca == 1) {
    // Both integers. uint8 with signed -> smallest signed that holds both.
    auto rank = [](DType t) {
      switch (t) {
        case DType::Int8: return 1;
        case DType::Int16: return 2;
        case DType::Int32: return 3;
        case DType::Int64: return 4;
        default: return 0;
      }
    };
    auto isUnsigned = [](DType t) { return t == DType::UInt8 || t == DType::UInt16; };
    if (isUnsigned(a) && isUnsigned(b)) return dtypeSize(a) >= dtypeSize(b) ? a : b;
    if (isUnsigned(a) || isUnsigned(b)) {
      DType u = isUnsigned(a) ? a : b, s = isUnsigned(a) ? b : a;
      if (u == DType::UInt8) return s == DType::Int8 ? DType::Int16 : s;
      // uint16 with signed: needs > 16 signed bits
      return rank(s) >= 3 ? s : DType::Int32;
    }
    return rank(a) >= rank(b) ? a : b;
  }
  if (ca == 2) {
    // float16 + bfloat16 -> float32
    if ((a == DType::Float16 && b == DType::BFloat16) || (a == DType::BFloat16 && b == DType::Float16))
      return DType::Float32;
    return dtypeSize(a) >= dtypeSize(b) ? a : b;
  }
  return dtypeSize(a) >= dtypeSize(b) ? a : b;
}

std::optional<DType> dtypeFromTorchScalarType(int64_t code) {
  for (size_t i = 1; i < kInfo.size(); ++i)
    if (kInfo[i].torchCode == code) return DType(i);
  return std::nullopt;
}
int torchScalarTypeCode(DType t) { return t < DType::COUNT ? kInfo[size_t(t)].torchCode : -1; }

}  // namespace ls::ir
