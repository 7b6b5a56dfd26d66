// Atomic file writes (temp file in the same directory + rename): never a half-written output.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/util/status.h"

namespace ls {

/// Writes `bytes` to `path` atomically: a temporary sibling is written, flushed and renamed
/// over `path`. On failure the previous file (if any) is untouched and the temp is removed.
Status writeFileAtomic(const std::string& path, std::string_view bytes);

/// Bytes of spare capacity readFile's result always has after its end, so a parser that reads
/// whole SIMD blocks (simdjson needs 64) can parse it in place instead of copying it first.
inline constexpr size_t kReadFilePadding = 64;

/// Reads a whole file (one read of its size for a regular file); the error names the path.
/// The result has at least kReadFilePadding bytes of capacity beyond its size.
Result<std::string> readFile(const std::string& path);

}  // namespace ls
