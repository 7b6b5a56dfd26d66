// Pipeline view model: filtering and stepping.
#include "viewers/model/pass_list.h"

#include <algorithm>
#include <cctype>

namespace ls::viewmodel {

bool containsNoCase(std::string_view text, std::string_view needle) {
  if (needle.empty()) return true;
  if (needle.size() > text.size()) return false;
  auto lower = [](char c) { return char(std::tolower(static_cast<unsigned char>(c))); };
  for (size_t i = 0; i + needle.size() <= text.size(); ++i) {
    size_t k = 0;
    while (k < needle.size() && lower(text[i + k]) == lower(needle[k])) ++k;
    if (k == needle.size()) return true;
  }
  return false;
}

std::vector<int> visiblePasses(const trace::Trace& t, const PassFilter& filter) {
  std::vector<int> out;
  out.reserve(t.records.size());
  for (const trace::PassRecord& r : t.records) {
    bool failed = r.status == trace::PassStatus::Failed;
    if (!failed && filter.hideSkipped && r.status == trace::PassStatus::Skipped) continue;
    if (!failed && filter.hideUnchanged && r.status == trace::PassStatus::Unchanged) continue;
    if (!containsNoCase(r.name, filter.search)) continue;
    out.push_back(r.index);
  }
  return out;
}

int step(const trace::Trace& t, const std::vector<int>& visible, int current, StepKey key) {
  auto changed = [&](int i) {
    return i >= 0 && size_t(i) < t.records.size() && t.records[size_t(i)].status == trace::PassStatus::Changed;
  };
  switch (key) {
    case StepKey::First: return -1;
    case StepKey::Last: return visible.empty() ? current : visible.back();
    case StepKey::Next:
    case StepKey::NextChanged: {
      auto it = std::upper_bound(visible.begin(), visible.end(), current);
      for (; it != visible.end(); ++it)
        if (key == StepKey::Next || changed(*it)) return *it;
      return current;
    }
    case StepKey::Prev:
    case StepKey::PrevChanged: {
      auto it = std::lower_bound(visible.begin(), visible.end(), current);
      while (it != visible.begin()) {
        --it;
        if (key == StepKey::Prev || changed(*it)) return *it;
      }
      // Before the first visible pass comes the source row (plain Up only).
      return key == StepKey::Prev ? -1 : current;
    }
    case StepKey::COUNT: break;
  }
  return current;
}

int64_t nodeDelta(const trace::PassRecord& r) {
  if (!r.ran()) return 0;
  return int64_t(r.nodesAfter) - int64_t(r.nodesBefore);
}

int64_t maxPassNs(const trace::Trace& t) {
  int64_t m = 1;
  for (const trace::PassRecord& r : t.records) m = std::max(m, r.totalNs());
  return m;
}

}  // namespace ls::viewmodel
