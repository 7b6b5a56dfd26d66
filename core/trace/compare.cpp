// A/B comparison of traces with a regression gate.
#include "core/trace/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace ls::trace {

namespace {

/// Aligns two pass sequences by a longest common subsequence of their names: pairs (i, j) of
/// matched records, (i, -1) only in A, (-1, j) only in B, in pipeline order (at a gap, A's
/// passes before B's).
std::vector<std::pair<int, int>> alignByName(const std::vector<PassRecord>& a, const std::vector<PassRecord>& b) {
  const size_t n = a.size(), m = b.size();
  // lcs[i][j]: LCS length of a[i..] and b[j..], row-major with stride m + 1.
  std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      lcs[i * (m + 1) + j] = a[i].name == b[j].name ? lcs[(i + 1) * (m + 1) + j + 1] + 1
                                                    : std::max(lcs[(i + 1) * (m + 1) + j], lcs[i * (m + 1) + j + 1]);
  std::vector<std::pair<int, int>> out;
  out.reserve(n + m);
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i].name == b[j].name) {
      out.emplace_back(int(i++), int(j++));
    } else if (j == m || (i < n && lcs[(i + 1) * (m + 1) + j] >= lcs[i * (m + 1) + j + 1])) {
      out.emplace_back(int(i++), -1);
    } else {
      out.emplace_back(-1, int(j++));
    }
  }
  return out;
}

}  // namespace

TraceComparison compareTraces(const Trace& a, const Trace& b, const GateOptions& gate, size_t topN) {
  TraceComparison c;
  c.totalA = a.totalNs;
  c.totalB = b.totalNs;
  auto take = [](const PassRecord& r, int& index, int64_t& ns, PassStatus& status, SkipReason& reason, bool& in) {
    index = r.index;
    ns = r.totalNs();
    status = r.status;
    reason = r.reason;
    in = true;
  };
  std::map<std::string, int> seen;
  for (auto [ia, ib] : alignByName(a.records, b.records)) {
    const PassRecord& any = ia >= 0 ? a.records[size_t(ia)] : b.records[size_t(ib)];
    CompareRow row;
    row.name = any.name;
    row.occurrence = seen[any.name]++;
    if (ia >= 0) take(a.records[size_t(ia)], row.indexA, row.nsA, row.statusA, row.reasonA, row.inA);
    if (ib >= 0) take(b.records[size_t(ib)], row.indexB, row.nsB, row.statusB, row.reasonB, row.inB);
    c.rows.push_back(std::move(row));
  }
  for (size_t i = 0; i < c.rows.size(); ++i) {
    const CompareRow& r = c.rows[i];
    if (!r.inB) c.onlyInA.push_back(i);
    if (!r.inA) c.onlyInB.push_back(i);
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
