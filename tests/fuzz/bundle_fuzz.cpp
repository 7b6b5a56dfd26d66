// libFuzzer target for the recorder-bundle loader (io/bundle.h): any bytes must give a trace or an
// error naming the file, never a crash. A loaded bundle must give valid graphs after every pass,
// export to every format, and survive save -> load as .lstrace with identical exports.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/session/builtin.h"
#include "core/io/bundle.h"
#include "tests/fuzz/trace_fuzz_checks.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)ls::registerBuiltins();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string name = "fuzz.lsbundle";
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  ls::io::ImportReport report;
  auto t = ls::io::loadBundleBytes(bytes, name, &report);
  if (!t) {
    if (t.message().rfind(name + ": ", 0) != 0) ls::fuzz::die("bundle_fuzz", "error does not name the file", t.message());
    return 0;
  }
  ls::fuzz::checkLoadedTrace("bundle_fuzz", *t, name);
  return 0;
}
