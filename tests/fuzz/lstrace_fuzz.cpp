// libFuzzer target for the .lstrace loader: any bytes must give a trace or an error naming the
// file, never a crash. A loaded trace must give valid graphs for every snapshot, export to
// every format, and survive save -> load with identical exports.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/session/builtin.h"
#include "core/io/lstrace.h"
#include "tests/fuzz/trace_fuzz_checks.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)ls::registerBuiltins();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string name = "fuzz.lstrace";
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto t = ls::io::loadTraceBytes(bytes, name);
  if (!t) {
    if (t.message().rfind(name, 0) != 0) ls::fuzz::die("lstrace_fuzz", "error does not name the file", t.message());
    return 0;
  }
  ls::fuzz::checkLoadedTrace("lstrace_fuzz", *t, name);
  return 0;
}
