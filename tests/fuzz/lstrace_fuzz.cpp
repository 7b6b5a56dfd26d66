// libFuzzer target for the .lstrace loader: any bytes must give a trace or an error naming the
// file, never a crash. A loaded trace must give valid graphs for every snapshot, export to
// every format, and survive save -> load with identical exports and localisation.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/session/builtin.h"
#include "core/io/exports.h"
#include "core/io/lstrace.h"
#include "core/ir/printer.h"
#include "core/trace/trace.h"

namespace {

[[noreturn]] void die(const char* what, const std::string& detail) {
  std::fprintf(stderr, "lstrace_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)ls::registerBuiltins();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string name = "fuzz.lstrace";
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto t = ls::io::loadTraceBytes(bytes, name);
  if (!t) {
    if (t.message().rfind(name, 0) != 0) die("error does not name the file", t.message());
    return 0;
  }
  if (!t->source) die("loaded trace has no source graph", name);
  for (int i = -1; i < int(t->records.size()); ++i) {
    ls::Status st = t->graphAfter(i).validate();
    if (!st.isOk()) die("a snapshot does not validate", st.message());
  }
  std::string csv = ls::io::traceToCsv(*t);
  std::string chrome = ls::io::traceToChromeJson(*t);
  for (int i = -1; i < int(t->records.size()); ++i) (void)ls::io::snapshotToDot(*t, i);
  auto again = ls::io::serializeTrace(*t);
  if (!again) die("loaded trace does not serialise", again.message());
  auto back = ls::io::loadTraceBytes(*again, "again.lstrace");
  if (!back) die("re-serialised trace does not load", back.message());
  if (ls::io::traceToCsv(*back) != csv || ls::io::traceToChromeJson(*back) != chrome)
    die("re-serialised trace exports differently", csv);
  if (bool(t->localization) != bool(back->localization) ||
      (t->localization && !(*t->localization == *back->localization)))
    die("re-serialised trace localises differently", t->localization ? t->localization->pass : "");
  return 0;
}
