#include "core/io/flatbuffer_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace ls::io {

std::string FlatbufferBytes::identifierText(std::string_view bytes) {
  std::string id;
  for (size_t i = 4; i < 8 && i < bytes.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(bytes[i]);
    id += (c >= 0x20 && c < 0x7f) ? std::string(1, char(c)) : fmt::format("\\x{:02x}", c);
  }
  return id;
}

Result<FlatbufferBytes> FlatbufferBytes::open(std::string_view bytes, const std::string& sourceName,
                                              const char* identifier, std::string_view what,
                                              std::string_view fileKind) {
  if (bytes.empty()) return Status::error(fmt::format("{}: empty file, expected {}", sourceName, what));
  if (bytes.size() < 8)
    return Status::error(fmt::format("{}: file too short ({} bytes) to be {}", sourceName, bytes.size(), what));
  if (std::memcmp(bytes.data() + 4, identifier, 4) != 0)
    return Status::error(fmt::format("{}: not {} (file identifier '{}', expected '{}')", sourceName, fileKind,
                                     identifierText(bytes), identifier));
  if (bytes.size() >= FLATBUFFERS_MAX_BUFFER_SIZE)
    return Status::error(fmt::format("{}: file too large ({} bytes) for a flatbuffer", sourceName, bytes.size()));
  FlatbufferBytes f;
  f.size_ = bytes.size();
  f.data_ = reinterpret_cast<const uint8_t*>(bytes.data());
  if (reinterpret_cast<uintptr_t>(f.data_) % alignof(Chunk) != 0) {
    f.aligned_.resize((bytes.size() + sizeof(Chunk) - 1) / sizeof(Chunk));
    std::memcpy(f.aligned_.data(), bytes.data(), bytes.size());
    f.data_ = f.aligned_.data()->b;
  }
  return f;
}

flatbuffers::Verifier::Options FlatbufferBytes::verifierOptions(flatbuffers::uoffset_t maxDepth) const {
  flatbuffers::Verifier::Options opts;
  opts.max_depth = maxDepth;
  opts.max_tables = flatbuffers::uoffset_t(std::min<size_t>(size_ / 4 + 64, 0x7fffffff));
  opts.check_alignment = true;
  return opts;
}

}  // namespace ls::io
