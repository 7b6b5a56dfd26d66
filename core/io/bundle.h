// Trace bundles: one JSON file written by tools/lowerscope_record.py while a Python (torch.fx)
// pipeline runs -- per-pass records plus deduplicated fxjson snapshots (docs/BUNDLE.md) -- read
// into a trace::Trace whose snapshots share node identity by fx node name.
#pragma once

#include <string>
#include <string_view>

#include "core/io/fxjson.h"
#include "core/trace/trace.h"
#include "core/util/status.h"

namespace ls::io {

/// The value of the bundle's "format" key.
inline constexpr char kBundleFormat[] = "lowerscope-bundle";

/// Whether bytes start like a bundle: a JSON object whose first key is "format" with the value
/// "lowerscope-bundle" (the recorder always writes it first), so sniffing reads a short prefix.
bool looksLikeBundle(std::string_view bytes);

/// Reads a bundle. Every snapshot graph goes through the fxjson importer (ops our registry does
/// not know import as opaque nodes; their warnings land in `report`, prefixed with the pass).
/// Node ids are shared across the source and every snapshot by fx node name; a node whose name
/// first appears after pass P records P as its provenance; node versions equal to the previous
/// graph's are shared (as the recorder's snapshots are). Statuses and names are kept as
/// recorded; a should_run hook that returned False becomes SkipReason::Precondition with the
/// recorded reason (and target ops) as the message; CPU time and PassResult.modified become
/// statistics ("cpu_us", "modified").
///
/// Never throws, never crashes: malformed input is an error naming `sourceName`, the pass
/// (index and name) or graph, and what was expected.
Result<trace::Trace> loadBundleBytes(std::string_view bytes, const std::string& sourceName,
                                     ImportReport* report = nullptr);
/// Reads and loads a bundle file; errors start with the path.
Result<trace::Trace> loadBundle(const std::string& path, ImportReport* report = nullptr);

}  // namespace ls::io
