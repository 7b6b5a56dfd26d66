// File browser: a modal ImGui dialog listing directories and openable files (graphs and
// traces), with a path field and the recent files.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "viewers/model/file_list.h"

namespace ls::viewers {

class FileBrowser {
 public:
  /// Opens the dialog at `dir` on the next draw.
  void open(const std::string& dir);
  /// Draws the dialog when open; returns the chosen file once.
  std::optional<std::string> draw(const std::vector<std::string>& recent);
  const std::string& directory() const { return dir_; }

 private:
  void cd(const std::string& dir);
  bool openRequested_ = false;
  std::string dir_;
  std::string pathInput_;
  std::vector<viewmodel::FileEntry> entries_;
  std::string error_;
  int selected_ = -1;
};

}  // namespace ls::viewers
