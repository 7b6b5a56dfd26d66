// Format dispatch for graph files.
#include "core/io/load.h"

#include <mutex>

#include "core/io/lsg.h"
#include "core/util/atomic_file.h"

namespace ls::io {

namespace {
std::mutex& formatsMutex() {
  static std::mutex m;
  return m;
}
std::vector<GraphFormat>& formats() {
  static std::vector<GraphFormat> v;
  return v;
}
bool endsWith(std::string_view s, std::string_view suffix) {
  return !suffix.empty() && s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
}  // namespace

void registerGraphFormat(GraphFormat f) {
  std::lock_guard<std::mutex> lock(formatsMutex());
  for (GraphFormat& g : formats())
    if (g.name == f.name) {
      g = std::move(f);
      return;
    }
  formats().push_back(std::move(f));
}

std::vector<std::string> graphFormatNames() {
  std::lock_guard<std::mutex> lock(formatsMutex());
  std::vector<std::string> out;
  for (const GraphFormat& f : formats()) out.push_back(f.name + " (" + f.extension + ")");
  return out;
}

std::vector<std::string> graphFormatExtensions() {
  std::lock_guard<std::mutex> lock(formatsMutex());
  std::vector<std::string> out;
  for (const GraphFormat& f : formats())
    if (!f.extension.empty()) out.push_back(f.extension);
  return out;
}

namespace {
/// `padded`: readFile's bytes, which fxjson parses in place. `owner`: keeps `bytes` alive (an
/// .lsg's constants then view them in place).
Result<ir::Graph> loadBytes(std::string_view bytes, bool padded, const std::string& sourceName, ImportReport* report,
                            std::shared_ptr<const void> owner = nullptr) {
  if (looksLikeLsg(bytes)) return loadLsgBytes(bytes, sourceName, std::move(owner));
  std::vector<GraphFormat> fs;
  {
    std::lock_guard<std::mutex> lock(formatsMutex());
    fs = formats();
  }
  for (const GraphFormat& f : fs)
    if (f.sniff && f.sniff(bytes)) return f.load(bytes, sourceName, report);
  for (const GraphFormat& f : fs)
    if (endsWith(sourceName, f.extension)) return f.load(bytes, sourceName, report);
  return padded ? importPaddedFxJson(bytes, sourceName, report) : importFxJson(bytes, sourceName, report);
}
}  // namespace

Result<ir::Graph> loadGraphBytes(std::string_view bytes, const std::string& sourceName, ImportReport* report) {
  return loadBytes(bytes, /*padded=*/false, sourceName, report);
}

Result<ir::Graph> loadGraphFile(const std::string& path, ImportReport* report, FileAccess access) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  if (access == FileAccess::Map) {
    LS_ASSIGN_OR_RETURN(file, FileBytes::map(path));
    if (file->mapped() && looksLikeLsg(file->bytes())) return loadLsgBytes(file->bytes(), name, file);
    // Other formats parse from readFile's padded buffer (fxjson in place).
  }
  auto bytes = readFile(path);
  if (!bytes) return bytes.status();
  auto held = std::make_shared<const std::string>(std::move(bytes).value());
  return loadBytes(*held, /*padded=*/true, name, report, held);
}

}  // namespace ls::io
