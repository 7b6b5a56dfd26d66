// Timing view model.
#include "viewers/model/timing_model.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>

#include <fmt/format.h>

namespace ls::viewmodel {

PhaseTotals phaseTotals(const trace::Trace& t) {
  PhaseTotals p;
  for (const trace::PassRecord& r : t.records) {
    p.scanNs += r.scanNs;
    p.runNs += r.runNs;
    p.verifyNs += r.verifyNs;
  }
  return p;
}

std::string BarRow::label() const {
  return count > 1 ? fmt::format("{} (x{})", name, count) : fmt::format("{} {}", index, name);
}

std::vector<BarRow> barRows(const trace::Trace& t, bool aggregateByName) {
  std::vector<BarRow> rows;
  std::map<std::string, size_t> rowOf;
  int64_t sum = 0;
  for (const trace::PassRecord& r : t.records) {
    size_t at = rows.size();
    if (aggregateByName) {
      auto [it, added] = rowOf.try_emplace(r.name, rows.size());
      at = it->second;
      if (added) rows.emplace_back();
    } else {
      rows.emplace_back();
    }
    BarRow& b = rows[at];
    if (b.count == 0) b.name = r.name, b.index = r.index;
    ++b.count;
    b.ran += r.ran();
    b.skipped += r.status == passes::PassStatus::Skipped;
    b.failed += r.status == passes::PassStatus::Failed;
    b.scanNs += r.scanNs;
    b.runNs += r.runNs;
    b.verifyNs += r.verifyNs;
    sum += r.totalNs();
  }
  for (BarRow& b : rows) b.percent = sum > 0 ? 100.0 * double(b.totalNs()) / double(sum) : 0.0;
  std::stable_sort(rows.begin(), rows.end(), [](const BarRow& a, const BarRow& b) { return a.totalNs() > b.totalNs(); });
  return rows;
}

std::string_view spanKindName(SpanKind k) {
  static constexpr std::array<std::string_view, size_t(SpanKind::COUNT)> kNames = {"pass", "scan", "run", "verify", "skipped"};
  static_assert(kNames.size() == size_t(SpanKind::COUNT));
  return size_t(k) < kNames.size() ? kNames[size_t(k)] : "?";
}

Timeline timeline(const trace::Trace& t) {
  Timeline tl;
  int64_t prevEnd = 0;
  for (size_t i = 0; i < t.records.size(); ++i) {
    const trace::PassRecord& r = t.records[i];
    const int64_t start = i > 0 && r.startNs == 0 ? prevEnd : r.startNs;
    const int64_t end = start + r.totalNs();
    if (r.status == passes::PassStatus::Skipped) {
      tl.spans.push_back({r.index, SpanKind::SkippedTick, 0, start, end});
      ++tl.ticks;
    } else {
      tl.spans.push_back({r.index, SpanKind::Pass, 0, start, end});
      ++tl.passes;
      int64_t at = start;
      auto phase = [&](SpanKind k, int64_t ns) {
        if (ns > 0) tl.spans.push_back({r.index, k, 1, at, at + ns});
        at += ns;
      };
      phase(SpanKind::Scan, r.scanNs);
      phase(SpanKind::Run, r.runNs);
      phase(SpanKind::Verify, r.verifyNs);
    }
    prevEnd = std::max(prevEnd, end);
  }
  tl.endNs = std::max(prevEnd, t.totalNs);
  return tl;
}

TimeWindow zoomWindow(TimeWindow w, double factor, double pivotNs, double fullNs) {
  if (factor <= 0 || fullNs <= 0) return w;
  const double minWidth = std::min(1000.0, fullNs);
  double width = std::clamp(w.width() / factor, minWidth, fullNs);
  double t = w.width() > 0 ? (pivotNs - w.beginNs) / w.width() : 0.5;
  t = std::clamp(t, 0.0, 1.0);
  TimeWindow out{pivotNs - t * width, pivotNs - t * width + width};
  return panWindow(out, 0.0, fullNs);
}

TimeWindow panWindow(TimeWindow w, double deltaNs, double fullNs) {
  double width = std::min(w.width(), fullNs);
  double begin = std::clamp(w.beginNs + deltaNs, 0.0, std::max(0.0, fullNs - width));
  return {begin, begin + width};
}

std::vector<NodeCountPoint> nodeCounts(const trace::Trace& t) {
  std::vector<NodeCountPoint> out;
  uint64_t cur = t.source ? t.source->size() : t.records.empty() ? 0 : t.records.front().nodesBefore;
  out.push_back({-1, cur});
  for (const trace::PassRecord& r : t.records) {
    if (r.ran()) cur = r.nodesAfter;
    out.push_back({r.index, cur});
  }
  return out;
}

std::string formatDuration(int64_t ns) {
  int64_t a = std::llabs(ns);
  if (a >= 1'000'000'000) return fmt::format("{:.2f} s", double(ns) / 1e9);
  if (a >= 1'000'000) return fmt::format("{:.2f} ms", double(ns) / 1e6);
  if (a >= 1'000) return fmt::format("{:.1f} us", double(ns) / 1e3);
  return fmt::format("{} ns", ns);
}


}  // namespace ls::viewmodel
