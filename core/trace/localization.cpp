// Queries over a pass's numerics localisation.
#include "core/trace/localization.h"

#include <algorithm>
#include <array>
#include <numeric>

namespace ls::trace {

namespace {
constexpr std::array<std::string_view, size_t(NodeMatch::COUNT)> kMatchNames = {"id", "provenance"};
static_assert(kMatchNames.size() == size_t(NodeMatch::COUNT));
}  // namespace

std::string_view nodeMatchName(NodeMatch m) { return size_t(m) < kMatchNames.size() ? kMatchNames[size_t(m)] : "?"; }

const NodeError* Localization::find(ir::NodeId id) const {
  for (const NodeError& e : nodes)
    if (e.id == id) return &e;
  return nullptr;
}

std::vector<size_t> Localization::ranked() const {
  std::vector<size_t> order(nodes.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return nodes[a].error > nodes[b].error; });
  return order;
}

size_t Localization::exceeding() const {
  return size_t(std::count_if(nodes.begin(), nodes.end(), [](const NodeError& e) { return e.exceeds; }));
}

}  // namespace ls::trace
