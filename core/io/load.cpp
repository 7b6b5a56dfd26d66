// Format dispatch for graph files.
#include "core/io/load.h"

#include "core/io/lsg.h"
#include "core/util/atomic_file.h"

namespace ls::io {

Result<ir::Graph> loadGraphFile(const std::string& path, ImportReport* report) {
  auto bytes = readFile(path);
  if (!bytes) return bytes.status();
  std::string name = path.substr(path.find_last_of('/') + 1);
  if (looksLikeLsg(bytes.value())) return loadLsgBytes(bytes.value(), name);
  return importFxJson(bytes.value(), name, report);
}

}  // namespace ls::io
