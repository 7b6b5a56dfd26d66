// Settings persistence.
#include "viewers/model/settings.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/util/atomic_file.h"

namespace ls::viewmodel {

void Settings::addRecent(const std::string& path) {
  if (path.empty()) return;
  recent.erase(std::remove(recent.begin(), recent.end(), path), recent.end());
  recent.insert(recent.begin(), path);
  if (recent.size() > kMaxRecent) recent.resize(kMaxRecent);
}

std::string serializeSettings(const Settings& s) {
  std::string out = "# lowerscope settings\n";
  out += fmt::format("window_width={}\nwindow_height={}\n", s.windowWidth, s.windowHeight);
  out += fmt::format("left_panel={}\nright_panel={}\n", s.leftPanel, s.rightPanel);
  out += fmt::format("pipeline={}\nprofile={}\ntarget={}\n", s.pipeline, s.profile, s.target);
  out += fmt::format("last_dir={}\nhide_constants={}\nconstant_badges={}\n", s.lastDir, s.hideConstants ? 1 : 0,
                     s.constantBadges ? 1 : 0);
  for (const std::string& r : s.recent) out += fmt::format("recent={}\n", r);
  return out;
}

Settings parseSettings(std::string_view text) {
  Settings s;
  s.recent.clear();
  std::istringstream in{std::string(text)};
  std::string line;
  auto toInt = [](const std::string& v, int& dst, int lo, int hi) {
    try {
      size_t n = 0;
      int x = std::stoi(v, &n);
      if (n == v.size() && x >= lo && x <= hi) dst = x;
    } catch (...) {
    }
  };
  auto toFloat = [](const std::string& v, float& dst, float lo, float hi) {
    try {
      size_t n = 0;
      float x = std::stof(v, &n);
      if (n == v.size() && x >= lo && x <= hi) dst = x;
    } catch (...) {
    }
  };
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string k = line.substr(0, eq), v = line.substr(eq + 1);
    if (k == "window_width") toInt(v, s.windowWidth, 200, 16384);
    else if (k == "window_height") toInt(v, s.windowHeight, 200, 16384);
    else if (k == "left_panel") toFloat(v, s.leftPanel, 80.f, 4000.f);
    else if (k == "right_panel") toFloat(v, s.rightPanel, 80.f, 4000.f);
    else if (k == "pipeline") s.pipeline = v;
    else if (k == "profile") s.profile = v;
    else if (k == "target") s.target = v;
    else if (k == "last_dir") s.lastDir = v;
    else if (k == "hide_constants") s.hideConstants = v != "0";
    else if (k == "constant_badges") s.constantBadges = v != "0";
    else if (k == "recent" && !v.empty() && s.recent.size() < Settings::kMaxRecent) s.recent.push_back(v);
  }
  return s;
}

std::string configDir() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  if (xdg && xdg[0] == '/') return std::string(xdg) + "/lowerscope";
  const char* home = std::getenv("HOME");
  if (home && home[0]) return std::string(home) + "/.config/lowerscope";
  return {};
}

Settings loadSettings(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Settings{};
  std::stringstream ss;
  ss << in.rdbuf();
  return parseSettings(ss.str());
}

Status saveSettings(const Settings& s, const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (ec) return Status::error(fmt::format("{}: cannot create directory: {}", path, ec.message()));
  return writeFileAtomic(path, serializeSettings(s));
}

}  // namespace ls::viewmodel
