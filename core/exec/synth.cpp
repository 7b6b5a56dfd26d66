// Deterministic constant and input synthesis (see synth.h for the value scheme).
#include "core/exec/synth.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/exec/materialize.h"
#include "core/exec/parallel.h"
#include "core/exec/synth_fill.h"
#include "core/util/hash.h"

namespace ls::exec {

using ir::DType;

std::string_view constantRoleName(ConstantRole r) {
  static constexpr std::string_view kNames[] = {"running_var", "running_mean", "weight", "norm_weight", "bias",
                                                "other"};
  static_assert(std::size(kNames) == size_t(ConstantRole::COUNT), "name per ConstantRole");
  return r < ConstantRole::COUNT ? kNames[size_t(r)] : "?";
}

ConstantRole constantRole(const ir::Constant& c) {
  std::string_view n = c.fqn.empty() ? std::string_view(c.name) : std::string_view(c.fqn);
  if (n.ends_with("running_var")) return ConstantRole::RunningVar;
  if (n.ends_with("running_mean")) return ConstantRole::RunningMean;
  if (n.ends_with("weight")) return c.shape.rank() >= 2 ? ConstantRole::Weight : ConstantRole::NormWeight;
  if (n.ends_with("bias")) return ConstantRole::Bias;
  return ConstantRole::Other;
}

namespace {

/// Cost of one synthesised element for parallelFor (a mix, a conversion, a store).
constexpr int64_t kSynthCostPerElement = 4;

/// out[i] = f(splitmix64At(seed, i)) for i in [0, n), on up to `threads` threads.
template <typename T, typename F>
void fillCounter(T* out, int64_t n, uint64_t seed, int threads, F f) {
  parallelFor(threads, n, kSynthCostPerElement, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) out[i] = f(splitmix64At(seed, uint64_t(i)));
  });
}

/// Integers uniform in [lo, hi] (bool: 0/1), as the dtype stores them; other dtypes (complex,
/// wider unsigned) are zeroed.
void fillInts(Tensor& t, uint64_t seed, int64_t lo, int64_t hi, int threads) {
  const uint64_t range = uint64_t(hi - lo + 1);
  auto draw = [lo, range](uint64_t bits) { return lo + int64_t(bits % range); };
  const int64_t n = t.numel();
  switch (t.dtype()) {
    case DType::Bool: fillCounter(t.data<uint8_t>(), n, seed, threads, [&](uint64_t b) { return uint8_t(draw(b) != 0); }); break;
    case DType::UInt8: fillCounter(t.data<uint8_t>(), n, seed, threads, [&](uint64_t b) { return uint8_t(draw(b)); }); break;
    case DType::Int8: fillCounter(t.data<int8_t>(), n, seed, threads, [&](uint64_t b) { return int8_t(draw(b)); }); break;
    case DType::UInt16: fillCounter(t.data<uint16_t>(), n, seed, threads, [&](uint64_t b) { return uint16_t(draw(b)); }); break;
    case DType::Int16: fillCounter(t.data<int16_t>(), n, seed, threads, [&](uint64_t b) { return int16_t(draw(b)); }); break;
    case DType::Int32: fillCounter(t.data<int32_t>(), n, seed, threads, [&](uint64_t b) { return int32_t(draw(b)); }); break;
    case DType::Int64: fillCounter(t.data<int64_t>(), n, seed, threads, draw); break;
    default:
      if (t.nbytes()) std::memset(t.bytes(), 0, t.nbytes());
      break;
  }
}

/// The integer range fillInts draws a synthesised constant of dtype `t` from.
std::pair<int64_t, int64_t> constantIntRange(DType t) {
  switch (t) {
    case DType::Bool: return {0, 1};
    case DType::Int8:
    case DType::Int16: return {-8, 8};
    case DType::UInt8:
    case DType::UInt16: return {0, 16};
    default: return {0, 3};
  }
}

/// Floats uniform in [lo, hi), drawn in double and rounded to the dtype (f16/bf16 via float,
/// as Tensor::setDouble rounds); other dtypes are zeroed. float32/float64 run synth_fill's
/// kernels (AVX-512 where the CPU has it, same bytes).
void fillUniform(Tensor& t, uint64_t seed, double lo, double hi, int threads) {
  const double scale = hi - lo;
  auto draw = [lo, scale](uint64_t bits) { return uniformDraw(bits, lo, scale); };
  const int64_t n = t.numel();
  switch (t.dtype()) {
    case DType::Float32: {
      float* out = t.data<float>();
      parallelFor(threads, n, kSynthCostPerElement,
                  [&](int64_t b, int64_t e) { synth_fill::uniformF32(out, b, e, seed, lo, scale); });
      break;
    }
    case DType::Float64: {
      double* out = t.data<double>();
      parallelFor(threads, n, kSynthCostPerElement,
                  [&](int64_t b, int64_t e) { synth_fill::uniformF64(out, b, e, seed, lo, scale); });
      break;
    }
    case DType::Float16:
      fillCounter(t.data<uint16_t>(), n, seed, threads, [&](uint64_t b) { return floatToHalf(float(draw(b))); });
      break;
    case DType::BFloat16:
      fillCounter(t.data<uint16_t>(), n, seed, threads, [&](uint64_t b) { return floatToBfloat16(float(draw(b))); });
      break;
    default:
      if (t.nbytes()) std::memset(t.bytes(), 0, t.nbytes());
      break;
  }
}

}  // namespace

namespace synth_fill {

void uniformF32Portable(float* out, int64_t b, int64_t e, uint64_t seed, double lo, double scale) {
  for (int64_t i = b; i < e; ++i) out[i] = float(uniformDraw(splitmix64At(seed, uint64_t(i)), lo, scale));
}

void uniformF64Portable(double* out, int64_t b, int64_t e, uint64_t seed, double lo, double scale) {
  for (int64_t i = b; i < e; ++i) out[i] = uniformDraw(splitmix64At(seed, uint64_t(i)), lo, scale);
}

void uniformF32(float* out, int64_t b, int64_t e, uint64_t seed, double lo, double scale) {
  if (haveV4()) uniformF32V4(out, b, e, seed, lo, scale);
  else if (haveV3()) uniformF32V3(out, b, e, seed, lo, scale);
  else uniformF32Portable(out, b, e, seed, lo, scale);
}

void uniformF64(double* out, int64_t b, int64_t e, uint64_t seed, double lo, double scale) {
  if (haveV4()) uniformF64V4(out, b, e, seed, lo, scale);
  else if (haveV3()) uniformF64V3(out, b, e, seed, lo, scale);
  else uniformF64Portable(out, b, e, seed, lo, scale);
}

}  // namespace synth_fill

Tensor constantDataView(const ir::Constant& c) {
  if (!c.hasData() || c.data->bytes.size() != size_t(c.numel()) * size_t(ir::dtypeSize(c.dtype))) return {};
  return Tensor::view(c.dtype, c.shape, c.data->bytes, c.data);
}

Tensor synthesizeConstant(const ir::Constant& c, int threads) {
  threads = resolveThreads(threads);
  // Not zeroed first: fillInts / fillUniform write every byte (a pass over the bytes saved).
  Tensor t = Tensor::uninitialized(c.dtype, c.shape);
  const uint64_t seed = hashString(c.name, 0x5eedc0de57ull);
  if (!ir::isFloating(c.dtype)) {
    auto [lo, hi] = constantIntRange(c.dtype);
    fillInts(t, seed, lo, hi, threads);
    return t;
  }
  double lo = -1.0, hi = 1.0;
  switch (constantRole(c)) {
    case ConstantRole::RunningVar: lo = 0.5, hi = 1.5; break;
    case ConstantRole::RunningMean: lo = -0.1, hi = 0.1; break;
    case ConstantRole::Weight: {
      int64_t fanIn = c.shape[0] > 0 ? c.numel() / c.shape[0] : 1;
      // He-uniform (kaiming_uniform_, gain sqrt(2) for ReLU): keeps activations and their
      // dependence on the input O(1) through deep plain CNNs (see synth.h).
      const double b = std::sqrt(6.0 / double(std::max<int64_t>(fanIn, 1)));
      lo = -b, hi = b;
      break;
    }
    case ConstantRole::NormWeight: lo = 0.8, hi = 1.2; break;
    case ConstantRole::Bias: lo = -0.1, hi = 0.1; break;
    default: break;
  }
  fillUniform(t, seed, lo, hi, threads);
  return t;
}

bool isQuantizedIO(const ir::TensorMeta& m) {
  return m.quant && m.quant->scheme == ir::QScheme::PerTensor && !m.quant->scales.empty() &&
         !ir::isFloating(m.dtype) && m.dtype != DType::Bool && m.dtype == m.quant->storage;
}

std::vector<Tensor> adaptInputs(const ir::Graph& g, std::vector<Tensor> inputs) {
  size_t i = 0;
  for (const ir::NodePtr& p : g.nodes()) {
    if (p->kind != ir::NodeKind::Placeholder) continue;
    if (i >= inputs.size()) break;
    Tensor& t = inputs[i++];
    if (t.defined() && ir::isFloating(t.dtype()) && isQuantizedIO(p->meta(0))) t = quantizePerTensor(t, *p->meta(0).quant);
    // An int64 input the graph takes as int32 (TOSA has no int64): cast as the caller would.
    else if (t.defined() && t.dtype() == ir::DType::Int64 && p->meta(0).dtype == ir::DType::Int32) t = t.to(ir::DType::Int32);
  }
  return inputs;
}

std::vector<Tensor> adaptOutputs(const ir::Graph& g, std::vector<Tensor> outputs, const std::vector<Tensor>& like) {
  const ir::Node* out = g.outputNode();
  const ir::RefList* slots = out && !out->args.empty() ? out->args[0].asRefList() : nullptr;
  if (!slots) return outputs;
  for (size_t i = 0; i < outputs.size() && i < slots->size() && i < like.size(); ++i) {
    const ir::ValueRef r = (*slots)[i];
    if (r.isNone() || !outputs[i].defined() || !like[i].defined()) continue;
    const ir::TensorMeta& m = g.meta(r);
    if (isQuantizedIO(m) && !ir::isFloating(outputs[i].dtype()) && ir::isFloating(like[i].dtype()))
      outputs[i] = dequantizePerTensor(outputs[i], *m.quant);
    else if (outputs[i].dtype() == ir::DType::Int32 && like[i].dtype() == ir::DType::Int64)
      outputs[i] = outputs[i].to(ir::DType::Int64);  // int64 results computed in int32
  }
  return outputs;
}

Tensor synthesizeInput(const ir::TensorMeta& meta, uint64_t seed) {
  if (isQuantizedIO(meta)) {
    ir::TensorMeta f = meta;
    f.dtype = DType::Float32;
    f.quant.reset();
    return quantizePerTensor(synthesizeInput(f, seed), *meta.quant);
  }
  Tensor t = Tensor::uninitialized(meta.dtype, meta.shape);  // the fill writes every byte
  const int threads = resolveThreads(0);
  if (!ir::isFloating(meta.dtype)) fillInts(t, seed, 0, meta.dtype == DType::Bool ? 1 : 3, threads);
  else fillUniform(t, seed, -1.0, 1.0, threads);
  return t;
}

uint64_t inputSeed(uint64_t seed, size_t index) { return hashCombine(seed * 0x9E3779B97F4A7C15ull + 1, index); }

std::vector<Tensor> synthesizeInputs(const ir::Graph& g, uint64_t seed) {
  std::vector<Tensor> out;
  size_t i = 0;
  for (const ir::NodePtr& p : g.nodes()) {
    if (p->kind != ir::NodeKind::Placeholder) continue;
    out.push_back(synthesizeInput(p->meta(0), inputSeed(seed, i++)));
  }
  return out;
}

namespace {

class SynthesizedRecipe : public TensorRecipe {
 public:
  explicit SynthesizedRecipe(const ir::Constant& c)
      : TensorRecipe("synthesize", c.name + '\n' + c.fqn, {}, c.dtype, c.shape), source_(sourceOf(c)) {}
  Result<Tensor> compute(const std::vector<Tensor>&) const override { return synthesizeConstant(source_); }
  std::string describe() const override { return describeInput(source_); }
  bool derived() const override { return false; }

 private:
  /// What synthesizeConstant reads (name: the seed; fqn: the role), without data or recipe.
  static ir::Constant sourceOf(const ir::Constant& c) {
    ir::Constant s;
    s.name = c.name;
    s.fqn = c.fqn;
    s.kind = c.kind;
    s.dtype = c.dtype;
    s.shape = c.shape;
    return s;
  }
  ir::Constant source_;
};

/// `fn` on a copy of each subgraph of `g`, which then replaces it (a subgraph may be shared
/// with other graph versions, so it is never edited in place).
template <typename F>
void onSubgraphCopies(ir::Graph& g, F fn) {
  for (auto& [name, sub] : g.subgraphs()) {
    if (!sub) continue;
    auto copy = std::make_shared<ir::Graph>(*sub);
    fn(*copy);
    sub = std::move(copy);
  }
}

/// Shape-only: no bytes and no recipe (values synthesised from the name).
bool shapeOnly(const ir::Constant& c) { return !c.data && !c.recipe; }

}  // namespace

std::shared_ptr<const TensorRecipe> synthesizedRecipe(const ir::Constant& c) {
  return std::make_shared<const SynthesizedRecipe>(c);
}

void freezeConstants(ir::Graph& g, int threads) {
  bool derivedOverShapeOnly = false;
  std::vector<ir::Constant> frozen;
  for (const auto& [name, c] : g.constants()) {
    if (shapeOnly(c)) {
      ir::Constant f = recipeConstant(synthesizedRecipe(c), c.kind, c.fqn);
      f.name = c.name;
      frozen.push_back(std::move(f));
    } else if (!c.valuesKnown()) {
      derivedOverShapeOnly = true;
    }
  }
  for (ir::Constant& c : frozen) g.setConstant(std::move(c));
  onSubgraphCopies(g, [&](ir::Graph& sub) { freezeConstants(sub, threads); });
  // What is left unknown is a recipe over shape-only sources (whose inputs only its values can
  // fix): bytes, as materializeConstants gives them (the frozen subgraphs have nothing left).
  if (derivedOverShapeOnly) materializeConstants(g, threads);
}

void materializeConstants(ir::Graph& g, int threads) {
  threads = resolveThreads(threads);
  std::vector<ir::Constant> updated;
  for (const auto& [name, c] : g.constants())
    if (!c.valuesKnown()) updated.push_back(c);
  // Largest first, each constant on one thread (the store interns under its own lock); fewer
  // constants than threads: the threads split each constant instead.
  const int perConstant = int64_t(updated.size()) >= threads ? 1 : threads;
  std::stable_sort(updated.begin(), updated.end(), [](const ir::Constant& a, const ir::Constant& b) {
    return a.numel() * ir::dtypeSize(a.dtype) > b.numel() * ir::dtypeSize(b.dtype);
  });
  ir::ConstantStore& store = g.store();
  std::vector<std::string> errors(updated.size());
  parallelForEach(threads, int64_t(updated.size()), [&](int64_t i) {
    ir::Constant& c = updated[size_t(i)];
    if (c.recipe) {  // derived from synthesised values: those values, made through the shared cache
      auto t = materialize(c);
      if (!t) {
        errors[size_t(i)] = t.message();
        return;
      }
      c.data = store.intern(std::vector<uint8_t>(t->bytes(), t->bytes() + t->nbytes()));
    } else {
      c.data = store.intern(synthesizeConstant(c, perConstant).releaseBytes());
    }
    c.contentHash = ir::constantContentHash(c);
  });
  for (const std::string& e : errors)
    if (!e.empty()) throw std::runtime_error(e);
  for (ir::Constant& c : updated) g.setConstant(std::move(c));
  onSubgraphCopies(g, [&](ir::Graph& sub) { materializeConstants(sub, threads); });
}

}  // namespace ls::exec
