// Random valid graphs and the pipeline-run oracle (see random_graph.h).
#include "support/random_graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <memory>
#include <numeric>
#include <random>
#include <set>
#include <unordered_set>

#include "core/exec/executor.h"
#include "core/exec/kernel.h"
#include "core/exec/synth.h"
#include "core/exec/tensor.h"
#include "core/ops/registry.h"
#include "core/passes/pass_manager.h"
#include "core/session/lowering_session.h"
#include "core/verify/verify.h"

namespace ls::fuzz {

uint32_t Entropy::below(uint32_t n) {
  if (n <= 1) return 0;
  uint64_t x;
  if (seeded_) {
    state_ += 0x9E3779B97F4A7C15ull;  // splitmix64
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    x = z ^ (z >> 31);
  } else {
    x = 0;
    for (int i = 0; i < 2; ++i) x = (x << 8) | (pos_ < size_ ? data_[pos_++] : 0);
  }
  return uint32_t(x % n);
}

namespace {

using ir::DType;
using ir::Shape;
using ir::ValueRef;

/// Ops the schema-driven maker leaves out: creation/random ops, ops that need structured args
/// the maker cannot draw, and ops whose float results are not defined on every input.
bool excludedFromGeneric(const std::string& name) {
  static const std::set<std::string> skip = {
      "aten.empty.memory_format", "aten.new_empty.default", "aten.native_dropout.default", "aten.fill.Tensor",
      "aten.lift_fresh_copy.default", "aten.scalar_tensor.default", "aten.arange.start_step",
      "aten.pow.Tensor_Tensor", "aten.div.Tensor_mode"};
  return skip.count(name) > 0;
}

/// Unary functions defined only for positive inputs: their tensor operands are made positive.
bool needsPositive(const std::string& name) {
  static const std::set<std::string> pos = {"aten.log.default", "aten.sqrt.default", "aten.rsqrt.default",
                                            "aten.reciprocal.default", "aten.div.Tensor", "aten.div.Scalar",
                                            "aten.pow.Tensor_Scalar"};
  return pos.count(name) > 0;
}

class Generator {
 public:
  Generator(Entropy& e, const GenOptions& o) : e_(e), o_(o) {}

  ir::Graph build() {
    const int inputs = 1 + int(e_.below(2));
    for (int i = 0; i < inputs; ++i) input(fmt::format("x{}", i), randomShape());
    const int ops = 1 + int(e_.below(uint32_t(o_.maxOps)));
    for (int i = 0; i < ops; ++i) step();
    std::vector<ValueRef> outs{pool_.back()};
    const int extra = int(e_.below(3));
    for (int i = 0; i < extra; ++i) outs.push_back(e_.coin() ? outs.back() : pick());  // duplicates too
    if (e_.below(8) == 7) outs.push_back(ValueRef{});  // a returned None (an optional result)
    output(outs);
    return std::move(g_);
  }

 private:
  Entropy& e_;
  GenOptions o_;
  ir::Graph g_;
  std::vector<ValueRef> pool_;  ///< float32 values usable as operands
  int params_ = 0;

  const ir::TensorMeta& meta(ValueRef r) const { return g_.meta(r); }
  ValueRef pick() { return pool_[e_.below(uint32_t(pool_.size()))]; }
  int64_t dim() { return 1 + int64_t(e_.below(uint32_t(o_.maxDim))); }

  Shape randomShape() {
    switch (e_.below(4)) {
      case 0: return Shape({1, dim(), dim() + 1, dim() + 1});
      case 1: return Shape({dim(), dim()});
      case 2: return Shape({1, dim(), dim()});
      default: return Shape({1, dim(), dim(), dim()});
    }
  }

  ValueRef input(const std::string& name, Shape s) {
    ir::Node n;
    n.kind = ir::NodeKind::Placeholder;
    n.name = name;
    n.target = name;
    n.outputs.push_back(ir::TensorMeta(DType::Float32, s));
    ValueRef r{g_.append(std::move(n)), 0};
    pool_.push_back(r);
    return r;
  }

  /// A parameter of shape `s`: an existing one of the same shape half the time (shared
  /// weights), else a new shape-only parameter (values synthesised from its name).
  ValueRef parameter(Shape s) {
    if (e_.coin())
      for (const auto& [name, c] : g_.constants())
        if (c.shape == s && c.kind == ir::ConstantKind::Parameter) {
          ir::NodeId id = g_.findByName(name);
          if (id != ir::kInvalidNode) return {id, 0};
        }
    ir::Constant c;
    c.name = fmt::format("p{}", params_++);
    c.fqn = c.name;
    c.kind = ir::ConstantKind::Parameter;
    c.dtype = DType::Float32;
    c.shape = s;
    c.contentHash = ir::constantContentHash(c);
    g_.setConstant(c);
    return getAttr(c.name, s);
  }

  /// A constant with values in [lo, hi] (running variances must be positive).
  ValueRef constant(Shape s, double lo, double hi) {
    std::vector<double> v(size_t(s.numel()));
    for (double& x : v) x = e_.real(lo, hi);
    exec::Tensor t = exec::Tensor::fromDoubles(DType::Float32, s, v);
    ir::Constant c;
    c.name = fmt::format("c{}", params_++);
    c.dtype = DType::Float32;
    c.shape = s;
    c.data = g_.store().intern(std::vector<uint8_t>(t.bytes(), t.bytes() + t.nbytes()));
    c.contentHash = ir::constantContentHash(c);
    g_.setConstant(c);
    return getAttr(c.name, s);
  }

  ValueRef getAttr(const std::string& name, Shape s) {
    ir::Node n;
    n.kind = ir::NodeKind::GetAttr;
    n.name = name;
    n.target = name;
    n.outputs.push_back(ir::TensorMeta(DType::Float32, s));
    return {g_.append(std::move(n)), 0};
  }

  /// Appends a call if the registry accepts it (schema, shape rule) and a kernel runs it;
  /// returns its first output.
  std::optional<ValueRef> call(const std::string& op, std::vector<ir::Arg> args, std::vector<ir::Kwarg> kwargs = {}) {
    const ops::OpSchema* s = ops::OpRegistry::instance().find(ir::internOp(op));
    if (!s || !exec::KernelRegistry::instance().find(s->id)) return std::nullopt;
    ir::Node n;
    n.kind = ir::NodeKind::Call;
    n.op = s->id;
    n.target = op;
    n.name = g_.uniqueName(op.substr(5, op.find('.', 5) - 5));
    n.args = std::move(args);
    n.kwargs = std::move(kwargs);
    if (!ops::checkArgs(*s, n, g_).isOk()) return std::nullopt;
    if (!ops::inferNode(g_, n, n.outputs).isOk() || n.outputs.empty()) return std::nullopt;
    for (const ir::TensorMeta& m : n.outputs)
      if (m.shape.numel() > 4096 || m.shape.numel() <= 0) return std::nullopt;
    return ValueRef{g_.append(std::move(n)), 0};
  }

  /// Keeps a float result as an operand for later ops.
  void keep(std::optional<ValueRef> r) {
    if (r && meta(*r).dtype == DType::Float32) pool_.push_back(*r);
  }

  /// Output 0 of a multi-output op through operator.getitem.
  std::optional<ValueRef> first(std::optional<ValueRef> multi) {
    if (!multi) return std::nullopt;
    ir::Node n;
    n.kind = ir::NodeKind::Call;
    n.op = ir::internOp("operator.getitem");
    n.target = "operator.getitem";
    n.name = g_.uniqueName("getitem");
    n.args = {*multi, int64_t(0)};
    if (!ops::inferNode(g_, n, n.outputs).isOk()) return std::nullopt;
    return ValueRef{g_.append(std::move(n)), 0};
  }

  std::optional<ValueRef> positive(ValueRef x) {
    auto s = call("aten.sigmoid.default", {x});
    return s ? call("aten.add.Scalar", {*s, 0.5}) : std::nullopt;
  }

  /// An operand broadcastable against `x`: another value of its shape, or a parameter of its
  /// shape with random dims set to 1 or leading dims dropped.
  ValueRef partner(ValueRef x) {
    const Shape& s = meta(x).shape;
    std::vector<ValueRef> same;
    for (ValueRef r : pool_)
      if (meta(r).shape == s) same.push_back(r);
    if (e_.coin() && !same.empty()) return same[e_.below(uint32_t(same.size()))];
    std::vector<int64_t> d = s.toVector();
    for (int64_t& v : d)
      if (e_.coin()) v = 1;
    const size_t drop = e_.below(uint32_t(d.size()));
    d.erase(d.begin(), d.begin() + long(drop));
    return parameter(Shape(d));
  }

  void step() {
    ValueRef x = pick();
    const Shape s = meta(x).shape;
    const int64_t r = s.rank();
    if (r == 0) {  // a 0-d value (a full reduction): elementwise ops only
      generic(x);
      return;
    }
    auto d = [&] { return int64_t(e_.below(uint32_t(r))) - (e_.coin() ? r : 0); };  // negative dims too
    switch (e_.below(16)) {
      case 0: {  // convolution (grouped / depthwise, strided, padded, with or without bias)
        if (r != 4) break;
        const int64_t C = s[1];
        const bool depthwise = e_.coin();
        const int64_t groups = depthwise ? C : 1, cout = depthwise ? C * (1 + e_.below(2)) : dim();
        const int64_t k = e_.coin() ? 3 : 1, stride = 1 + e_.below(2), pad = k == 3 ? e_.below(2) : 0;
        ValueRef w = parameter(Shape({cout, C / groups, k, k}));
        ir::Arg bias = e_.coin() ? ir::Arg(parameter(Shape({cout}))) : ir::Arg();
        keep(call("aten.convolution.default", {x, w, bias, ir::IntList{stride, stride}, ir::IntList{pad, pad},
                                               ir::IntList{1, 1}, false, ir::IntList{0, 0}, groups}));
        break;
      }
      case 1: {  // pooling
        if (r != 4) break;
        switch (e_.below(3)) {
          case 0: keep(first(call("aten.max_pool2d_with_indices.default", {x, ir::IntList{2, 2}, ir::IntList{2, 2}})));
            break;
          case 1: keep(call("aten.avg_pool2d.default", {x, ir::IntList{2, 2}, ir::IntList{2, 2}})); break;
          default: keep(call("aten.avg_pool2d.default", {x, ir::IntList{3, 3}, ir::IntList{1, 1}, ir::IntList{1, 1}}));
        }
        break;
      }
      case 2: {  // batch norm (inference)
        if (r != 4) break;
        const Shape c({s[1]});
        keep(first(call("aten._native_batch_norm_legit_no_training.default",
                        {x, parameter(c), parameter(c), constant(c, -1, 1), constant(c, 0.5, 1.5), 0.1, 1e-5})));
        break;
      }
      case 3: {  // layer norm over the last dim
        const Shape c({s[r - 1]});
        keep(first(call("aten.native_layer_norm.default",
                        {x, ir::IntList{s[r - 1]}, parameter(c), parameter(c), 1e-5})));
        break;
      }
      case 4: {  // linear / addmm
        const int64_t out = dim();
        if (r == 2 && e_.coin())
          keep(call("aten.addmm.default", {parameter(Shape({out})), x, parameter(Shape({s[1], out}))}));
        else
          keep(call("aten.linear.default",
                    {x, parameter(Shape({out, s[r - 1]})), e_.coin() ? ir::Arg(parameter(Shape({out}))) : ir::Arg()}));
        break;
      }
      case 5: {  // reductions
        static const char* ops[] = {"aten.mean.dim", "aten.sum.dim_IntList", "aten.amax.default"};
        keep(call(ops[e_.below(3)], {x, ir::IntList{d()}, e_.coin()}));
        break;
      }
      case 6: {  // views
        if (e_.coin()) keep(call("aten.view_copy.default", {x, ir::IntList{s[0], s.numel() / std::max<int64_t>(s[0], 1)}}));
        else keep(call("aten.unsqueeze_copy.default", {x, int64_t(e_.below(uint32_t(r + 1)))}));
        break;
      }
      case 7: {  // permutes
        std::vector<int64_t> p(static_cast<size_t>(r));
        std::iota(p.begin(), p.end(), 0);
        for (size_t i = p.size(); i > 1; --i) std::swap(p[i - 1], p[e_.below(uint32_t(i))]);
        if (e_.coin()) keep(call("aten.permute_copy.default", {x, ir::IntList(p)}));
        else keep(call("aten.transpose_copy.int", {x, d(), d()}));
        break;
      }
      case 8: {  // concatenation (the same value twice is allowed)
        keep(call("aten.cat.default", {ir::RefList{x, partnerSameShape(x)}, d()}));
        break;
      }
      case 9: {  // softmax
        keep(call(e_.coin() ? "aten._softmax.default" : "aten._log_softmax.default", {x, d(), false}));
        break;
      }
      case 10: {  // where
        auto cond = call("aten.gt.Scalar", {x, e_.real(-1, 1)});
        if (cond) keep(call("aten.where.self", {*cond, x, partnerSameShape(x)}));
        break;
      }
      case 11: {  // slices
        const int64_t k = d(), n = s[k < 0 ? k + r : k];
        keep(call("aten.slice_copy.Tensor", {x, k, int64_t(e_.below(uint32_t(n))), n, 1 + int64_t(e_.below(2))}));
        break;
      }
      case 12: {  // activations with arguments
        if (e_.coin()) keep(call("aten.hardtanh.default", {x, 0.0, 6.0}));
        else keep(call("aten.clamp.default", {x, e_.real(-2, 0), e_.real(0, 2)}));
        break;
      }
      default: generic(x); break;
    }
  }

  ValueRef partnerSameShape(ValueRef x) {
    for (int i = 0; i < 4; ++i) {
      ValueRef y = pick();
      if (meta(y).shape == meta(x).shape) return y;
    }
    return x;
  }

  /// Any registered aten op taking tensors and scalars only, from its schema.
  void generic(ValueRef x) {
    static const std::vector<const ops::OpSchema*> candidates = [] {
      std::vector<const ops::OpSchema*> v;
      for (const ops::OpSchema* s : ops::OpRegistry::instance().all()) {
        if (s->name.rfind("aten.", 0) != 0 || s->numOutputs != 1 || excludedFromGeneric(s->name)) continue;
        if (!exec::KernelRegistry::instance().find(s->id)) continue;
        bool simple = true, tensor = false;
        for (const ops::ArgSpec& a : s->args) {
          if (a.kwargOnly) continue;
          if (a.type == ops::ArgType::Tensor) tensor = true;
          else if (a.type != ops::ArgType::Scalar && !a.defaultValue) simple = false;
        }
        if (simple && tensor) v.push_back(s);
      }
      std::sort(v.begin(), v.end(), [](auto* a, auto* b) { return a->name < b->name; });
      return v;
    }();
    if (candidates.empty()) return;
    const ops::OpSchema* s = candidates[e_.below(uint32_t(candidates.size()))];
    const bool pos = needsPositive(s->name);
    std::vector<ir::Arg> args;
    bool firstTensor = true;
    for (const ops::ArgSpec& a : s->args) {
      if (a.kwargOnly) break;
      if (a.type == ops::ArgType::Tensor) {
        ValueRef t = firstTensor ? x : partner(x);
        firstTensor = false;
        if (pos) {
          auto p = positive(t);
          if (!p) return;
          t = *p;
        }
        args.push_back(t);
      } else if (a.type == ops::ArgType::Scalar) {
        args.push_back(pos ? e_.real(0.5, 2.0) : e_.real(-2.0, 2.0));
      } else {
        break;  // defaults for the rest
      }
    }
    keep(call(s->name, std::move(args)));
  }

  void output(const std::vector<ValueRef>& refs) {
    ir::Node n;
    n.kind = ir::NodeKind::Output;
    n.name = "output";
    n.target = "output";
    n.args.push_back(ir::Arg(ir::RefList(refs.begin(), refs.end())));
    for (const ValueRef& r : refs) n.outputs.push_back(g_.meta(r));
    n.flags |= ir::kFlagOutputsAsList;
    g_.append(std::move(n));
  }
};

bool contains(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

}  // namespace

ir::Graph randomGraph(Entropy& e, const GenOptions& opts) {
  ir::Graph g = Generator(e, opts).build();
  g.modelName = "random";
  return g;
}

std::string RunCase::describe() const {
  return fmt::format("{} --profile {} --target {}", pipeline, passes::profileName(profile), passes::targetName(target));
}

std::string RunCase::command(const std::string& path) const {
  return fmt::format("lowerscope-cli verify {} --pipeline {} --profile {} --target {} --each", path, pipeline,
                     passes::profileName(profile), passes::targetName(target));
}

std::vector<RunCase> allRunCases() {
  std::vector<RunCase> v;
  for (const std::string& p : passes::PipelineRegistry::instance().names()) {
    v.push_back({p, passes::Profile::FP, passes::Target::Generic});
    if (p.rfind("tosa", 0) == 0) {
      v.push_back({p, passes::Profile::INT, passes::Target::U55});
      v.push_back({p, passes::Profile::INT, passes::Target::U85});
    }
  }
  return v;
}

// How far the quantized source's float outputs move when every quantized intermediate is one
// step away from where the source rounded it: each dequantize_per_tensor reads its int8 input
// moved by -1, 0 or +1 (clamped to [qmin, qmax]) at random, over a few seeded draws. An
// integer lowering rounds its intermediates differently from the float source by about that
// much, so on a graph where one step in an intermediate is many at the output (a coarse rsqrt
// table under a layer norm, say) that is the tolerance the lowering is owed.
static Result<double> roundingSensitivity(const ir::Graph& quantized, const verify::Reference& ref, uint64_t seed) {
  exec::Executor ex({}, ref.constants());
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 7);
  std::deque<std::vector<exec::Tensor>> made;
  const exec::Executor::ReuseFn jitter = [&](const ir::Node& n, const std::vector<std::vector<exec::Tensor>>& values)
      -> const std::vector<exec::Tensor>* {
    if (n.kind != ir::NodeKind::Call || ir::opName(n.op) != "quantized_decomposed.dequantize_per_tensor.default" ||
        n.args.size() < 5)
      return nullptr;
    const ir::ValueRef* in = n.args[0].ref();
    auto scale = n.args[1].number(), zp = n.args[2].number(), qmin = n.args[3].number(), qmax = n.args[4].number();
    if (!in || !scale || !zp || !qmin || !qmax || size_t(in->node) >= values.size() ||
        in->output >= values[size_t(in->node)].size())
      return nullptr;
    const exec::Tensor& q = values[size_t(in->node)][in->output];
    if (!q.defined()) return nullptr;
    exec::Tensor f(ir::DType::Float32, q.shape());
    for (int64_t i = 0; i < q.numel(); ++i) {
      const double v = std::clamp(q.getDouble(i) + double(int(rng() % 3) - 1), *qmin, *qmax);
      f.data<float>()[i] = float(v - *zp) * float(*scale);
    }
    made.push_back({std::move(f)});
    return &made.back();
  };
  double worst = 0;
  for (int trial = 0; trial < 4; ++trial) {
    LS_ASSIGN_OR_RETURN(all, ex.runAll(quantized, ref.inputs(), jitter));
    for (size_t o = 0; o < all.outputs.size() && o < ref.outputs().size(); ++o) {
      const exec::Tensor& a = all.outputs[o];
      const exec::Tensor& b = ref.outputs()[o];
      if (a.dtype() != ir::DType::Float32 || b.dtype() != ir::DType::Float32 || a.numel() != b.numel()) continue;
      for (int64_t i = 0; i < a.numel(); ++i) {
        const double d = std::fabs(double(a.data<float>()[i]) - double(b.data<float>()[i]));
        if (std::isfinite(d)) worst = std::max(worst, d);
      }
    }
    made.clear();
  }
  return worst;
}

CaseResult runCase(const ir::Graph& g, const RunCase& c, uint64_t seed) {
  using K = CaseResult::Kind;
  session::SessionConfig cfg;
  cfg.pipeline = c.pipeline;
  cfg.profile = c.profile;
  cfg.target = c.target;
  cfg.structuralVerify = true;
  cfg.materializeConstants = true;
  cfg.recordTrace = false;
  cfg.statistics = false;
  cfg.seed = seed;
  session::LoweringSession prep(cfg);
  if (Status v = prep.validate(); !v) return {K::Refused, "", v.message()};
  auto prepared = prep.prepare(g);
  if (!prepared) return {K::Finding, contains(prepared.message(), "threw") ? "threw" : "preparation",
                          "preparation (quantizer): " + prepared.message()};
  verify::VerifyOptions vo;
  vo.seed = seed;
  vo.compare.scaleRelative = true;  // as `verify`: lowerings reassociate float arithmetic
  vo.quantSteps = c.profile == passes::Profile::INT;
  vo.compare.maxSteps = vo.quantSteps ? 2 : 1;
  auto ref = verify::Reference::compute(prepared->graph, vo);
  if (!ref) return {K::SourceDoesNotRun, "", ref.message()};
  auto refp = std::make_shared<const verify::Reference>(std::move(ref).value());
  verify::VerifyEachInstrumentation each(vo);
  each.useReference(refp);
  session::RunHooks hooks;
  hooks.instrumentations.push_back(&each);
  cfg.quantize = false;
  cfg.materializeConstants = false;
  session::LoweringSession lowering(cfg);
  const ir::Graph quantizedSource = c.profile == passes::Profile::INT ? prepared->graph : ir::Graph();
  auto out = lowering.run(std::move(prepared).value(), "random", hooks);
  if (!out) return {K::Finding, contains(out.message(), "threw") ? "threw" : "session", out.message()};
  const passes::RunResult& res = out->result;
  if (const verify::PassCheck* f = each.firstFailure()) {
    CaseResult finding{K::Finding, "semantic", fmt::format("pass '{}' (#{}): {}", f->pass, f->passIndex, f->result.message)};
    if (c.profile != passes::Profile::INT) return finding;
    // INT: the quantized source computes in float between its q/dq pairs, the lowering in
    // integers; on an ill-conditioned graph (a near-zero variance under rsqrt, say) one step
    // apart in an intermediate becomes many at the output. As the real-model tests do, the
    // lowering is wrong only if it is further from the float model than quantization itself.
    ir::Graph floatModel = g;
    exec::materializeConstants(floatModel);
    verify::VerifyOptions fo;
    fo.seed = seed;
    auto fref = verify::Reference::compute(floatModel, fo);
    if (!fref) return finding;
    verify::CheckResult qs = fref->check(quantizedSource), lw = fref->check(out->finalGraph);
    if (qs.executionFailed || lw.executionFailed) return finding;
    auto sensitivity = roundingSensitivity(quantizedSource, *refp, seed);
    if (!sensitivity) return finding;
    if (lw.semantic.maxAbsError > 1.25 * qs.semantic.maxAbsError + sensitivity.value() + 1e-6) {
      finding.message += fmt::format(
          "; vs the float model: lowered max abs {:.4g}, quantized source {:.4g} (the source's own change for "
          "one step of rounding in its intermediates: {:.4g})",
          lw.semantic.maxAbsError, qs.semantic.maxAbsError, sensitivity.value());
      return finding;
    }
  }
  if (res.failedIndex >= 0) {
    if (contains(res.failure, "threw an exception")) return {K::Finding, "threw", res.failure};
    if (contains(res.failure, "verifier failed")) return {K::Finding, "verifier", res.failure};
    if (contains(res.failure, "changed the outputs")) return {K::Finding, "semantic", res.failure};
    // The pipelines' last pass says which ops or types the target cannot take: a refusal. Any
    // other pass failing on a valid graph is a bug in that pass.
    if (res.failure.rfind("pass 'CheckTosaOperatorSupportPass'", 0) == 0) return {K::Refused, "", res.failure};
    return {K::Finding, "pass-error", res.failure};
  }
  return {K::Lowered, "", ""};
}

ir::Graph minimise(const ir::Graph& g, const std::function<bool(const ir::Graph&)>& stillFails) {
  ir::Graph best = g;
  bool shrunk = true;
  while (shrunk) {
    shrunk = false;
    std::vector<ir::NodeId> calls;
    for (const ir::NodePtr& p : best.nodes())
      if (p->isCall() && !p->outputs.empty() && p->op != ir::internOp("operator.getitem") &&
          p->outputs.size() == 1)
        calls.push_back(p->id);
    ir::NodeId outId = ir::kInvalidNode;
    for (const ir::NodePtr& p : best.nodes())
      if (p->kind == ir::NodeKind::Output) outId = p->id;
    if (outId == ir::kInvalidNode) break;
    for (ir::NodeId v : calls) {
      ir::Graph cand = best;
      ir::Node& o = cand.mutableNode(outId);
      o.args = {ir::Arg(ir::RefList{ValueRef{v, 0}})};
      o.outputs = {cand.meta(ValueRef{v, 0})};
      // Drop what the new output does not need (placeholders stay: the signature is kept).
      std::unordered_set<ir::NodeId> live{outId, v};
      std::vector<ir::NodeId> work{v};
      while (!work.empty()) {
        ir::NodeId id = work.back();
        work.pop_back();
        for (const ir::Arg& a : cand.node(id).args) {
          auto visit = [&](const ValueRef& r) {
            if (!r.isNone() && live.insert(r.node).second) work.push_back(r.node);
          };
          if (const ValueRef* r = a.ref()) visit(*r);
          if (const ir::RefList* l = a.asRefList())
            for (const ValueRef& r : *l) visit(r);
        }
      }
      std::unordered_set<ir::NodeId> dead;
      for (const ir::NodePtr& p : cand.nodes())
        if (!live.count(p->id) && p->kind != ir::NodeKind::Placeholder) dead.insert(p->id);
      cand.eraseNodes(dead);
      if (cand.size() < best.size() && stillFails(cand)) {
        best = std::move(cand);
        shrunk = true;
        break;
      }
    }
  }
  return best;
}

}  // namespace ls::fuzz
