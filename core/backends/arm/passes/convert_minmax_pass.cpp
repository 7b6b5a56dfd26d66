// ConvertMinMaxPass (upstream backends/arm/_passes/convert_minmax_pass.py): TOSA REDUCE_MAX/MIN
// reduce one axis and keep it. max.dim / min.dim become amax / amin, and every amax / amin
// over several dims or without keepdim is unrolled:
//     amax(x, [d1, d2], keepdim=False) -> view(amax(amax(x, d1, True), d2, True), result shape)
// (upstream squeezes; ConvertSqueezesToViewPass then makes that squeeze the same view).
// max.dim / min.dim return (values, indices) read through getitem. Upstream refuses a max.dim
// whose indices are used ("Argmax is not supported"); here used indices become argmax / argmin
// of the same input, dim and keepdim (RewriteArgmaxPass lowers them to ARGMAX), and the values
// the amax / amin chain. Both pick the first extreme element, as torch's max.dim does.
// An amax / amin that already is one kept dim is left alone, and so is a rank-0 input.
#include <fmt/format.h>

#include <algorithm>

#include "core/backends/arm/arm_passes.h"
#include "core/ops/registry.h"
#include "core/passes/node_builder.h"

namespace ls::arm {

namespace {

class ConvertMinMaxPass : public passes::InPlacePass {
 public:
  ConvertMinMaxPass()
      : InPlacePass("ConvertMinMaxPass",
                    "max.dim/min.dim -> amax/amin (+ argmax/argmin for used indices); amax/amin unrolled to one "
                    "kept dim each (+ view)") {
    targets({"aten.max.dim", "aten.min.dim", "aten.amax.default", "aten.amin.default"});
    converted_ = stat("converted", "max.dim / min.dim replaced");
    unrolled_ = stat("unrolled", "amax / amin reductions unrolled");
    indices_ = stat("indices", "used indices of max.dim / min.dim computed by argmax / argmin");
  }

 protected:
  Status transform(passes::GraphEditor& ed) override;

 private:
  Status convert(passes::GraphEditor& ed, ir::NodeId id);
  size_t converted_, unrolled_, indices_;
};

Status ConvertMinMaxPass::convert(passes::GraphEditor& ed, ir::NodeId id) {
  static const ir::OpId kGetitem = ir::internOp("operator.getitem");
  static const ir::OpId kMaxDim = ir::internOp("aten.max.dim");
  static const ir::OpId kMinDim = ir::internOp("aten.min.dim");
  static const ir::OpId kAmax = ir::internOp("aten.amax.default");
  ir::Graph& g = ed.graph();
  const ir::Node n = g.node(id);  // a copy: the editor inserts nodes
  const bool withIndices = n.op == kMaxDim || n.op == kMinDim;
  const bool isMax = n.op == kMaxDim || n.op == kAmax;
  const ir::ValueRef* xr = n.args.empty() ? nullptr : n.args[0].ref();
  if (!xr) return Status::error("the input (arg #0) must be a tensor");
  const ir::ValueRef x = *xr;
  const ir::TensorMeta xm = g.meta(x);
  const int rank = xm.rank();
  if (rank == 0) return Status::ok();
  std::vector<int64_t> dims;
  const ir::Arg& da = ops::schemaArg(n, 1);
  if (const int64_t* d = da.asInt()) dims.push_back(*d);
  else if (const ir::IntList* l = da.asIntList()) dims.assign(l->begin(), l->end());
  else if (!da.isNone()) return Status::error("dim must be an int or a list of ints");
  if (dims.empty())
    for (int d = 0; d < rank; ++d) dims.push_back(d);
  for (int64_t& d : dims) {
    if (d < -rank || d >= rank) return Status::error(fmt::format("dim {} is out of range for rank {}", d, rank));
    if (d < 0) d += rank;
  }
  const bool* kd = ops::schemaArg(n, 2).asBool();
  const bool keepdim = kd && *kd;
  if (!withIndices && dims.size() == 1 && keepdim) return Status::ok();  // one kept dim: TOSA's form
  // The getitem readers of (values, indices); anything else reading the pair is refused.
  std::vector<ir::NodeId> values, indices;
  if (withIndices) {
    for (ir::NodeId u : g.users(id)) {
      const ir::Node& un = g.node(u);
      const int64_t* i = un.op == kGetitem && un.args.size() >= 2 ? un.args[1].asInt() : nullptr;
      if (!i || (*i != 0 && *i != 1))
        return Status::error(fmt::format("'{}' reads the (values, indices) pair other than through getitem 0 or 1",
                                         un.name));
      (*i == 0 ? values : indices).push_back(u);
    }
  }
  passes::NodeBuilder build(ed, id);
  ir::ValueRef v = x;
  for (int64_t d : dims) {
    LS_ASSIGN_OR_RETURN(r, build.op(isMax ? "aten.amax.default" : "aten.amin.default", {v, ir::IntList{d}, true}, {},
                                    isMax ? "amax" : "amin"));
    v = r;
  }
  const ir::Shape outShape = n.outputs.at(0).shape;
  if (build.meta(v).shape != outShape) {
    LS_ASSIGN_OR_RETURN(r, build.op("aten.view_copy.default", {v, ir::IntList(outShape.toVector())}));
    v = r;
  }
  if (!withIndices) {
    ed.replaceAllUses({id, 0}, v);
    LS_RETURN_IF_ERROR(ed.erase(id));
    bump(unrolled_);
    return Status::ok();
  }
  for (ir::NodeId gi : values) {
    ed.replaceAllUses({gi, 0}, v);
    LS_RETURN_IF_ERROR(ed.erase(gi));
  }
  std::optional<ir::ValueRef> idx;
  for (ir::NodeId gi : indices) {
    if (!g.users(gi).empty() && !idx) {
      LS_ASSIGN_OR_RETURN(r, build.op(isMax ? "aten.argmax.default" : "aten.argmin.default", {x, dims[0], keepdim}, {},
                                      isMax ? "argmax" : "argmin"));
      idx = r;
      bump(indices_);
    }
    if (idx) ed.replaceAllUses({gi, 0}, *idx);
    LS_RETURN_IF_ERROR(ed.erase(gi));
  }
  LS_RETURN_IF_ERROR(ed.erase(id));
  bump(converted_);
  return Status::ok();
}

Status ConvertMinMaxPass::transform(passes::GraphEditor& ed) {
  ir::Graph& g = ed.graph();
  std::vector<ir::NodeId> ids;
  for (ir::OpId op : targetOps())
    for (ir::NodeId id : g.nodesOfOp(op)) ids.push_back(id);
  std::sort(ids.begin(), ids.end(), [&](auto a, auto b) { return g.position(a) < g.position(b); });
  for (ir::NodeId id : ids) {
    if (!allowedToTransform(g.node(id))) continue;
    const std::string name = g.node(id).name, op = ir::opName(g.node(id).op);
    Status st = convert(ed, id);
    if (!st.isOk()) return st.withContext(fmt::format("ConvertMinMaxPass at '{}' ({}): ", name, op));
  }
  return Status::ok();
}

}  // namespace

void registerConvertMinMaxPass(passes::PassRegistry& r) {
  r.add("ConvertMinMaxPass", [] { return std::make_unique<ConvertMinMaxPass>(); });
}

}  // namespace ls::arm
