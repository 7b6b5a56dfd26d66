// File browser model.
#include "viewers/model/file_list.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "core/io/load.h"

namespace ls::viewmodel {

namespace fs = std::filesystem;

bool isOpenableName(const std::string& name) {
  auto ends = [&](std::string_view s) {
    return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  if (ends(".json") || ends(".lsg") || ends(".lstrace") || ends(".lsbundle")) return true;
  // Formats backends register with the loader (e.g. .tosa).
  for (const std::string& ext : io::graphFormatExtensions())
    if (ends(ext)) return true;
  return false;
}

Result<std::vector<FileEntry>> listDirectory(const std::string& dir) {
  std::error_code ec;
  fs::path p = fs::absolute(fs::path(dir), ec);
  if (ec || !fs::is_directory(p, ec)) return Status::error(fmt::format("{}: not a directory", dir));
  p = p.lexically_normal();
  if (p.has_filename() == false && p != p.root_path()) p = p.parent_path();
  std::vector<FileEntry> dirs, files;
  fs::directory_iterator it(p, fs::directory_options::skip_permission_denied, ec);
  if (ec) return Status::error(fmt::format("{}: cannot list: {}", dir, ec.message()));
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const fs::directory_entry& e = *it;
    std::string name = e.path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code ec2;
    if (e.is_directory(ec2)) {
      dirs.push_back({name, e.path().string(), true, 0});
    } else if (e.is_regular_file(ec2) && isOpenableName(name)) {
      files.push_back({name, e.path().string(), false, e.file_size(ec2)});
    }
  }
  auto byName = [](const FileEntry& a, const FileEntry& b) { return a.name < b.name; };
  std::sort(dirs.begin(), dirs.end(), byName);
  std::sort(files.begin(), files.end(), byName);
  std::vector<FileEntry> out;
  if (p != p.root_path()) out.push_back({"..", p.parent_path().string(), true, 0});
  out.insert(out.end(), dirs.begin(), dirs.end());
  out.insert(out.end(), files.begin(), files.end());
  return out;
}

}  // namespace ls::viewmodel
