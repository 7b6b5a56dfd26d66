// The CLI runs on the project's allocator (ls_allocator: mimalloc unless a sanitizer owns malloc).
#include <gtest/gtest.h>

#include "cli/cli_util.h"

namespace ls::clitest {
namespace {

#if defined(LS_WITH_MIMALLOC)
// mimalloc answers MIMALLOC_SHOW_STATS at exit with its heap statistics; glibc malloc ignores
// the variable. So this fails if the executable's malloc is not mimalloc's (a link order or
// --as-needed that dropped it).
TEST(Allocator, TheCliAllocatesThroughMimalloc) {
  const std::string cmd = std::string("MIMALLOC_SHOW_STATS=1 ") + LS_CLI_PATH + " lower " + LS_ASSETS_DIR +
                          "/graphs/squeezenet1_1.fxjson.json --pipeline tosa -q 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ASSERT_EQ(pclose(p), 0) << out;
  EXPECT_NE(out.find("heap stats"), std::string::npos) << out;
  // The arena reserved at start-up (app/allocator/mimalloc_arena.cpp): 1 GiB of address space.
  const size_t reserved = out.find("reserved:");
  ASSERT_NE(reserved, std::string::npos) << out;
  EXPECT_NE(out.substr(reserved, out.find('\n', reserved) - reserved).find("GiB"), std::string::npos) << out;
}
#endif

}  // namespace
}  // namespace ls::clitest
