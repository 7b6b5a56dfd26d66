// Arg: one positional or keyword argument of a node (value refs, scalars, lists, enums).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/ir/dtype.h"

namespace ls::ir {

using NodeId = uint32_t;
inline constexpr NodeId kInvalidNode = UINT32_MAX;

/// A reference to output `output` of node `node`. In lists, node == kInvalidNode is None.
struct ValueRef {
  NodeId node = kInvalidNode;
  uint32_t output = 0;
  bool isNone() const { return node == kInvalidNode; }
  bool operator==(const ValueRef&) const = default;
};

enum class EnumKind : uint8_t { DType, Layout, MemoryFormat, Device, COUNT };

/// A torch enum value. For DType, `value` is an ir::DType; for Layout and MemoryFormat an
/// index into the name tables in arg.cpp; for Device, deviceType | (index + 1) << 8.
struct EnumArg {
  EnumKind kind = EnumKind::DType;
  int32_t value = 0;
  bool operator==(const EnumArg&) const = default;
};

/// A Python slice; absent bounds are nullopt.
struct SliceArg {
  std::optional<int64_t> start, stop, step;
  bool operator==(const SliceArg&) const = default;
};

using IntList = std::vector<int64_t>;
using FloatList = std::vector<double>;
using BoolList = std::vector<uint8_t>;
using RefList = std::vector<ValueRef>;

/// Positional or keyword argument value. The variant's index order is part of the .lsg
/// format (see core/io/schema/lsg.fbs); append new kinds at the end only.
using ArgValue = std::variant<std::monostate, bool, int64_t, double, std::string, EnumArg, ValueRef,
                              IntList, FloatList, BoolList, RefList, SliceArg>;

enum class ArgKind : uint8_t {
  None,
  Bool,
  Int,
  Float,
  String,
  Enum,
  Ref,
  IntList,
  FloatList,
  BoolList,
  RefList,
  Slice,
  COUNT
};

struct Arg {
  ArgValue v;

  Arg() = default;
  template <typename T>
  Arg(T value) : v(std::move(value)) {}  // NOLINT: implicit by design
  Arg(int value) : v(int64_t(value)) {}  // NOLINT
  Arg(const char* s) : v(std::string(s)) {}  // NOLINT

  ArgKind kind() const { return ArgKind(v.index()); }
  bool isNone() const { return kind() == ArgKind::None; }
  bool isRef() const { return kind() == ArgKind::Ref; }
  bool isNumber() const { return kind() == ArgKind::Int || kind() == ArgKind::Float || kind() == ArgKind::Bool; }
  const ValueRef* ref() const { return std::get_if<ValueRef>(&v); }
  const int64_t* asInt() const { return std::get_if<int64_t>(&v); }
  const double* asFloat() const { return std::get_if<double>(&v); }
  const bool* asBool() const { return std::get_if<bool>(&v); }
  const IntList* asIntList() const { return std::get_if<IntList>(&v); }
  const RefList* asRefList() const { return std::get_if<RefList>(&v); }
  const std::string* asString() const { return std::get_if<std::string>(&v); }
  const EnumArg* asEnum() const { return std::get_if<EnumArg>(&v); }
  /// Numeric value of an Int/Float/Bool arg.
  std::optional<double> number() const;

  bool operator==(const Arg& o) const { return v == o.v; }
};

struct Kwarg {
  std::string name;
  Arg value;
  bool operator==(const Kwarg&) const = default;
};

/// Name tables for enums: "torch.float32", "torch.strided", "torch.channels_last", "cpu".
std::string enumToString(const EnumArg& e);
/// Parses a torch enum name of the given kind ("torch.contiguous_format", "cuda:0").
std::optional<EnumArg> parseEnum(EnumKind kind, std::string_view name);
std::string_view enumKindName(EnumKind k);
std::optional<EnumKind> parseEnumKind(std::string_view s);

/// Float printed so that it parses back to the same double ("inf", "-inf", "nan" for
/// non-finite values; integral values keep a ".0").
std::string formatFloat(double v);

}  // namespace ls::ir
