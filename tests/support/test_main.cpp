// The main of every GoogleTest binary: registers the built-in backends through the
// composition root (as the executables do), then runs the tests.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/session/builtin.h"

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (const ls::Status& st = ls::registerBuiltins(); !st) {
    fmt::print(stderr, "registering the built-in backends failed: {}\n", st.message());
    return 1;
  }
  return RUN_ALL_TESTS();
}
