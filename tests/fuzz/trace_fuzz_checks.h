// What every trace-loader fuzz target (lstrace_fuzz, bundle_fuzz) demands of a trace it loaded:
// valid graphs after every pass, exports to every format, and save -> load as .lstrace with
// identical exports. Aborts (a libFuzzer finding) naming the target and what broke.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/io/exports.h"
#include "core/io/lstrace.h"
#include "core/trace/trace.h"

namespace ls::fuzz {

[[noreturn]] inline void die(const char* target, const char* what, const std::string& detail) {
  std::fprintf(stderr, "%s: %s: %s\n", target, what, detail.c_str());
  std::abort();
}

inline void checkLoadedTrace(const char* target, const trace::Trace& t, const std::string& name) {
  if (!t.source) die(target, "loaded trace has no source graph", name);
  for (int i = -1; i < int(t.records.size()); ++i) {
    Status st = t.graphAfter(i).validate();
    if (!st.isOk()) die(target, "a snapshot does not validate", st.message());
  }
  std::string csv = io::traceToCsv(t);
  std::string chrome = io::traceToChromeJson(t);
  for (int i = -1; i < int(t.records.size()); ++i) (void)io::snapshotToDot(t, i);
  auto again = io::serializeTrace(t);
  if (!again) die(target, "loaded trace does not serialise", again.message());
  auto back = io::loadTraceBytes(*again, "again.lstrace");
  if (!back) die(target, "re-serialised trace does not load", back.message());
  if (io::traceToCsv(*back) != csv || io::traceToChromeJson(*back) != chrome)
    die(target, "re-serialised trace exports differently", csv);
}

}  // namespace ls::fuzz
