// Atomic file writes (temp file in the same directory + rename): never a half-written output;
// whole-file reads (readFile) and read-only mappings (FileBytes).
#pragma once

#include <cstddef>
#include <memory>
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

/// The bytes of a whole file, read-only. A non-empty regular file is mapped (its pages are the
/// page cache's: nothing is copied or zero-filled); anything else is read (readFile). Caveat of a mapping: a file truncated in place by another program while
/// mapped faults on access, so only short-lived readers (the CLI) map; a program that keeps
/// files open for long (the app) reads them.
class FileBytes {
 public:
  static Result<std::shared_ptr<const FileBytes>> map(const std::string& path);
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;
  ~FileBytes();
  std::string_view bytes() const { return {data_, size_}; }
  bool mapped() const { return mapped_; }

 private:
  FileBytes() = default;
  const char* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;
  std::string read_;  ///< the bytes when not mapped
};

}  // namespace ls
