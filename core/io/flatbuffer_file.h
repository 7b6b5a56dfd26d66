// The checks every Lowerscope flatbuffers reader (.lsg, .lstrace, .tosa) does before its
// schema's Verifier runs: non-empty, long enough, the 4-character file identifier, under the
// flatbuffers size limit; then 16-byte aligned storage (flatbuffers reads scalars in place)
// and Verifier options with a table budget.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/status.h"

namespace ls::io {

class FlatbufferBytes {
 public:
  /// `what` names the expected content in errors ("an .lsg graph"), `fileKind` the format
  /// ("an .lsg file"); errors start with `sourceName`.
  static Result<FlatbufferBytes> open(std::string_view bytes, const std::string& sourceName, const char* identifier,
                                      std::string_view what, std::string_view fileKind);

  FlatbufferBytes(FlatbufferBytes&&) noexcept = default;
  FlatbufferBytes& operator=(FlatbufferBytes&&) noexcept = default;
  FlatbufferBytes(const FlatbufferBytes&) = delete;
  FlatbufferBytes& operator=(const FlatbufferBytes&) = delete;

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  /// Verifier options: nesting limit `maxDepth`, alignment checked, and at most one table
  /// visit per 4 bytes (+64): a tree-shaped buffer never needs more, so shared (DAG) offsets
  /// crafted to blow up the work are rejected.
  flatbuffers::Verifier::Options verifierOptions(flatbuffers::uoffset_t maxDepth) const;

  /// The 4 identifier bytes, printable (non-ASCII as \xNN).
  static std::string identifierText(std::string_view bytes);

 private:
  FlatbufferBytes() = default;
  struct alignas(16) Chunk {
    uint8_t b[16];
  };
  std::vector<Chunk> aligned_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace ls::io
