// Arg helpers: enum name tables and float formatting.
#include "core/ir/arg.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <string>

namespace ls::ir {
namespace {

constexpr std::array<std::string_view, 6> kLayouts = {"strided", "sparse_coo", "sparse_csr",
                                                      "sparse_csc", "sparse_bsr", "_mkldnn"};
constexpr std::array<std::string_view, 4> kMemoryFormats = {"contiguous_format", "preserve_format",
                                                            "channels_last", "channels_last_3d"};
constexpr std::array<std::string_view, 7> kDevices = {"cpu", "cuda", "meta", "mps", "xpu", "hip", "mkldnn"};
constexpr std::array<std::string_view, size_t(EnumKind::COUNT)> kKindNames = {"dtype", "layout",
                                                                             "memory_format", "device"};

template <size_t N>
int indexOf(const std::array<std::string_view, N>& table, std::string_view s) {
  for (size_t i = 0; i < N; ++i)
    if (table[i] == s) return int(i);
  return -1;
}

}  // namespace

std::optional<double> Arg::number() const {
  if (auto* i = asInt()) return double(*i);
  if (auto* f = asFloat()) return *f;
  if (auto* b = asBool()) return *b ? 1.0 : 0.0;
  return std::nullopt;
}

std::string_view enumKindName(EnumKind k) { return k < EnumKind::COUNT ? kKindNames[size_t(k)] : "?"; }
std::optional<EnumKind> parseEnumKind(std::string_view s) {
  int i = indexOf(kKindNames, s);
  if (i < 0) return std::nullopt;
  return EnumKind(i);
}

std::string enumToString(const EnumArg& e) {
  switch (e.kind) {
    case EnumKind::DType: return "torch." + std::string(dtypeName(DType(e.value)));
    case EnumKind::Layout:
      return e.value >= 0 && size_t(e.value) < kLayouts.size() ? "torch." + std::string(kLayouts[e.value]) : "?";
    case EnumKind::MemoryFormat:
      return e.value >= 0 && size_t(e.value) < kMemoryFormats.size()
                 ? "torch." + std::string(kMemoryFormats[e.value])
                 : "?";
    case EnumKind::Device: {
      int type = e.value & 0xff, index = (e.value >> 8) - 1;
      std::string s = size_t(type) < kDevices.size() ? std::string(kDevices[type]) : "?";
      if (index >= 0) s += ":" + std::to_string(index);
      return s;
    }
    default: return "?";
  }
}

std::optional<EnumArg> parseEnum(EnumKind kind, std::string_view name) {
  std::string_view s = name;
  if (s.substr(0, 6) == "torch.") s.remove_prefix(6);
  switch (kind) {
    case EnumKind::DType: {
      auto d = parseDType(s);
      if (!d) return std::nullopt;
      return EnumArg{kind, int32_t(*d)};
    }
    case EnumKind::Layout: {
      int i = indexOf(kLayouts, s);
      if (i < 0) return std::nullopt;
      return EnumArg{kind, i};
    }
    case EnumKind::MemoryFormat: {
      int i = indexOf(kMemoryFormats, s);
      if (i < 0) return std::nullopt;
      return EnumArg{kind, i};
    }
    case EnumKind::Device: {
      if (s.substr(0, 7) == "device(") {  // "device(type='cpu')"
        auto q1 = s.find('\''), q2 = s.rfind('\'');
        if (q1 == std::string_view::npos || q2 <= q1) return std::nullopt;
        s = s.substr(q1 + 1, q2 - q1 - 1);
      }
      int index = -1;
      auto colon = s.find(':');
      if (colon != std::string_view::npos) {
        index = 0;
        for (char c : s.substr(colon + 1)) {
          if (c < '0' || c > '9' || index > 1000) return std::nullopt;
          index = index * 10 + (c - '0');
        }
        s = s.substr(0, colon);
      }
      int t = indexOf(kDevices, s);
      if (t < 0) return std::nullopt;
      return EnumArg{kind, t | ((index + 1) << 8)};
    }
    default: return std::nullopt;
  }
}

std::string formatFloat(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

}  // namespace ls::ir
