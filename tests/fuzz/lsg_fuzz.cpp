// libFuzzer target for the .lsg loader: any bytes must give a graph or an error, never a crash.
// A loaded graph must validate, print, and survive save -> load unchanged.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/session/builtin.h"
#include "core/io/lsg.h"
#include "core/ir/printer.h"

namespace {

[[noreturn]] void die(const char* what, const std::string& detail) {
  std::fprintf(stderr, "lsg_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)ls::registerBuiltins();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string name = "fuzz.lsg";
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto g = ls::io::loadLsgBytes(bytes, name);
  if (!g) {
    if (g.message().rfind(name + ": ", 0) != 0) die("error does not name the file", g.message());
    return 0;
  }
  // The loader's own checks must imply the IR's structural invariants.
  ls::Status st = g->validate();
  if (!st.isOk()) die("loaded graph does not validate", st.message());
  std::string text = ls::ir::printGraph(*g);
  auto again = ls::io::serializeLsg(*g);
  if (!again) die("loaded graph does not serialise", again.message());
  auto back = ls::io::loadLsgBytes(*again, "again.lsg");
  if (!back) die("re-serialised graph does not load", back.message());
  if (ls::ir::printGraph(*back) != text) die("re-serialised graph prints differently", text);
  return 0;
}
