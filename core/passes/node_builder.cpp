// NodeBuilder over the retrace Rewriter or the in-place GraphEditor.
#include "core/passes/node_builder.h"

#include <fmt/format.h>

#include "core/ops/registry.h"

namespace ls::passes {

Result<ir::ValueRef> NodeBuilder::op(std::string_view opName, std::vector<ir::Arg> args, std::vector<ir::Kwarg> kwargs,
                                     std::string_view nameHint) {
  // Meta inference keeps an unregistered op's recorded outputs (an opaque imported node); a
  // node a pass builds has none, so a typo in an op name would leave a value-less node.
  const ops::OpSchema* schema = ops::OpRegistry::instance().find(ir::internOp(opName));
  if (!schema || !schema->meta)
    return Status::error(fmt::format("cannot build a node of '{}': not a registered op with a meta function", opName));
  if (rw_) return rw_->emit(opName, std::move(args), std::move(kwargs), nameHint);
  Result<ir::ValueRef> r =
      after_ ? ed_->insertAfter(anchor_, opName, std::move(args), std::move(kwargs), nameHint, derivedFrom_)
             : ed_->insertBefore(anchor_, opName, std::move(args), std::move(kwargs), nameHint, derivedFrom_);
  if (r && after_) anchor_ = r->node;  // the next node goes after this one: emission order
  return r;
}

ir::ValueRef NodeBuilder::constant(ir::Constant c, std::string_view nameHint) {
  if (rw_) return rw_->addConstant(std::move(c), nameHint);
  return ed_->addConstant(anchor_, std::move(c), nameHint, derivedFrom_);
}

const ir::TensorMeta& NodeBuilder::meta(ir::ValueRef r) const { return rw_ ? rw_->meta(r) : ed_->graph().meta(r); }

const ir::Graph& NodeBuilder::graph() const { return rw_ ? rw_->graph() : ed_->graph(); }

}  // namespace ls::passes
