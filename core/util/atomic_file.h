// Atomic file writes (temp file in the same directory + rename): never a half-written output.
#pragma once

#include <string>
#include <string_view>

#include "core/util/status.h"

namespace ls {

/// Writes `bytes` to `path` atomically: a temporary sibling is written, flushed and renamed
/// over `path`. On failure the previous file (if any) is untouched and the temp is removed.
Status writeFileAtomic(const std::string& path, std::string_view bytes);

/// Reads a whole file; the error names the path.
Result<std::string> readFile(const std::string& path);

}  // namespace ls
