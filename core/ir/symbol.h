// Interned op names: an OpId is a dense integer per distinct op overload name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ls::ir {

using OpId = uint32_t;
inline constexpr OpId kNoOp = 0;  ///< id 0 is reserved for "no op" (placeholder/get_attr/output)

/// Returns the id of `name`, interning it on first use. Thread-safe.
OpId internOp(std::string_view name);
/// Returns the id of `name` if interned, else kNoOp. Thread-safe.
OpId findOp(std::string_view name);
/// The name of an interned op ("" for kNoOp). The reference stays valid forever.
const std::string& opName(OpId id);
/// Number of interned ids (exclusive upper bound of OpId values).
uint32_t opCount();

}  // namespace ls::ir
