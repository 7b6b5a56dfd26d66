// libFuzzer target for `tosa-check`: any bytes are read as a TOSA 1.0 flatbuffer and, when they
// decode, validated against the specification at both levels and profiles, opened as a graph
// (the .tosa importer, with the registry's shape rules) and written again: never a crash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/backends/arm/tosa/tosa_import.h"
#include "core/backends/arm/tosa/tosa_validate.h"
#include "core/backends/arm/tosa/tosa_writer.h"
#include "core/session/builtin.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)ls::registerBuiltins();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto info = ls::io::readTosaBytes(bytes, "fuzz.tosa");
  if (!info) return 0;
  for (auto profile : {ls::arm::TosaCheckOptions::Profile::Int, ls::arm::TosaCheckOptions::Profile::Fp})
    for (bool level8k : {true, false}) {
      ls::arm::TosaCheckOptions o;
      o.profile = profile;
      o.level8k = level8k;
      auto v = ls::arm::validateTosaFile(*info, o);
      (void)ls::arm::formatViolations(v, o);
    }
  auto g = ls::arm::tosaFileToGraph(*info, "fuzz.tosa");
  if (g) (void)ls::io::serializeTosa(*g);
  return 0;
}
