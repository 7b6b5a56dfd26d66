// FuseViewCopyTransformPass (upstream backends/arm/_passes/fuse_view_copy_transform_pass.py):
// a chain view(s0) -> [unary elementwise ops] -> view(s1) -> ... -> view(sN), every link
// read only by the next one, keeps its first view, which now gives shape sN, and loses the
// others; a view left giving its input's own shape goes too. Upstream fuses aten view_copy
// chains; here the same runs over TOSA RESHAPE chains as well, since ExirToTosaPass emits
// RESHAPEs of its own (a sum without keepdim reshapes to the squeezed shape, rank-matching
// reshapes it back): x * x.sum() otherwise reaches the file as RESHAPE [1,1] -> [] -> [1,1],
// whose empty CONST_SHAPE an implementation may be unable to allocate. The unary ops are the
// elementwise ones whose values do not depend on the shape (upstream's list and their TOSA
// forms; no per-channel op, no op with a shaped operand besides its input).
#include <fmt/format.h>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"

namespace ls::arm {

namespace {

class FuseViewCopyTransformPass : public passes::InPlacePass {
 public:
  FuseViewCopyTransformPass()
      : InPlacePass("FuseViewCopyTransformPass",
                    "view -> unary elementwise ops -> view chains keep one view (aten view_copy and TOSA RESHAPE); "
                    "a view to its input's shape is removed") {
    targets({"aten.view_copy.default", "tosa.RESHAPE"});
    fused_ = stat("fused", "views removed from chains (the first view takes the last one's shape)");
    noops_ = stat("noops", "views giving their input's shape removed");
  }

 protected:
  Status transform(passes::GraphEditor& ed) override {
    static const ir::OpId kView = ir::internOp("aten.view_copy.default"), kReshape = ir::internOp("tosa.RESHAPE");
    ir::Graph& g = ed.graph();
    for (const ir::OpId viewOp : {kView, kReshape}) {
      std::vector<ir::NodeId> views(g.nodesOfOp(viewOp).begin(), g.nodesOfOp(viewOp).end());
      std::sort(views.begin(), views.end(), [&](auto a, auto b) { return g.position(a) < g.position(b); });
      for (ir::NodeId first : views) {
        if (!g.contains(first) || g.node(first).op != viewOp) continue;
        // Walk the single-user chain: every view after `first` is removed, the last one's
        // shape operand moves to `first`.
        std::vector<ir::NodeId> later;
        for (ir::NodeId at = first;;) {
          auto users = g.users(at);
          if (users.size() != 1) break;
          const ir::Node& u = g.node(users[0]);
          if (!u.isCall() || u.args.empty() || !u.args[0].ref() || u.args[0].ref()->node != at) break;
          if (u.op == viewOp) later.push_back(u.id);
          else if (!shapeAgnostic(u.op)) break;
          at = u.id;
        }
        if (!later.empty()) {
          // The final shape (static shapes: the last view's output), as an int list or, for a
          // RESHAPE, a CONST_SHAPE placed before `first` (the last one's comes after it).
          const std::vector<int64_t> shape = g.node(later.back()).meta().shape.toVector();
          std::vector<ir::Arg> args = g.node(first).args;
          if (viewOp == kReshape) {
            Builder b(ed, first);
            LS_ASSIGN_OR_RETURN(sh, b.constShape(shape));
            args[1] = ir::Arg(sh);
          } else {
            args[1] = ir::Arg(ir::IntList(shape));
          }
          ed.setArgs(first, std::move(args));
          for (ir::NodeId v : later) {
            ed.replaceAllUses({v, 0}, *g.node(v).args[0].ref());
            LS_RETURN_IF_ERROR(ed.erase(v));
            bump(fused_);
          }
        }
      }
    }
    // Metadata first (a fused view's chain now carries the final shape), then the no-op views.
    LS_RETURN_IF_ERROR(ed.finish());
    for (const ir::OpId viewOp : {kView, kReshape}) {
      std::vector<ir::NodeId> views(g.nodesOfOp(viewOp).begin(), g.nodesOfOp(viewOp).end());
      for (ir::NodeId v : views) {
        const ir::Node& n = g.node(v);
        const ir::ValueRef* in = n.args.empty() ? nullptr : n.args[0].ref();
        if (!in || g.meta(*in).shape != n.meta().shape || g.meta(*in).dtype != n.meta().dtype) continue;
        ed.replaceAllUses({v, 0}, *in);
        LS_RETURN_IF_ERROR(ed.erase(v));
        bump(noops_);
      }
    }
    if (ed.changed()) ed.eliminateDeadCode();
    return Status::ok();
  }

 private:
  /// Elementwise ops of one tensor operand whose values do not depend on the shape.
  static bool shapeAgnostic(ir::OpId op) {
    static const std::vector<ir::OpId> ops = [] {
      std::vector<ir::OpId> v;
      for (const char* name :
           {"aten.alias_copy.default", "aten.clone.default", "aten._to_copy.default", "aten.abs.default",
            "aten.clamp.default", "aten.ceil.default", "aten.floor.default", "aten.neg.default", "aten.relu.default",
            "aten.round.default", "aten.sigmoid.default", "aten.silu.default", "aten.sqrt.default",
            "aten.tanh.default", "aten.sign.default", "aten.reciprocal.default", "aten.gelu.default",
            "aten.rsqrt.default", "aten.exp.default", "aten.log.default", "tosa.ABS", "tosa.CEIL", "tosa.FLOOR",
            "tosa.CLAMP", "tosa.SIGMOID", "tosa.TANH", "tosa.EXP", "tosa.LOG", "tosa.RECIPROCAL", "tosa.RSQRT",
            "tosa.ERF", "tosa.CAST", "tosa.IDENTITY"})
        v.push_back(ir::internOp(name));
      return v;
    }();
    return std::find(ops.begin(), ops.end(), op) != ops.end();
  }

  size_t fused_, noops_;
};

}  // namespace

void registerFuseViewCopyTransformPass(passes::PassRegistry& r) {
  r.add("FuseViewCopyTransformPass", [] { return std::make_unique<FuseViewCopyTransformPass>(); });
}

}  // namespace ls::arm
