// Delegation tab (XNNPACK): the shown graph's delegates (nodes, ops) and the ops left
// undelegated with the partitioner's reason; clicking a row selects its node in the graph.
#pragma once

#include <cstdint>
#include <memory>

#include "viewers/model/delegation.h"
#include "viewers/view_state.h"

namespace ls::viewers {

class DelegationView {
 public:
  /// Draws the delegation of `shown` (the graph the graph view shows) inside the current child.
  void draw(ViewState& s, const std::shared_ptr<const ir::Graph>& shown);
  const viewmodel::Delegation& delegation() const { return d_; }

 private:
  const ir::Graph* cached_ = nullptr;
  std::shared_ptr<const ir::Graph> hold_;
  viewmodel::Delegation d_;
};

}  // namespace ls::viewers
