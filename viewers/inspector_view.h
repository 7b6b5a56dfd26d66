// Node inspector: op, args (node refs clickable), TensorMeta per output, quant params, users,
// provenance, what the pass changed in the node (fields coloured, old values shown), and the
// node's lineage across all passes of the trace (followed through replacements; click to jump).
#pragma once

#include "viewers/model/constant_values.h"
#include "viewers/model/error_overlay.h"
#include "viewers/model/node_history.h"
#include "viewers/view_state.h"

namespace ls::viewers {

class InspectorView {
 public:
  void draw(ViewState& s);

  /// What the inspector shows for the selected node (scripts and tests): the fields the
  /// selected pass changed in it, and its lineage.
  std::vector<viewmodel::FieldChange> changedFields(const ViewState& s) const;
  const std::vector<viewmodel::LineageEntry>& lineage(const ViewState& s);
  /// Jumps to lineage entry `index` (its pass and node), as a click on it does; false if none.
  bool followLineage(ViewState& s, size_t index);

 private:
  uint64_t histGeneration_ = 0;  ///< trace of history_ (generationOf)
  ir::NodeId histNode_ = ir::kInvalidNode;
  std::vector<std::string> histPath_;
  viewmodel::NodeHistory history_;
  std::vector<viewmodel::LineageEntry> lineage_;
  int histPass_ = -2;
  // Values of the selected constant, loaded on demand ("Show values").
  uint64_t valuesGeneration_ = 0;
  ir::NodeId valuesNode_ = ir::kInvalidNode;
  std::string valuesText_, valuesError_;
  // Error overlay of a localised pass (trace generation, pass, nested graph open).
  viewmodel::ErrorOverlay errors_;
  uint64_t errorsGeneration_ = 0;
  int errorsPass_ = -2;
  bool errorsNested_ = false;
};

}  // namespace ls::viewers
