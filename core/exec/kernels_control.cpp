// Structural kernels: operator.getitem (selects one output of a multi-output node) and the
// generic nested-graph call lowerscope.call_delegate (runs a subgraph by name).
#include "core/exec/executor.h"
#include "core/exec/kernel_util.h"

namespace ls::exec {
namespace {

Status getitem(KernelCtx& c) {
  const ir::ValueRef* r = c.arg(0).ref();
  if (!r) return c.error("{}: expected a node reference", c.argDesc(0));
  LS_ASSIGN_OR_RETURN(index, c.getInt(1));
  const std::vector<Tensor>& outs = c.nodeValues(r->node);
  const int64_t n = int64_t(outs.size());
  if (index < -n || index >= n) return c.error("index {} out of range for a node with {} outputs", index, n);
  c.setOutput(0, outs[size_t(index < 0 ? index + n : index)]);
  return Status::ok();
}

/// args: [subgraph name (str), inputs (Tensor[])]; outputs: the subgraph's outputs.
Status callDelegate(KernelCtx& c) {
  auto name = c.getString(0);
  if (!name) return c.error("{}: expected the subgraph name (a string)", c.argDesc(0));
  LS_ASSIGN_OR_RETURN(ins, c.tensorList(1));
  std::vector<Tensor> inputs;
  inputs.reserve(ins.size());
  for (const Tensor* t : ins) inputs.push_back(t ? *t : Tensor());
  LS_ASSIGN_OR_RETURN(outs, c.executor().runDelegate(c.graph(), c.node(), *name, inputs));
  for (size_t k = 0; k < outs.size(); ++k) c.setOutput(k, outs[k]);
  return Status::ok();
}

}  // namespace

void registerControlKernels(KernelRegistry& r) {
  r.registerKernel("operator.getitem", getitem);
  r.registerKernel(kCallDelegateOp, callDelegate);
}

}  // namespace ls::exec
