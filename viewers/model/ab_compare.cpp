// A/B comparison over repeated runs.
#include "viewers/model/ab_compare.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "core/io/summary.h"
#include "core/trace/compare.h"
#include "viewers/model/timing_model.h"

namespace ls::viewmodel {

std::string_view abVerdictName(AbVerdict v) {
  static constexpr std::array<std::string_view, size_t(AbVerdict::COUNT)> kNames = {"A", "B", "noise", "saved-A",
                                                                                    "saved-B", "only-A", "only-B"};
  static_assert(kNames.size() == size_t(AbVerdict::COUNT));
  return size_t(v) < kNames.size() ? kNames[size_t(v)] : "?";
}

std::string AbRow::verdictText() const {
  switch (verdict) {
    case AbVerdict::AFaster: return fmt::format("A {:.2f}x faster", factor);
    case AbVerdict::BFaster: return fmt::format("B {:.2f}x faster", factor);
    case AbVerdict::Noise: return "within noise";
    case AbVerdict::SavedInA: return "A saved " + formatDuration(savedNs) + " (skipped)";
    case AbVerdict::SavedInB: return "B saved " + formatDuration(savedNs) + " (skipped)";
    case AbVerdict::OnlyA: return "only in A";
    case AbVerdict::OnlyB: return "only in B";
    case AbVerdict::COUNT: break;
  }
  return "?";
}

std::string formatStats(const session::SampleStats& s) {
  if (s.n <= 1) return formatDuration(s.median);
  const int64_t mid = std::llabs(s.median);
  const auto [div, unit] = mid >= 1'000'000'000 ? std::pair{1e9, "s"}
                           : mid >= 1'000'000   ? std::pair{1e6, "ms"}
                           : mid >= 1'000       ? std::pair{1e3, "us"}
                                                : std::pair{1.0, "ns"};
  auto num = [div = div](int64_t ns) {
    const double v = double(ns) / div;
    return div == 1.0 || std::abs(v) >= 100 ? fmt::format("{:.0f}", v) : fmt::format("{:.1f}", v);
  };
  return fmt::format("{} ({}-{}) {}", num(s.median), num(s.min), num(s.max), unit);
}

size_t AbComparison::count(AbVerdict v) const {
  return size_t(std::count_if(rows.begin(), rows.end(), [v](const AbRow& r) { return r.verdict == v; }));
}

void judge(AbRow& row, const NoiseFloor& floor) {
  const int64_t ma = row.a.median, mb = row.b.median;
  int64_t f = std::max<int64_t>(floor.absoluteNs, int64_t(floor.relative * double(std::max(ma, mb))));
  if (floor.spread) f = std::max({f, row.a.spread(), row.b.spread()});
  row.floorNs = f;
  row.factor = 1.0;
  if (std::llabs(mb - ma) <= f || ma <= 0 || mb <= 0) {
    row.verdict = AbVerdict::Noise;
    return;
  }
  row.verdict = ma < mb ? AbVerdict::AFaster : AbVerdict::BFaster;
  row.factor = double(std::max(ma, mb)) / double(std::min(ma, mb));
}

namespace {
session::SampleStats statsOf(const std::vector<session::SampleStats>& perPass, int index, const trace::Trace& t) {
  if (index < 0) return {};
  if (size_t(index) < perPass.size() && perPass[size_t(index)].n > 0) return perPass[size_t(index)];
  // No repeats: the trace's own time is the one sample.
  return session::sampleStats({t.records[size_t(index)].totalNs()});
}
}  // namespace

AbComparison compareAb(const trace::Trace& a, const trace::Trace& b, const std::vector<session::RunSample>& runsA,
                       const std::vector<session::RunSample>& runsB, const NoiseFloor& floor) {
  AbComparison c;
  c.floor = floor;
  c.repeatsA = runsA.empty() ? 1 : runsA.size();
  c.repeatsB = runsB.empty() ? 1 : runsB.size();
  const std::vector<session::SampleStats> perA = session::passStats(runsA), perB = session::passStats(runsB);
  const trace::TraceComparison tc = trace::compareTraces(a, b);
  for (const trace::CompareRow& r : tc.rows) {
    AbRow row;
    row.name = r.name;
    row.indexA = r.inA ? r.indexA : -1;
    row.indexB = r.inB ? r.indexB : -1;
    row.statusA = r.statusA, row.statusB = r.statusB;
    row.reasonA = r.reasonA, row.reasonB = r.reasonB;
    row.a = statsOf(perA, row.indexA, a);
    row.b = statsOf(perB, row.indexB, b);
    if (!row.inA() || !row.inB()) {
      row.verdict = row.inA() ? AbVerdict::OnlyA : AbVerdict::OnlyB;
    } else if (row.ranA() != row.ranB()) {
      // Skipping is not a speed-up of the pass: it is what not running it saved.
      row.verdict = row.ranB() ? AbVerdict::SavedInA : AbVerdict::SavedInB;
      row.savedNs = row.ranB() ? row.b.median - row.a.median : row.a.median - row.b.median;
    } else {
      judge(row, floor);
    }
    c.rows.push_back(std::move(row));
  }
  c.total.name = "total (pass manager)";
  c.total.indexA = c.total.indexB = 0;
  c.total.statusA = c.total.statusB = passes::PassStatus::Changed;
  c.total.a = runsA.empty() ? session::sampleStats({a.totalNs}) : session::totalStats(runsA);
  c.total.b = runsB.empty() ? session::sampleStats({b.totalNs}) : session::totalStats(runsB);
  judge(c.total, floor);
  if (a.source && b.source) {
    std::map<std::string, int64_t> ha = io::opHistogram(a.finalGraph()), hb = io::opHistogram(b.finalGraph());
    for (const auto& [op, n] : ha)
      if (auto it = hb.find(op); it == hb.end() || it->second != n) c.opDiffs.push_back({op, n, it == hb.end() ? 0 : it->second});
    for (const auto& [op, n] : hb)
      if (!ha.count(op)) c.opDiffs.push_back({op, 0, n});
    std::stable_sort(c.opDiffs.begin(), c.opDiffs.end(), [](const OpCountDiff& x, const OpCountDiff& y) {
      int64_t dx = std::llabs(x.a - x.b), dy = std::llabs(y.a - y.b);
      return dx != dy ? dx > dy : x.op < y.op;
    });
  }
  return c;
}

int64_t deltaVsBaseline(const AbRow& r, int baseline) {
  return baseline == 0 ? r.b.median - r.a.median : r.a.median - r.b.median;
}

std::vector<size_t> abRowsByDifference(const AbComparison& c) {
  std::vector<size_t> idx(c.rows.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](size_t x, size_t y) {
    return std::llabs(deltaVsBaseline(c.rows[x], 0)) > std::llabs(deltaVsBaseline(c.rows[y], 0));
  });
  return idx;
}

}  // namespace ls::viewmodel
