// Opens any graph file Lowerscope reads: .lsg (sniffed by identifier), fxjson, and the formats a
// backend registers (e.g. the Arm backend's TOSA 1.0 flatbuffers), so io never names a backend.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/io/fxjson.h"
#include "core/ir/graph.h"

namespace ls::io {

/// A graph format a backend adds. `sniff` says whether bytes are in the format (checked before
/// the extension, so a renamed file still opens); `extension` (with its dot) picks the format for
/// bytes no sniffer claims, so a broken file of the format gets that format's error.
struct GraphFormat {
  std::string name;
  std::string extension;
  std::function<bool(std::string_view bytes)> sniff;
  /// Non-fatal findings (a newer format version, fields or ops this build does not know) go to
  /// `report` when it is not null.
  std::function<Result<ir::Graph>(std::string_view bytes, const std::string& sourceName, ImportReport* report)> load;
};

/// Adds or replaces (by name) a format. Thread-safe; call at start-up, from a backend's registration.
void registerGraphFormat(GraphFormat f);

/// The registered formats' names and extensions ("tosa (.tosa)"), for help texts.
std::vector<std::string> graphFormatNames();
/// The registered formats' extensions, with their dots (".tosa"), for file pickers.
std::vector<std::string> graphFormatExtensions();

/// How loadGraphFile reaches a file's bytes. `Map`: an .lsg is mapped and its constants view
/// the mapping (no copy; see FileBytes for the caveat, so for short-lived readers such as the
/// CLI); other formats are read as with `Read`, which copies the file into memory.
enum class FileAccess { Read, Map };

/// Loads `path`: .lsg when it carries the LSG1 identifier, a registered format when its sniffer
/// claims the bytes or the path has its extension, else fxjson. Errors name the file.
Result<ir::Graph> loadGraphFile(const std::string& path, ImportReport* report = nullptr,
                                FileAccess access = FileAccess::Read);

/// The same for bytes already read; `sourceName` is used in errors and as the model's name.
Result<ir::Graph> loadGraphBytes(std::string_view bytes, const std::string& sourceName,
                                 ImportReport* report = nullptr);

}  // namespace ls::io
