// Opens any graph file Lowerscope reads: .lsg (sniffed by identifier) or fxjson.
#pragma once

#include <string>

#include "core/io/fxjson.h"
#include "core/ir/graph.h"

namespace ls::io {

/// Loads `path` as .lsg when it carries the LSG1 identifier, else as fxjson. Errors name the file.
Result<ir::Graph> loadGraphFile(const std::string& path, ImportReport* report = nullptr);

}  // namespace ls::io
