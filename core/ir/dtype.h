// Scalar element types (torch dtypes) with names, sizes and promotion categories.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ls::ir {

enum class DType : uint8_t {
  Undefined,
  Bool,
  UInt8,
  Int8,
  UInt16,
  Int16,
  Int32,
  Int64,
  Float16,
  BFloat16,
  Float32,
  Float64,
  Complex64,
  Complex128,
  COUNT
};

/// torch name without prefix ("float32"); "undefined" for Undefined.
std::string_view dtypeName(DType t);
/// Short printer name ("f32", "i8", "bool").
std::string_view dtypeShortName(DType t);
/// Parses "float32", "torch.float32", "float", "long", "int", "half", ... (torch aliases).
std::optional<DType> parseDType(std::string_view s);
/// Size of one element in bytes (0 for Undefined).
int dtypeSize(DType t);

bool isFloating(DType t);  // f16, bf16, f32, f64
bool isComplex(DType t);
bool isIntegral(DType t, bool includeBool);
/// Promotion category used by torch.result_type: 0 bool, 1 integer, 2 floating, 3 complex.
int dtypeCategory(DType t);
/// torch.promote_types for two dtypes.
DType promoteTypes(DType a, DType b);

/// Integer codes used by torch's ScalarType enum (for int-encoded dtype args).
std::optional<DType> dtypeFromTorchScalarType(int64_t code);
int torchScalarTypeCode(DType t);

}  // namespace ls::ir
