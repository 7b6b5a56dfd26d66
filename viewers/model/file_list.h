// File browser model: the entries of one directory that the app can open. No ImGui: tested in
// tests/viewers/file_list_test.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/util/status.h"

namespace ls::viewmodel {

struct FileEntry {
  std::string name;
  std::string path;  ///< absolute
  bool directory = false;
  uintmax_t size = 0;
};

/// True for names the app opens: *.fxjson.json, *.json, *.lsg, *.lstrace.
bool isOpenableName(const std::string& name);

/// Directories first (with ".." unless at the root), then openable files; each group sorted by
/// name. Hidden entries (leading '.') are skipped. Errors name the directory.
Result<std::vector<FileEntry>> listDirectory(const std::string& dir);

}  // namespace ls::viewmodel
