// The main of the Google Benchmark binaries: registers the built-in backends through the
// composition root, then runs the benchmarks.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "core/session/builtin.h"

int main(int argc, char** argv) {
  if (const ls::Status& st = ls::registerBuiltins(); !st) {
    fmt::print(stderr, "registering the built-in backends failed: {}\n", st.message());
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
