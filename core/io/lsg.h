// The native graph file (.lsg): one ir::Graph as a verified, versioned flatbuffer (lsg.fbs).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "core/ir/graph.h"
#include "core/util/status.h"

namespace ls::io {

/// Format version written by this build: (major << 16) | minor (see lsg.fbs).
inline constexpr uint32_t kLsgVersionMajor = 1;
inline constexpr uint32_t kLsgVersionMinor = 0;
inline constexpr uint32_t kLsgVersion = (kLsgVersionMajor << 16) | kLsgVersionMinor;
/// The 4-character flatbuffers file identifier of .lsg files.
inline constexpr char kLsgIdentifier[] = "LSG1";

/// Serialises `g` (nodes, metadata, constants with their bytes, nested subgraphs) to .lsg
/// bytes. Fails, naming the node, when a value's metadata is not storable (see
/// tensorMetaProblem in lsg_graph.h).
Result<std::string> serializeLsg(const ir::Graph& g);

/// Serialises as serializeLsg does and hands the finished bytes to `use` without copying them
/// (they live in the writer's buffer and are valid only during the call); `use`'s status is
/// returned. saveLsg writes the file from there.
Status serializeLsgTo(const ir::Graph& g, const std::function<Status(std::string_view)>& use);

/// Serialises and writes atomically (temp file + rename): `path` is either replaced
/// completely or left untouched.
Status saveLsg(const ir::Graph& g, const std::string& path);

/// Loads .lsg bytes. Checks the identifier, verifies the flatbuffer before reading anything,
/// refuses a newer major version, then checks every index, enum, rank, dim order, blob size
/// and reference. Errors start with `sourceName` and name the node where there is one.
/// Never crashes, whatever the bytes. Thread-safe (op interning is). With `bytesOwner` (which
/// keeps `bytes` alive), constants view their bytes in place instead of copying them.
Result<ir::Graph> loadLsgBytes(std::string_view bytes, const std::string& sourceName,
                               std::shared_ptr<const void> bytesOwner = nullptr);

/// Reads and loads a .lsg file; errors name `path`.
Result<ir::Graph> loadLsg(const std::string& path);

/// True when `bytes` carry the .lsg file identifier (a cheap sniff; not a validity check).
bool looksLikeLsg(std::string_view bytes);

}  // namespace ls::io
