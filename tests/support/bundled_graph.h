// Benchmarks' access to the bundled model graphs (assets/graphs/<name>.fxjson.json): the graph,
// or the process stops with the import error (a benchmark has no way to report it).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/io/fxjson.h"

namespace ls::test {

inline ir::Graph loadBundledGraph(const std::string& name) {
  auto g = io::importFxJsonFile(std::string(LS_ASSETS_DIR) + "/graphs/" + name + ".fxjson.json");
  if (!g) {
    std::fprintf(stderr, "%s\n", g.message().c_str());
    std::abort();
  }
  return std::move(g).value();
}

}  // namespace ls::test
