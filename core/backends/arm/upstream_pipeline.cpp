// The pinned table of upstream's Arm pass lists (see upstream_pipeline.h).
#include "core/backends/arm/upstream_pipeline.h"

#include <array>

namespace ls::arm {

namespace {
#include "core/backends/arm/upstream_pipeline.inc"

constexpr std::array<std::string_view, size_t(Disposition::COUNT)> kDispositionNames = {
    "same", "differs", "moved", "other", "partial", "missing", "n/a", "ours"};

/// `ours` ("A,B,C") names `pass`.
bool names(std::string_view ours, std::string_view pass) {
  while (!ours.empty()) {
    const size_t comma = ours.find(',');
    if (ours.substr(0, comma) == pass) return true;
    if (comma == std::string_view::npos) break;
    ours.remove_prefix(comma + 1);
  }
  return false;
}
}  // namespace

std::string_view dispositionName(Disposition d) { return kDispositionNames[size_t(d)]; }
std::span<const UpstreamEntry> upstreamEntries() { return kUpstreamEntries; }
std::span<const UpstreamEntry> upstreamExtras() { return kUpstreamExtras; }
std::string_view upstreamCommit() { return kUpstreamCommit; }
std::string_view upstreamDate() { return kUpstreamDate; }

std::vector<const UpstreamEntry*> upstreamEntriesFor(std::string_view pass) {
  std::vector<const UpstreamEntry*> out;
  for (const UpstreamEntry& e : kUpstreamEntries)
    if (e.name == pass || ((e.disposition == Disposition::Other || e.disposition == Disposition::Partial) && names(e.ours, pass)))
      out.push_back(&e);
  return out;
}

}  // namespace ls::arm
