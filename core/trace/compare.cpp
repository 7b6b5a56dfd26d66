// A/B comparison of traces with a regression gate.
#include "core/trace/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace ls::trace {

TraceComparison compareTraces(const Trace& a, const Trace& b, const GateOptions& gate, size_t topN) {
  TraceComparison c;
  c.totalA = a.totalNs;
  c.totalB = b.totalNs;
  std::map<std::pair<std::string, int>, size_t> rowOf;
  std::map<std::string, int> seen;
  for (const PassRecord& r : a.records) {
    int occ = seen[r.name]++;
    CompareRow row;
    row.name = r.name;
    row.occurrence = occ;
    row.indexA = r.index;
    row.nsA = r.totalNs();
    row.statusA = r.status;
    row.reasonA = r.reason;
    row.inA = true;
    rowOf[{r.name, occ}] = c.rows.size();
    c.rows.push_back(row);
  }
  seen.clear();
  for (const PassRecord& r : b.records) {
    int occ = seen[r.name]++;
    auto it = rowOf.find({r.name, occ});
    CompareRow* row;
    if (it == rowOf.end()) {
      CompareRow nr;
      nr.name = r.name;
      nr.occurrence = occ;
      c.rows.push_back(nr);
      row = &c.rows.back();
    } else {
      row = &c.rows[it->second];
    }
    row->indexB = r.index;
    row->nsB = r.totalNs();
    row->statusB = r.status;
    row->reasonB = r.reason;
    row->inB = true;
  }
  std::vector<size_t> noisy;
  for (size_t i = 0; i < c.rows.size(); ++i) {
    const CompareRow& r = c.rows[i];
    if (r.ranA() && !r.ranB()) c.ranOnlyInA.push_back(i);
    if (r.ranB() && !r.ranA()) c.ranOnlyInB.push_back(i);
    if (std::max(r.nsA, r.nsB) < gate.noiseFloorNs) continue;
    if (r.nsB > r.nsA) c.regressions.push_back(i);
    else if (r.nsB < r.nsA) c.improvements.push_back(i);
  }
  auto byDelta = [&](size_t x, size_t y) {
    return std::abs(c.rows[x].nsB - c.rows[x].nsA) > std::abs(c.rows[y].nsB - c.rows[y].nsA);
  };
  std::sort(c.regressions.begin(), c.regressions.end(), byDelta);
  std::sort(c.improvements.begin(), c.improvements.end(), byDelta);
  if (gate.failAbove > 0) {
    if (c.totalA > 0 && c.totalRatio() > gate.failAbove)
      c.gateReasons.push_back(fmt::format("total {:.3f} ms -> {:.3f} ms (x{:.3f} > x{:.3f})", c.totalA / 1e6,
                                          c.totalB / 1e6, c.totalRatio(), gate.failAbove));
    for (size_t i : c.regressions) {
      const CompareRow& r = c.rows[i];
      if (r.nsA > 0 && r.ratio() > gate.failAbove)
        c.gateReasons.push_back(fmt::format("pass #{} {}: {:.3f} ms -> {:.3f} ms (x{:.3f} > x{:.3f})", r.indexB, r.name,
                                            r.nsA / 1e6, r.nsB / 1e6, r.ratio(), gate.failAbove));
      else if (r.nsA == 0 && r.nsB >= gate.noiseFloorNs)
        c.gateReasons.push_back(fmt::format("pass #{} {}: ran only in {} ({:.3f} ms)", r.indexB, r.name, c.labelB,
                                            r.nsB / 1e6));
    }
    c.gateFailed = !c.gateReasons.empty();
  }
  if (c.regressions.size() > topN) c.regressions.resize(topN);
  if (c.improvements.size() > topN) c.improvements.resize(topN);
  return c;
}

}  // namespace ls::trace
