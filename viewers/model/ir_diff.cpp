// Text IR diff (see ir_diff.h).
#include "viewers/model/ir_diff.h"

#include <dtl/dtl.hpp>
#include <fmt/format.h>

#include "core/ir/printer.h"

namespace ls::viewmodel {

namespace {

std::vector<std::string> splitLines(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find('\n', start);
    if (end == std::string::npos) end = s.size();
    out.emplace_back(s, start, end - start);
    start = end + 1;
  }
  return out;
}

}  // namespace

IrDiff irDiff(const ir::Graph& before, const ir::Graph& after, int context) {
  const std::vector<std::string> a = splitLines(ir::printGraph(before)), b = splitLines(ir::printGraph(after));
  IrDiff out;
  out.beforeLines = a.size();
  out.afterLines = b.size();
  dtl::Diff<std::string, std::vector<std::string>> d(a, b);
  d.onHuge();  // bounded memory on graphs of 10k+ lines
  d.compose();
  // Hunks from the edit script, with `context` common lines around each run of changes.
  const auto& ses = d.getSes().getSequence();
  const long long n = (long long)ses.size();
  std::vector<char> keep(size_t(n), 0);
  for (long long i = 0; i < n; ++i)
    if (ses[size_t(i)].second.type != dtl::SES_COMMON)
      for (long long k = std::max(0LL, i - context); k <= std::min(n - 1, i + context); ++k) keep[size_t(k)] = 1;
  for (long long i = 0; i < n;) {
    if (!keep[size_t(i)]) {
      ++i;
      continue;
    }
    long long j = i;
    while (j < n && keep[size_t(j)]) ++j;
    // Hunk [i, j): line numbers from the first element of each side in it.
    long long aStart = 0, bStart = 0, aLen = 0, bLen = 0;
    for (long long k = i; k < j; ++k) {
      const auto& info = ses[size_t(k)].second;
      if (info.type != dtl::SES_ADD) {
        if (!aLen) aStart = info.beforeIdx;
        ++aLen;
      }
      if (info.type != dtl::SES_DELETE) {
        if (!bLen) bStart = info.afterIdx;
        ++bLen;
      }
    }
    out.lines.push_back({IrDiffLine::Kind::Hunk, fmt::format("@@ -{},{} +{},{} @@", aStart, aLen, bStart, bLen)});
    for (long long k = i; k < j; ++k) {
      const auto& [text, info] = ses[size_t(k)];
      IrDiffLine::Kind kind = info.type == dtl::SES_ADD      ? IrDiffLine::Kind::Added
                              : info.type == dtl::SES_DELETE ? IrDiffLine::Kind::Removed
                                                             : IrDiffLine::Kind::Context;
      if (kind == IrDiffLine::Kind::Added) ++out.added;
      if (kind == IrDiffLine::Kind::Removed) ++out.removed;
      out.lines.push_back({kind, text});
    }
    i = j;
  }
  return out;
}

std::string unifiedText(const IrDiff& d, const std::string& beforeName, const std::string& afterName) {
  std::string s = fmt::format("--- {}\n+++ {}\n", beforeName, afterName);
  for (const IrDiffLine& l : d.lines) {
    switch (l.kind) {
      case IrDiffLine::Kind::Hunk: s += l.text; break;
      case IrDiffLine::Kind::Added: s += "+" + l.text; break;
      case IrDiffLine::Kind::Removed: s += "-" + l.text; break;
      case IrDiffLine::Kind::Context: s += " " + l.text; break;
    }
    s += '\n';
  }
  return s;
}

}  // namespace ls::viewmodel
