// App settings persisted in the user's config directory ($XDG_CONFIG_HOME/lowerscope or
// ~/.config/lowerscope): window and panel sizes, recent files, last run config.
// A small "key=value" text file; unknown keys are ignored. No ImGui: tested in
// tests/viewers/settings_test.cpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/util/status.h"

namespace ls::viewmodel {

struct Settings {
  int windowWidth = 1600, windowHeight = 1000;
  float leftPanel = 470.f;   ///< pipeline panel width
  float rightPanel = 380.f;  ///< inspector panel width
  std::vector<std::string> recent;  ///< most recent first
  std::string pipeline;      ///< last pipeline ("" = default)
  std::string profile = "fp";
  std::string target = "generic";
  std::string lastDir;       ///< file browser directory
  bool hideConstants = true; ///< graph view: draw single-use constants beside their user
  bool constantBadges = true; ///< graph view: draw constants and CONST_SHAPE as badges on their users
  bool operator==(const Settings&) const = default;

  static constexpr size_t kMaxRecent = 10;
  /// Moves `path` to the front of the recent list (deduplicated, at most kMaxRecent).
  void addRecent(const std::string& path);
};

std::string serializeSettings(const Settings& s);
/// Parses; malformed numbers keep their defaults, unknown keys are ignored.
Settings parseSettings(std::string_view text);

/// The directory: $XDG_CONFIG_HOME/lowerscope when set and absolute, else $HOME/.config/lowerscope;
/// "" when neither is available.
std::string configDir();
Settings loadSettings(const std::string& path);
Status saveSettings(const Settings& s, const std::string& path);

}  // namespace ls::viewmodel
