// Settings persistence and the file browser listing.
#include "viewers/model/settings.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "viewers/model/file_list.h"

namespace ls::viewmodel {
namespace {

namespace fs = std::filesystem;

fs::path tempDir(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("ls_viewers_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

TEST(Settings, RoundTripThroughTheFile) {
  Settings s;
  s.windowWidth = 1280;
  s.windowHeight = 720;
  s.leftPanel = 300.5f;
  s.rightPanel = 410.f;
  s.pipeline = "generic";
  s.profile = "int";
  s.target = "u55";
  s.lastDir = "/tmp/models dir";
  s.hideConstants = false;
  s.addRecent("/a.fxjson.json");
  s.addRecent("/b.lstrace");
  fs::path dir = tempDir("settings");
  std::string path = (dir / "sub" / "settings.ini").string();
  ASSERT_TRUE(saveSettings(s, path).isOk());
  Settings back = loadSettings(path);
  EXPECT_EQ(back, s);
  EXPECT_EQ(back.recent.front(), "/b.lstrace");
  fs::remove_all(dir);
}

TEST(Settings, MalformedValuesKeepDefaults) {
  Settings s = parseSettings("window_width=abc\nwindow_height=99999999\nleft_panel=12x\nbogus=1\nno equals sign\nprofile=int\n");
  Settings d;
  EXPECT_EQ(s.windowWidth, d.windowWidth);
  EXPECT_EQ(s.windowHeight, d.windowHeight);
  EXPECT_EQ(s.leftPanel, d.leftPanel);
  EXPECT_EQ(s.profile, "int");
  EXPECT_EQ(loadSettings("/nonexistent/dir/settings.ini"), Settings{});
}

TEST(Settings, RecentFilesAreDedupedAndBounded) {
  Settings s;
  for (int i = 0; i < 15; ++i) s.addRecent("/f" + std::to_string(i));
  EXPECT_EQ(s.recent.size(), Settings::kMaxRecent);
  EXPECT_EQ(s.recent.front(), "/f14");
  s.addRecent("/f10");
  EXPECT_EQ(s.recent.front(), "/f10");
  EXPECT_EQ(std::count(s.recent.begin(), s.recent.end(), "/f10"), 1);
  s.addRecent("");
  EXPECT_EQ(s.recent.front(), "/f10");
}

TEST(Settings, ConfigDirFollowsXdg) {
  const char* oldXdg = std::getenv("XDG_CONFIG_HOME");
  std::string saved = oldXdg ? oldXdg : "";
  ::setenv("XDG_CONFIG_HOME", "/xdg/conf", 1);
  EXPECT_EQ(configDir(), "/xdg/conf/lowerscope");
  ::setenv("XDG_CONFIG_HOME", "relative/ignored", 1);
  const char* home = std::getenv("HOME");
  if (home && home[0]) {
    EXPECT_EQ(configDir(), std::string(home) + "/.config/lowerscope");
  }
  if (oldXdg) ::setenv("XDG_CONFIG_HOME", saved.c_str(), 1);
  else ::unsetenv("XDG_CONFIG_HOME");
}

TEST(FileList, DirectoriesFirstThenOpenableFiles) {
  fs::path dir = tempDir("files");
  fs::create_directories(dir / "zoo");
  fs::create_directories(dir / "alpha");
  fs::create_directories(dir / ".hidden");
  for (const char* f : {"m.fxjson.json", "t.lstrace", "g.lsg", "notes.txt", ".secret.lsg"}) std::ofstream(dir / f) << "x";
  auto r = listDirectory(dir.string());
  ASSERT_TRUE(r.isOk()) << r.message();
  std::vector<std::string> names;
  for (const FileEntry& e : r.value()) names.push_back(e.name);
  EXPECT_EQ(names, (std::vector<std::string>{"..", "alpha", "zoo", "g.lsg", "m.fxjson.json", "t.lstrace"}));
  EXPECT_TRUE(r.value()[1].directory);
  EXPECT_FALSE(r.value()[3].directory);
  EXPECT_EQ(r.value()[3].size, 1u);
  auto bad = listDirectory((dir / "nope").string());
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.message().find("not a directory"), std::string::npos);
  EXPECT_TRUE(isOpenableName("a.fxjson.json"));
  EXPECT_FALSE(isOpenableName("a.onnx"));
  EXPECT_TRUE(isOpenableName("model.tosa"));  // registered by the Arm backend
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ls::viewmodel
