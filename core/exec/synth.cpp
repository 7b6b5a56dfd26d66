// Deterministic constant and input synthesis (see synth.h for the value scheme).
#include "core/exec/synth.h"

#include <cmath>
#include <string>

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

void fillInts(Tensor& t, SplitMix64& rng) {
  int64_t lo = 0, hi = 3;
  switch (t.dtype()) {
    case DType::Bool: hi = 1; break;
    case DType::Int8:
    case DType::Int16: lo = -8, hi = 8; break;
    case DType::UInt8:
    case DType::UInt16: hi = 16; break;
    default: break;
  }
  for (int64_t i = 0; i < t.numel(); ++i) t.setInt(i, rng.uniformInt(lo, hi));
}

}  // namespace

Tensor synthesizeConstant(const ir::Constant& c) {
  Tensor t(c.dtype, c.shape);
  SplitMix64 rng(hashString(c.name, 0x5eedc0de57ull));
  if (!ir::isFloating(c.dtype)) {
    fillInts(t, rng);
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
  if (c.dtype == DType::Float32) {
    float* p = t.data<float>();
    for (int64_t i = 0; i < t.numel(); ++i) p[i] = float(rng.uniform(lo, hi));
  } else {
    for (int64_t i = 0; i < t.numel(); ++i) t.setDouble(i, rng.uniform(lo, hi));
  }
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
  Tensor t(meta.dtype, meta.shape);
  SplitMix64 rng(seed);
  if (!ir::isFloating(meta.dtype)) {
    for (int64_t i = 0; i < t.numel(); ++i) t.setInt(i, rng.uniformInt(0, meta.dtype == DType::Bool ? 1 : 3));
    return t;
  }
  if (meta.dtype == DType::Float32) {
    float* p = t.data<float>();
    for (int64_t i = 0; i < t.numel(); ++i) p[i] = float(rng.uniform(-1.0, 1.0));
  } else {
    for (int64_t i = 0; i < t.numel(); ++i) t.setDouble(i, rng.uniform(-1.0, 1.0));
  }
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

void materializeConstants(ir::Graph& g) {
  std::vector<ir::Constant> updated;
  for (const auto& [name, c] : g.constants()) {
    if (c.hasData()) continue;
    Tensor t = synthesizeConstant(c);
    ir::Constant nc = c;
    nc.data = g.store().intern(std::vector<uint8_t>(t.bytes(), t.bytes() + t.nbytes()));
    nc.contentHash = ir::constantContentHash(nc);
    updated.push_back(std::move(nc));
  }
  for (ir::Constant& c : updated) g.setConstant(std::move(c));
  for (auto& [name, sub] : g.subgraphs()) {
    if (!sub) continue;
    auto copy = std::make_shared<ir::Graph>(*sub);  // subgraphs may be shared with other graph versions
    materializeConstants(*copy);
    sub = std::move(copy);
  }
}

}  // namespace ls::exec
