// `lowerscope-cli tosa-check FILE.tosa [--profile int|fp] [--level 8k|none] [--extension EXT]
// [--json]`: reads any TOSA 1.0 flatbuffer (ours or another tool's) and reports every
// violation of the specification (arm/tosa/tosa_validate.h). Exit 0 legal, 1 violations or an
// unreadable file.
#include <fmt/format.h>

#include "app/cli/commands.h"
#include "core/backends/arm/tosa/tosa_validate.h"
#include "core/backends/arm/tosa/tosa_writer.h"
#include "core/util/json_writer.h"

namespace ls::cli {

int cmdTosaCheck(const std::string& path, const std::string& profile, const std::string& level,
                 const std::vector<std::string>& extensions, bool json, bool quiet) {
  arm::TosaCheckOptions o;
  if (profile == "int") o.profile = arm::TosaCheckOptions::Profile::Int;
  else if (profile == "fp") o.profile = arm::TosaCheckOptions::Profile::Fp;
  else return fail(fmt::format("--profile {}: expected int or fp", profile));
  if (level == "8k" || level == "8K") o.level8k = true;
  else if (level == "none") o.level8k = false;
  else return fail(fmt::format("--level {}: expected 8k or none", level));
  o.extensions = extensions;
  auto info = io::readTosa(path);
  if (!info) return fail(info.message());
  // What the reader could not read as TOSA 1.0 (another version, unknown fields): said, as every
  // command that loads a file says it.
  if (!quiet)
    for (const std::string& w : info->warnings) fmt::print(stderr, "warning: {}: {}\n", path, w);
  std::vector<arm::TosaViolation> v = arm::validateTosaFile(*info, o);
  size_t ops = 0;
  for (const auto& r : info->regions)
    for (const auto& b : r.blocks) ops += b.operators.size();
  if (json) {
    JsonWriter w;
    w.beginObject();
    w.field("file", path).field("spec", arm::tosaSpecVersion()).field("profile", profile).field("level", level);
    w.field("operators", uint64_t(ops)).field("legal", v.empty());
    w.key("violations").beginArray();
    for (const auto& x : v) {
      w.beginObject();
      w.field("where", x.where).field("op", x.op).field("message", x.message);
      w.endObject();
    }
    w.endArray();
    w.endObject();
    fmt::print("{}\n", w.str());
  } else if (v.empty()) {
    fmt::print("{}: legal TOSA {} (profile {}, level {}): {} operators\n", path, arm::tosaSpecVersion(), profile,
               o.level8k ? "8K" : "none", ops);
  } else {
    fmt::print("{}: {}\n", path, arm::formatViolations(v, o, 200));
  }
  return v.empty() ? 0 : 1;
}

}  // namespace ls::cli
