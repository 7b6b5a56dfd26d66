// Shared helpers of the lowerscope-cli end-to-end tests: run the CLI as a user would (exit
// code, stdout + stderr together) and give each test binary its own scratch directory.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace ls::clitest {

struct CliRun {
  int code = -1;
  std::string out;  // stdout + stderr
};

inline CliRun runCli(const std::string& args) {
  std::string cmd = std::string(LS_CLI_PATH) + " " + args + " 2>&1";
  CliRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

/// A per-process scratch directory named after `tag` (created on first use).
inline std::filesystem::path scratchDir(const std::string& tag) {
  auto d = std::filesystem::temp_directory_path() / ("ls_" + tag + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(d);
  return d;
}

/// The whole file as bytes ("" when it cannot be read).
inline std::string readText(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

}  // namespace ls::clitest
