// libFuzzer target for the .lstrace loader: any bytes must give a trace or an error naming the
// file, never a crash. A loaded trace must give valid graphs for every snapshot, export to
// every format, and survive save -> load with identical exports and localisation.
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
  // Localisation data (verify --localize) survives save -> load.
  auto again = ls::io::serializeTrace(*t);
  if (!again) ls::fuzz::die("lstrace_fuzz", "loaded trace does not serialise", again.message());
  auto back = ls::io::loadTraceBytes(*again, "again.lstrace");
  if (!back) ls::fuzz::die("lstrace_fuzz", "re-serialised trace does not load", back.message());
  if (bool(t->localization) != bool(back->localization) ||
      (t->localization && !(*t->localization == *back->localization)))
    ls::fuzz::die("lstrace_fuzz", "re-serialised trace localises differently", t->localization ? t->localization->pass : "");
  return 0;
}
