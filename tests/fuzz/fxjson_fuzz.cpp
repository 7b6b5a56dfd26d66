// libFuzzer target for the fxjson importer: never crash; errors start with the source name;
// an accepted graph validates, prints, exports and re-imports to the same text and bytes.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/session/builtin.h"
#include "core/io/fxjson.h"
#include "core/ir/printer.h"

namespace {

[[noreturn]] void die(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fxjson_fuzz: %s\n%s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)ls::registerBuiltins();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  ls::io::ImportReport report;
  auto r = ls::io::importFxJson(json, "fuzz.json", &report);
  if (!r.isOk()) {
    if (r.message().rfind("fuzz.json: ", 0) != 0) die("error message does not start with the source name", r.message());
    return 0;
  }
  const ls::ir::Graph& g = *r;
  if (ls::Status st = g.validate(); !st.isOk()) die("imported graph does not validate", st.message());
  const std::string text = ls::ir::printGraph(g);
  const std::string out = ls::io::exportFxJson(g);
  auto back = ls::io::importFxJson(out, "reexport.json");
  if (!back.isOk()) die("re-import of the export failed", back.message() + "\n--- export:\n" + out);
  if (ls::ir::printGraph(*back) != text)
    die("re-imported graph prints differently", text + "\n--- vs:\n" + ls::ir::printGraph(*back));
  if (ls::io::exportFxJson(*back) != out) die("second export differs", out);
  return 0;
}
