// Upstream's tosa_supported_operators.py: the check chain of tosa_support_factory and its
// generic negative checks (RankCheck, CheckDtypeInputsAndOutputs). See operator_support.h.
#include <fmt/format.h>

#include <algorithm>

#include "core/backends/arm/operator_support/operator_support.h"
#include "core/ir/op_ref.h"

namespace ls::arm::support {

std::string Spec::str() const {
  std::string s = profile == passes::Profile::INT ? "TOSA-1.0+INT" : "TOSA-1.0+FP";
  if (target == passes::Target::U55) s += "+u55";
  if (target == passes::Target::U85) s += "+u85";
  return s;
}

std::string torchDType(ir::DType t) { return fmt::format("torch.{}", ir::dtypeName(t)); }

std::string shapeList(const ir::Shape& s) {
  std::string out = "[";
  for (int i = 0; i < s.rank(); ++i) out += fmt::format("{}{}", i ? ", " : "", s[i]);
  return out + "]";
}

const ir::Node* producer(const ir::Graph& g, const ir::Node& n, int i) {
  if (i < 0 || size_t(i) >= n.args.size()) return nullptr;
  const ir::ValueRef* r = n.args[size_t(i)].ref();
  return r ? g.find(r->node) : nullptr;
}

std::vector<const ir::Node*> inputNodes(const ir::Graph& g, const ir::Node& n) {
  std::vector<const ir::Node*> out;
  n.forEachInput([&](const ir::ValueRef& r) {
    const ir::Node* p = g.find(r.node);
    if (p && std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  });
  return out;
}

bool isOp(const ir::Node& n, ir::OpId op) { return n.isCall() && n.op == op; }

namespace {

/// Upstream's MAX_RANK (backends/arm/constants.py).
constexpr int kMaxRank = 6;

/// RankCheck: inputs and outputs of rank <= 6 (constants, upstream's get_attr inputs, are not
/// counted).
class RankCheck : public Check {
 public:
  std::string_view name() const override { return "RankCheck"; }
  std::optional<std::string> refuse(const ir::Graph& g, const ir::Node& n) const override {
    for (const ir::Node* in : inputNodes(g, n)) {
      if (in->kind == ir::NodeKind::GetAttr) continue;
      for (const ir::TensorMeta& m : in->outputs)
        if (m.isTensor() && m.rank() > kMaxRank)
          return fmt::format("{} has input_node {} with shape {}, rank {} which is unsupported. Max supported rank is {}.",
                             n.name, in->name, shapeList(m.shape), m.rank(), kMaxRank);
    }
    for (const ir::TensorMeta& m : n.outputs)
      if (m.isTensor() && m.rank() > kMaxRank)
        return fmt::format("{} has shape {}, rank={} which is unsupported.Max supported rank is {}.", n.name,
                           shapeList(m.shape), m.rank(), kMaxRank);
    return std::nullopt;
  }
};

/// CheckDtypeInputsAndOutputs: no input or output of a dtype the specification lacks (float64
/// always, bfloat16 without the bf16 extension, bool on Ethos-U55).
class CheckDtypeInputsAndOutputs : public Check {
 public:
  explicit CheckDtypeInputsAndOutputs(const Spec& spec) : spec_(spec) {
    disallowed_ = {ir::DType::Float64, ir::DType::BFloat16};
    if (spec.u55()) disallowed_.push_back(ir::DType::Bool);
  }
  std::string_view name() const override { return "CheckDtypeInputsAndOutputs"; }
  std::optional<std::string> refuse(const ir::Graph& g, const ir::Node& n) const override {
    auto bad = [&](ir::DType t) { return std::find(disallowed_.begin(), disallowed_.end(), t) != disallowed_.end(); };
    for (const ir::Node* in : inputNodes(g, n)) {
      if (in->kind == ir::NodeKind::GetAttr) continue;
      const ir::TensorMeta& m = in->meta();
      if (m.isTensor() && bad(m.dtype))
        return fmt::format("Had {} input {} that is not supported by {}.", torchDType(m.dtype), in->name, spec_.str());
    }
    for (const ir::TensorMeta& m : n.outputs)
      if (m.isTensor() && bad(m.dtype))
        return fmt::format("Had {} output that is not supported by {}.", torchDType(m.dtype), spec_.str());
    return std::nullopt;
  }

 private:
  Spec spec_;
  std::vector<ir::DType> disallowed_;
};

}  // namespace

std::vector<CheckPtr> genericChecks(const Spec& spec) {
  std::vector<CheckPtr> c;
  c.push_back(std::make_unique<RankCheck>());
  c.push_back(std::make_unique<CheckDtypeInputsAndOutputs>(spec));
  return c;
}

std::vector<CheckPtr> tosaSupportChecks(const Spec& spec) {
  // Upstream: chain(any_chain(profile list, registered per-op checks), RankCheck, ...,
  // CheckDtypeInputsAndOutputs, the Ethos-U55 checks). The per-op checks decide for their own
  // ops only; the profile lists are not enforced here (docs/DESIGN.md, "Operator support").
  std::vector<CheckPtr> c;
  c.push_back(convolutionSupported(spec));
  for (CheckPtr& p : pool2dSupported(spec)) c.push_back(std::move(p));
  c.push_back(sumSupported(spec));
  for (CheckPtr& p : genericChecks(spec)) c.push_back(std::move(p));
  if (spec.u55())
    for (CheckPtr& p : ethosU55Checks()) c.push_back(std::move(p));
  return c;
}

std::vector<passes::SupportRejection> evaluate(const ir::Graph& g, const Spec& spec) {
  std::vector<CheckPtr> checks = tosaSupportChecks(spec);
  std::vector<passes::SupportRejection> out;
  for (const ir::NodePtr& p : g.nodes()) {
    if (!p->isCall() || p->hasFlag(ir::kFlagOpaque)) continue;
    for (const CheckPtr& c : checks) {
      if (std::optional<std::string> why = c->refuse(g, *p)) {
        out.push_back({p->id, p->name, std::string(ir::opName(p->op)), std::string(c->name()), std::move(*why)});
        break;
      }
    }
  }
  return out;
}

}  // namespace ls::arm::support
