// Timing view model.
#include "viewers/model/timing_model.h"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

namespace ls::viewmodel {

std::vector<TimingRow> timingRows(const trace::Trace& t, TimingOrder order) {
  std::vector<TimingRow> rows;
  rows.reserve(t.records.size());
  for (const trace::PassRecord& r : t.records) rows.push_back({r.index, r.scanNs, r.runNs, r.verifyNs});
  if (order == TimingOrder::Slowest)
    std::stable_sort(rows.begin(), rows.end(), [](const TimingRow& a, const TimingRow& b) { return a.totalNs() > b.totalNs(); });
  return rows;
}

PhaseTotals phaseTotals(const trace::Trace& t) {
  PhaseTotals p;
  for (const trace::PassRecord& r : t.records) {
    p.scanNs += r.scanNs;
    p.runNs += r.runNs;
    p.verifyNs += r.verifyNs;
  }
  return p;
}

std::vector<size_t> compareOrder(const trace::TraceComparison& c, CompareOrder order) {
  std::vector<size_t> idx(c.rows.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  auto hasRatio = [&](size_t i) { return c.rows[i].inA && c.rows[i].inB && c.rows[i].nsA > 0; };
  switch (order) {
    case CompareOrder::WorstRatio:
    case CompareOrder::BestRatio:
      std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
        if (hasRatio(a) != hasRatio(b)) return hasRatio(a);
        if (!hasRatio(a)) return false;
        double ra = c.rows[a].ratio(), rb = c.rows[b].ratio();
        return order == CompareOrder::WorstRatio ? ra > rb : ra < rb;
      });
      break;
    case CompareOrder::LargestDelta:
      std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
        return std::llabs(c.rows[a].nsB - c.rows[a].nsA) > std::llabs(c.rows[b].nsB - c.rows[b].nsA);
      });
      break;
    default: break;
  }
  return idx;
}

std::string formatDuration(int64_t ns) {
  int64_t a = std::llabs(ns);
  if (a >= 1'000'000'000) return fmt::format("{:.2f} s", double(ns) / 1e9);
  if (a >= 1'000'000) return fmt::format("{:.2f} ms", double(ns) / 1e6);
  if (a >= 1'000) return fmt::format("{:.1f} us", double(ns) / 1e3);
  return fmt::format("{} ns", ns);
}

std::string formatRatio(double r) { return r > 0 ? fmt::format("{:.2f}x", r) : "-"; }

}  // namespace ls::viewmodel
