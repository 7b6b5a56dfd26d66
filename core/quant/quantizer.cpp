// Post-training quantizer (see quantizer.h for the steps and their upstream counterparts).
#include "core/quant/quantizer.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <cmath>
#include <limits>
#include <numeric>
#include <mutex>
#include <optional>
#include <set>
#include <unordered_map>

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include "core/exec/executor.h"
#include "core/exec/materialize.h"
#include "core/exec/synth.h"
#include "core/exec/compare.h"
#include "core/ops/registry.h"
#include "core/passes/pass_manager.h"
#include "core/quant/histogram_observer.h"
#include "core/quant/tfa_passes.h"
#include "core/transforms/batch_norm.h"
#include "core/transforms/constant_values.h"
#include "core/ir/op_ref.h"

namespace ls::quant {

using ir::DType;
using ir::NodeId;
using ir::ValueRef;

namespace {

constexpr const char* kCreatedBy = "quantizer";
constexpr const char* kQ = "quantized_decomposed.quantize_per_tensor.default";
constexpr const char* kDQ = "quantized_decomposed.dequantize_per_tensor.default";
constexpr const char* kQC = "quantized_decomposed.quantize_per_channel.default";
constexpr const char* kDQC = "quantized_decomposed.dequantize_per_channel.default";

std::string_view opOf(const ir::Node& n) { return n.isCall() ? std::string_view(ir::opName(n.op)) : std::string_view(); }

bool in(std::string_view op, std::initializer_list<std::string_view> ops) {
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

// ---- op classes of quantization_annotator.py, spelled as the ATen ops of our graphs ----

bool isConvOrLinear(std::string_view op) {
  return in(op, {"aten.convolution.default", "aten.conv1d.default", "aten.conv2d.default", "aten.linear.default",
                 "aten.addmm.default"});
}
bool isReluLike(std::string_view op) { return in(op, {"aten.relu.default", "aten.hardtanh.default"}); }
bool isMatmulOrMul(std::string_view op) {
  return in(op, {"aten.matmul.default", "aten.mm.default", "aten.bmm.default", "aten.mul.Tensor", "aten.mul.Scalar"});
}
bool isAddLike(std::string_view op) {
  // The .Scalar forms are the .Tensor forms with a number operand (upstream turns them into
  // those before annotation, ReplaceScalarWithTensorByProfilePass).
  return in(op, {"aten.add.Tensor", "aten.sub.Tensor", "aten.add.Scalar", "aten.sub.Scalar", "aten.rsub.Scalar",
                 "aten.minimum.default",
                 "aten.maximum.default"});
}
bool isOneToOne(std::string_view op) {
  return in(op, {"aten.abs.default", "aten.ceil.default", "aten.erf.default", "aten.exp.default", "aten.floor.default",
                 "aten.log.default", "aten.reciprocal.default", "aten.rsqrt.default", "aten.sigmoid.default",
                 "aten.tanh.default", "aten.sum.dim_IntList", "aten.sum.default", "aten.hardsigmoid.default", "aten.hardswish.default",
                 "aten.full_like.default", "aten.pow.Tensor_Scalar", "aten.gelu.default",
                 // one int8 TABLE each in the Arm lowering (upstream decomposes these two first)
                 "aten.leaky_relu.default", "aten.round.default",
                 // upstream's one-to-one unary functions (one int8 TABLE each)
                 "aten.sin.default", "aten.cos.default", "aten.tan.default", "aten.sinh.default", "aten.cosh.default",
                 "aten.asin.default", "aten.acos.default", "aten.atan.default", "aten.asinh.default",
                 "aten.acosh.default", "aten.atanh.default", "aten.expm1.default", "aten.log1p.default",
                 "aten.sign.default", "aten.elu.default", "aten.sqrt.default"});
}
bool isSharedInput(std::string_view op) {
  return in(op, {"aten.squeeze.default", "aten.squeeze_copy.default", "aten.squeeze_copy.dim", "aten.squeeze.dim",
                 "aten.squeeze.dims", "aten.squeeze_copy.dims", "aten.unsqueeze.default", "aten.unsqueeze_copy.default",
                 "aten.reshape.default", "aten.repeat.default", "aten.expand_copy.default", "aten.expand.default",
                 "aten.view.default", "aten.view_as.default", "aten.view_copy.default", "aten.select.int",
                 "aten.select_copy.int", "aten.slice.Tensor", "aten.slice_copy.Tensor", "aten.split.Tensor",
                 "aten.split_copy.Tensor", "aten.split_with_sizes.default", "aten.split_with_sizes_copy.default",
                 "aten.transpose.int", "aten.transpose_copy.int", "aten.tile.default", "aten.flip.default",
                 "aten.chunk.default", "aten.contiguous.default", "aten.upsample_nearest2d.vec",
                 "aten.upsample_bilinear2d.vec", "aten.pad.default",
                 "aten.constant_pad_nd.default", "aten.amax.default", "aten.amin.default", "aten.clamp.default",
                 "aten.clamp.Tensor",
                 // neg flips the range but keeps its magnitude: upstream shares the input's qparams
                 "aten.neg.default"});
}
bool isParentShared(std::string_view op) { return in(op, {"aten.full.default", "operator.getitem"}); }
/// Upstream's _one_to_one_shared_input_or_input_act_qspec: the output shares the input's
/// qparams, and an input no other rule annotated (a graph input, say) gets an observer of its own.
bool isSharedInputOrAct(std::string_view op) {
  return in(op, {"aten.adaptive_avg_pool2d.default", "aten._adaptive_avg_pool2d.default", "aten.alias_copy.default",
                 "aten.alias.default", "aten.clone.default", "aten.hardtanh.default", "aten.relu.default",
                 "aten.mean.default", "aten.mean.dim", "aten.permute.default", "aten.permute_copy.default",
                 "aten.avg_pool2d.default", "aten.max_pool2d.default", "aten.max_pool2d_with_indices.default",
                 "aten.flatten.using_ints", "aten.dropout.default", "aten.pixel_shuffle.default",
                 "aten.pixel_unshuffle.default"});
}
bool isCat(std::string_view op) { return in(op, {"aten.cat.default", "aten.concatenate.default", "aten.stack.default"}); }
bool isCompare(std::string_view op) {
  return in(op, {"aten.eq.Tensor", "aten.ge.Tensor", "aten.gt.Tensor", "aten.le.Tensor", "aten.lt.Tensor",
                 "aten.eq.Scalar", "aten.ge.Scalar", "aten.gt.Scalar", "aten.le.Scalar", "aten.lt.Scalar"});
}

bool isFloatTensor(const ir::TensorMeta& m) { return m.dtype == DType::Float32; }

/// The constant a value is read from (a get_attr node whose values are known: data, or a
/// recipe over data such as a folded batch norm), or null.
const ir::Constant* constantOf(const ir::Graph& g, const ir::Arg& a, NodeId* getattr = nullptr) {
  const ValueRef* r = a.ref();
  if (!r) return nullptr;
  const ir::Node* n = g.find(r->node);
  if (!n || n->kind != ir::NodeKind::GetAttr) return nullptr;
  const ir::Constant* c = g.constant(n->target);
  if (!c || !c->valuesKnown()) return nullptr;
  if (getattr) *getattr = n->id;
  return c;
}

/// The values of a weight or bias, made for this read only (not kept in exec::MaterializeCache:
/// the quantizer reads each once, and a large model's float weights would otherwise stay).
exec::Tensor valuesOf(const ir::Constant& c) { return transforms::constantValues(c, exec::Retain::Transient); }

ir::Arg dtypeArg(DType t) { return ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(t)}); }

/// Stores `c` (bytes or a recipe) as constant `name` in `g` and returns its get_attr node (not
/// yet inserted).
ir::Node constantNode(ir::Graph& g, const std::string& name, const std::string& fqn, ir::Constant c) {
  c.name = name;
  c.fqn = fqn;
  c.kind = ir::ConstantKind::Constant;
  if (c.contentHash == 0) c.contentHash = ir::constantContentHash(c);
  ir::Node n;
  n.kind = ir::NodeKind::GetAttr;
  n.name = name;
  n.target = name;
  n.outputs.push_back(ir::TensorMeta(c.dtype, c.shape));
  n.provenance.createdBy = kCreatedBy;
  g.setConstant(std::move(c));
  return n;
}

/// Removes get_attr nodes without users, and their constants when nothing else reads them.
void removeDeadConstants(ir::Graph& g) {
  std::vector<NodeId> dead;
  for (const ir::NodePtr& p : g.nodes())
    if (p->kind == ir::NodeKind::GetAttr && g.users(p->id).empty()) dead.push_back(p->id);
  std::set<std::string> names;
  for (NodeId id : dead) {
    names.insert(g.node(id).target);
    g.erase(id);
  }
  for (const ir::NodePtr& p : g.nodes())
    if (p->kind == ir::NodeKind::GetAttr) names.erase(p->target);
  for (const std::string& n : names) g.eraseConstant(n);
}

float roundHalfEven(float v) { return std::nearbyint(v); }

// ---------------------------------------------------------------- batch norms

/// prepare_pt2e's conv + batch norm fold and the decomposition of the batch norms no
/// convolution absorbed (pre-activation blocks, DenseNet) into x * scale + shift: the shared
/// passes of core/transforms/batch_norm.h with the quantizer's options (disallowed nodes and
/// anything but float32 stay, training mode is left alone). Returns how many it changed.
transforms::BatchNormOptions batchNormOptions() {
  transforms::BatchNormOptions o;
  o.honourDisallowFlag = true;
  o.float32Only = true;
  o.rejectTraining = false;
  return o;
}

// ---------------------------------------------------------------- annotation

struct UnionFind {
  std::vector<int> parent;
  int make() {
    parent.push_back(int(parent.size()));
    return parent.back();
  }
  int find(int x) {
    while (parent[size_t(x)] != x) x = parent[size_t(x)] = parent[size_t(parent[size_t(x)])];
    return x;
  }
  void unite(int a, int b) { parent[size_t(find(a))] = find(b); }
};

/// A conv/linear weight (and bias) to quantise per channel.
struct WeightUse {
  NodeId consumer;      ///< conv/linear/addmm node
  NodeId weightReader;  ///< node whose arg `weightArg` reads the weight (the consumer, or a t_copy)
  size_t weightArg;
  NodeId weightNode;    ///< get_attr of the float weight
  int axis;             ///< output-channel axis of the stored weight
  size_t biasArg;       ///< consumer's bias arg; SIZE_MAX if none
  NodeId biasNode = ir::kInvalidNode;
  NodeId inputValue;    ///< activation input of the consumer (its scale derives the bias scale)
};

struct Annotation {
  UnionFind uf;
  std::unordered_map<NodeId, int> group;  ///< value (output 0 of a node) -> observer group
  std::vector<WeightUse> weights;
  size_t annotatedNodes = 0;

  bool has(NodeId v) const { return group.count(v) > 0; }
  int of(NodeId v) {
    auto it = group.find(v);
    if (it != group.end()) return it->second;
    int gi = uf.make();
    group.emplace(v, gi);
    return gi;
  }
  int fresh(NodeId v) {  // the value gets its own observer (output annotated with a new spec)
    auto it = group.find(v);
    if (it != group.end()) return it->second;  // a value has one observer: later specs share it
    return of(v);
  }
  void share(NodeId v, int gi) {
    auto it = group.find(v);
    if (it == group.end()) group.emplace(v, gi);
    else uf.unite(it->second, gi);
  }
};

/// Activation values a node reads at the given arg (refs of a ref or ref list arg).
std::vector<NodeId> refsAt(const ir::Node& n, size_t arg) {
  std::vector<NodeId> v;
  if (arg >= n.args.size()) return v;
  if (const ValueRef* one = n.args[arg].ref()) v.push_back(one->node);
  else if (const ir::RefList* l = n.args[arg].asRefList())
    for (const ValueRef& r : *l)
      if (!r.isNone()) v.push_back(r.node);
  return v;
}

bool singleFloatOutput(const ir::Node& n) { return n.outputs.size() == 1 && isFloatTensor(n.outputs[0]); }
bool floatValue(const ir::Graph& g, NodeId v) {
  const ir::Node* n = g.find(v);
  return n && n->outputs.size() == 1 && isFloatTensor(n->outputs[0]);
}

/// conv/linear: weight and bias, or nullopt when the node is not a constant-weight conv/linear.
std::optional<WeightUse> convOrLinearParts(const ir::Graph& g, const ir::Node& n) {
  WeightUse u{};
  u.consumer = n.id;
  u.biasArg = SIZE_MAX;
  if (n.op == LS_OP("aten.addmm.default")) {
    // addmm(bias, x, t(W)): a decomposed linear with a constant [out, in] weight.
    if (n.args.size() < 3) return std::nullopt;
    for (const ir::Kwarg& k : n.kwargs)
      if ((k.name == "beta" || k.name == "alpha") && k.value.number() != 1.0) return std::nullopt;
    const ValueRef* x = n.args[1].ref();
    const ValueRef* w2 = n.args[2].ref();
    if (!x || !w2) return std::nullopt;
    const ir::Node& t = g.node(w2->node);
    bool isT = t.op == LS_OP("aten.t_copy.default") || t.op == LS_OP("aten.t.default") ||
               (t.op == LS_OP("aten.permute_copy.default") && t.args.size() > 1 && t.args[1].asIntList() &&
                *t.args[1].asIntList() == ir::IntList{1, 0});
    NodeId wn = ir::kInvalidNode;
    const ir::Constant* w = nullptr;
    if (isT && !t.args.empty()) {
      w = constantOf(g, t.args[0], &wn);
      if (!w || w->shape.rank() != 2 || g.users(t.id).size() != 1) return std::nullopt;
      u.weightReader = t.id;
      u.weightArg = 0;
      u.axis = 0;  // [out, in]
    } else {
      // addmm(bias, x, W) with a constant [in, out] W: per output channel along dim 1.
      w = constantOf(g, n.args[2], &wn);
      if (!w || w->shape.rank() != 2 || w->dtype != DType::Float32) return std::nullopt;
      u.weightReader = n.id;
      u.weightArg = 2;
      u.axis = 1;
    }
    u.weightNode = wn;
    u.inputValue = x->node;
    const int64_t outChannels = w->shape[u.axis];
    NodeId bn = ir::kInvalidNode;
    const ir::Constant* b = constantOf(g, n.args[0], &bn);
    if (b && b->shape.rank() == 1 && b->shape[0] == outChannels && b->dtype == DType::Float32) {
      u.biasArg = 0;
      u.biasNode = bn;
    } else if (!b) {
      return std::nullopt;  // a non-constant bias: not the linear pattern
    }
    return u;
  }
  if (n.args.size() < 2) return std::nullopt;
  const ValueRef* x = n.args[0].ref();
  NodeId wn = ir::kInvalidNode;
  const ir::Constant* w = constantOf(g, n.args[1], &wn);
  if (!x || !w || w->dtype != DType::Float32 || w->shape.rank() < 2) return std::nullopt;
  u.weightReader = n.id;
  u.weightArg = 1;
  u.weightNode = wn;
  u.axis = 0;
  u.inputValue = x->node;
  if (n.op == LS_OP("aten.convolution.default") && n.args.size() > 8) {
    const bool* transposed = n.args[6].asBool();
    const int64_t* groups = n.args[8].asInt();
    if (transposed && *transposed) {
      if (!groups || *groups != 1) return std::nullopt;
      u.axis = 1;  // transposed conv weights are [in, out, ...]
    }
  }
  if (n.args.size() > 2 && !n.args[2].isNone()) {
    NodeId bn = ir::kInvalidNode;
    const ir::Constant* b = constantOf(g, n.args[2], &bn);
    if (!b || b->dtype != DType::Float32 || b->shape.rank() != 1) return std::nullopt;
    u.biasArg = 2;
    u.biasNode = bn;
  }
  return u;
}

/// conv/linear followed by relu or hardtanh(min 0) as its only user (the fused pattern).
const ir::Node* fusedActivation(const ir::Graph& g, const ir::Node& n, const QuantizeOptions& o) {
  auto users = g.users(n.id);
  if (users.size() != 1) return nullptr;
  const ir::Node& u = g.node(users[0]);
  if (!isReluLike(opOf(u)) || quantizationDisabled(g, u, o) || !singleFloatOutput(u)) return nullptr;
  if (u.op == LS_OP("aten.hardtanh.default")) {
    auto lo = u.args.size() > 1 ? u.args[1].number() : std::optional<double>(-1.0);
    if (!lo || *lo != 0.0) return nullptr;
  }
  return &u;
}

Annotation annotate(const ir::Graph& g, const QuantizeOptions& o) {
  Annotation a;
  std::set<NodeId> fusedOutputs;  // relu/hardtanh of a fused conv pattern: output annotated only
  for (const ir::NodePtr& p : g.nodes()) {
    const ir::Node& n = *p;
    if (!n.isCall() || quantizationDisabled(g, n, o)) continue;
    std::string_view op = opOf(n);
    bool done = true;
    if (fusedOutputs.count(n.id)) {
      a.fresh(n.id);
    } else if (isConvOrLinear(op)) {
      auto parts = convOrLinearParts(g, n);
      if (!parts || !singleFloatOutput(n) || !floatValue(g, parts->inputValue)) {
        done = false;
      } else {
        a.of(parts->inputValue);
        a.weights.push_back(*parts);
        if (const ir::Node* act = fusedActivation(g, n, o)) fusedOutputs.insert(act->id);
        else a.fresh(n.id);
      }
    } else if (isMatmulOrMul(op)) {
      std::vector<NodeId> ins = refsAt(n, 0);
      for (NodeId v : refsAt(n, 1)) ins.push_back(v);
      bool ok = singleFloatOutput(n) && !ins.empty();
      for (NodeId v : ins) ok = ok && floatValue(g, v);
      if (ok) {
        for (NodeId v : ins) a.of(v);
        a.fresh(n.id);
      } else {
        done = false;
      }
    } else if (isAddLike(op) || isCompare(op)) {
      std::vector<NodeId> x0 = refsAt(n, 0), x1 = refsAt(n, 1);
      bool ok = x0.size() == 1 && floatValue(g, x0[0]) && (x1.empty() || floatValue(g, x1[0])) &&
                (isCompare(op) || singleFloatOutput(n));
      if (ok) {
        int gi = a.of(x0[0]);
        if (!x1.empty() && x1[0] != x0[0]) a.share(x1[0], gi);
        if (!isCompare(op)) a.share(n.id, gi);
      } else {
        done = false;
      }
    } else if (n.op == LS_OP("aten.where.self")) {
      std::vector<NodeId> x1 = refsAt(n, 1), x2 = refsAt(n, 2);
      if (x1.size() == 1 && x2.size() == 1 && floatValue(g, x1[0]) && floatValue(g, x2[0]) && singleFloatOutput(n)) {
        int gi = a.of(x1[0]);
        a.share(x2[0], gi);
        a.share(n.id, gi);
      } else {
        done = false;
      }
    } else if (isSharedInputOrAct(op) || isSharedInput(op)) {
      std::vector<NodeId> x = refsAt(n, 0);
      if (x.size() == 1 && floatValue(g, x[0]) && (n.outputs.size() != 1 || singleFloatOutput(n))) {
        int gi = a.of(x[0]);
        a.share(n.id, gi);  // multi-output nodes (split): the tuple shares it, getitems join below
      } else {
        done = false;
      }
    } else if (isCat(op)) {
      std::vector<NodeId> xs = refsAt(n, 0);
      bool ok = !xs.empty() && singleFloatOutput(n);
      for (NodeId v : xs) ok = ok && floatValue(g, v);
      if (ok) {
        int gi = a.of(xs[0]);
        for (NodeId v : xs) a.share(v, gi);
        a.share(n.id, gi);
      } else {
        done = false;
      }
    } else if (isOneToOne(op)) {
      std::vector<NodeId> x = refsAt(n, 0);
      if (x.size() == 1 && floatValue(g, x[0]) && singleFloatOutput(n)) {
        a.of(x[0]);
        a.fresh(n.id);
      } else {
        done = false;
      }
    } else if (isParentShared(op)) {
      // Only when the parent's output is annotated; the output shares the parent's observer.
      std::vector<NodeId> x = refsAt(n, 0);
      if (x.size() == 1 && a.has(x[0]) && (n.outputs.size() != 1 || singleFloatOutput(n))) {
        if (op == "operator.getitem") {
          // getitem of a multi-output node sharing its input's observer (max pool values,
          // split pieces); index 1 of max_pool2d_with_indices is integer and stays out.
          if (singleFloatOutput(n)) a.share(n.id, a.of(x[0]));
          else done = false;
        } else {
          a.share(n.id, a.of(x[0]));
        }
      } else {
        done = false;
      }
    } else {
      done = false;
    }
    a.annotatedNodes += done;
  }
  return a;
}

// ---------------------------------------------------------------- qparams

struct QParams {
  double scale = 1.0;
  int64_t zeroPoint = 0;
};

/// MinMaxObserver, per_tensor_affine: scale = (max(max, 0) - min(min, 0)) / (qmax - qmin),
/// at least eps; zero point = qmin - round(min / scale), clamped (float32 arithmetic).
QParams affineParams(double mn, double mx, const QuantSpec& s) {
  const float minNeg = float(std::min(mn, 0.0)), maxPos = float(std::max(mx, 0.0));
  float scale = (maxPos - minNeg) / float(s.actQmax - s.actQmin);
  scale = std::max(scale, float(s.eps));
  int64_t zp = s.actQmin - int64_t(roundHalfEven(minNeg / scale));
  zp = std::clamp(zp, s.actQmin, s.actQmax);
  return {double(scale), zp};
}

/// PerChannelMinMaxObserver, per_channel_symmetric: scale_c = max|w_c| / ((qmax - qmin) / 2),
/// at least eps; zero point 0.
std::vector<float> symmetricChannelScales(const exec::Tensor& w, int axis, const QuantSpec& s) {
  const int64_t channels = w.dim(axis);
  int64_t inner = 1;
  for (int d = axis + 1; d < w.rank(); ++d) inner *= w.dim(d);
  std::vector<float> maxAbs(static_cast<size_t>(channels), 0.0f);
  if (w.dtype() == DType::Float32) {  // the usual weight: raw loops, no per-element index arithmetic
    const float* d = w.data<float>();
    for (int64_t i = 0; i < w.numel(); i += inner) {
      float& m = maxAbs[size_t((i / inner) % channels)];
      for (int64_t j = 0; j < inner; ++j) m = std::max(m, std::abs(d[i + j]));
    }
  } else {
    for (int64_t i = 0; i < w.numel(); ++i) {
      const int64_t c = (i / inner) % channels;
      maxAbs[size_t(c)] = std::max(maxAbs[size_t(c)], std::abs(float(w.getDouble(i))));
    }
  }
  std::vector<float> scales(static_cast<size_t>(channels));
  const float half = float(s.weightQmax - s.weightQmin) / 2.0f;
  for (int64_t c = 0; c < channels; ++c) scales[size_t(c)] = std::max(maxAbs[size_t(c)] / half, float(s.eps));
  return scales;
}

}  // namespace

// ---------------------------------------------------------------- public API

std::string QuantizeReport::summary() const {
  if (alreadyQuantized) return "the graph already holds quantize/dequantize ops: left as it is";
  std::string tfa;
  for (const std::string& p : tfaChanged) tfa += (tfa.empty() ? "" : ", ") + p;
  return fmt::format(
      "{} activation q/dq pairs ({} {} observers, calibrated on {} {}), {} per-channel int8 weights, {} int32 "
      "biases, {} per-tensor int8 constants, {} batch norms folded{}, {} nodes annotated, {} nodes left float by "
      "config; transform-for-annotation: {}",
      quantizePerTensor, observers, observer == ActivationObserver::Histogram ? "histogram" : "min/max",
      calibrationSamples,
      userCalibration ? (calibrationSamples == 1 ? "sample of the user's data" : "samples of the user's data")
                      : (calibrationSamples == 1 ? "seeded input" : "seeded inputs"),
      perChannelWeights, int32Biases, foldedConstants, batchNormsFolded,
      batchNormsDecomposed ? fmt::format(" ({} more as mul + add)", batchNormsDecomposed) : std::string(),
      annotatedNodes, disallowed, tfa.empty() ? "no changes" : tfa);
}

std::string moduleOf(const ir::Graph& g, const ir::Node& n) {
  if (!n.module.empty()) return n.module;
  std::string found;
  n.forEachInput([&](const ValueRef& r) {
    if (!found.empty()) return;
    const ir::Node* in = g.find(r.node);
    if (!in || in->kind != ir::NodeKind::GetAttr) return;
    const ir::Constant* c = g.constant(in->target);
    if (!c || c->kind != ir::ConstantKind::Parameter || c->fqn.empty()) return;
    size_t dot = c->fqn.rfind('.');
    if (dot != std::string::npos) found = c->fqn.substr(0, dot);
  });
  return found;
}

bool quantizationDisabled(const ir::Graph& g, const ir::Node& n, const QuantizeOptions& o) {
  auto matches = [](const std::string& module, const std::vector<std::string>& prefixes) {
    for (const std::string& p : prefixes)
      if (module == p || (module.size() > p.size() && module.starts_with(p) && module[p.size()] == '.')) return true;
    return false;
  };
  if (std::find(o.excludeNodes.begin(), o.excludeNodes.end(), n.name) != o.excludeNodes.end()) return true;
  if (n.isCall() && std::find(o.excludeOps.begin(), o.excludeOps.end(), ir::opName(n.op)) != o.excludeOps.end())
    return true;
  if (o.excludeModules.empty() && o.includeModules.empty()) return !o.global;
  const std::string module = moduleOf(g, n);
  if (!module.empty() && matches(module, o.excludeModules)) return true;
  if (!module.empty() && matches(module, o.includeModules)) return false;
  return !o.global;
}

namespace {

/// TOSAQuantizer._set_disallow_tfa_for_nodes: every node whose quantisation config is None
/// gets kFlagDisallowTransform, every other node loses it. The transform-for-annotation passes
/// that follow honour the flag, so float-only parts stay untouched.
class SetDisallowTfaForNodesPass : public passes::Pass {
 public:
  SetDisallowTfaForNodesPass(const QuantizeOptions& o, QuantizeReport& report)
      : Pass("SetDisallowTfaForNodesPass", "flag nodes without a quantization config: transforms leave them float"),
        o_(o),
        report_(report) {
    flagged_ = stat("disallowed", "nodes without a quantization config (stay float)");
    changed_ = stat("flags_changed", "nodes whose disallow-transform flag changed");
  }

 protected:
  passes::PassResult runImpl(ir::Graph& g, passes::PassContext&) override {
    report_.disallowed = 0;
    std::vector<std::pair<NodeId, bool>> flags;
    for (const ir::NodePtr& p : g.nodes()) flags.emplace_back(p->id, quantizationDisabled(g, *p, o_));
    for (auto [id, off] : flags) {
      const bool has = g.node(id).hasFlag(ir::kFlagDisallowTransform);
      if (has != off) {
        ir::Node& n = g.mutableNode(id);
        n.flags = off ? (n.flags | ir::kFlagDisallowTransform) : (n.flags & ~uint32_t(ir::kFlagDisallowTransform));
        bump(changed_);
      }
      report_.disallowed += off;
    }
    bump(flagged_, int64_t(report_.disallowed));
    return passes::PassResult::of(statistics()[changed_].value > 0);
  }

 private:
  const QuantizeOptions& o_;
  QuantizeReport& report_;
  size_t flagged_, changed_;
};

/// prepare_pt2e's batch-norm handling as a pass of the quantizer's run: runs the shared fold
/// or decomposition (core/transforms/batch_norm.h) under its own name, targets and statistics,
/// and stores its first counter (batch norms changed) in the report.
class CountedPass : public passes::Pass {
 public:
  CountedPass(std::unique_ptr<passes::Pass> inner, size_t& counter)
      : Pass(inner->name(), inner->description()), inner_(std::move(inner)), counter_(counter) {
    std::vector<std::string> ops;
    for (ir::OpId op : inner_->targetOps()) ops.emplace_back(ir::opName(op));
    targets(ops);
    checkAllowed(inner_->checksAllowedToTransform());
    appliesTo(inner_->applicability());
    for (const passes::Statistic& st : inner_->statistics()) stat(st.name, st.description);
  }
  bool allowedToTransform(const ir::Node& n) const override { return inner_->allowedToTransform(n); }

 protected:
  passes::ShouldRun shouldRunImpl(const ir::Graph& g, const passes::PassContext& ctx) const override {
    return inner_->shouldRun(g, ctx);
  }
  passes::PassResult runImpl(ir::Graph& g, passes::PassContext& ctx) override {
    passes::PassResult r = inner_->run(g, ctx);
    const auto& st = inner_->statistics();
    for (size_t i = 0; i < st.size() && i < statistics().size(); ++i) bump(i, st[i].value);
    if (!st.empty()) counter_ = size_t(st[0].value);
    return r;
  }

 private:
  std::unique_ptr<passes::Pass> inner_;
  size_t& counter_;
};

Status annotateCalibrateConvert(ir::Graph& g, const QuantizeOptions& o, QuantizeReport& report);

/// prepare_pt2e annotation, calibration (histogram or min/max observers) over seeded runs and convert_pt2e (q/dq pairs,
/// int8 per-channel weights, int32 biases, folded constant operands) as one pass.
class QuantizePt2ePass : public passes::Pass {
 public:
  QuantizePt2ePass(const QuantizeOptions& o, QuantizeReport& report)
      : Pass("QuantizePt2ePass",
             "annotate (TOSAQuantizer rules), calibrate histogram observers on seeded runs, convert: q/dq pairs, "
             "int8 per-channel weights, int32 biases"),
        o_(o),
        report_(report) {
    annotated_ = stat("annotated_nodes", "nodes given a quantization annotation");
    observers_ = stat("observers", "distinct activation observers (distinct activation qparams)");
    qdq_ = stat("qdq_pairs", "activation values given a quantize/dequantize pair or a folded int8 constant");
    weights_ = stat("per_channel_weights", "conv/linear weights quantized per output channel to int8");
    biases_ = stat("int32_biases", "biases quantized to int32 (input scale x weight scale)");
    folded_ = stat("folded_constants", "float constant operands folded to int8 constants");
    calib_ = stat("calibration_runs", "seeded runs of the reference executor feeding the activation observers");
  }

 protected:
  passes::PassResult runImpl(ir::Graph& g, passes::PassContext&) override {
    Status s = annotateCalibrateConvert(g, o_, report_);
    if (!s.isOk()) return passes::PassResult::failed(s.message());
    bump(annotated_, int64_t(report_.annotatedNodes));
    bump(observers_, int64_t(report_.observers));
    bump(qdq_, int64_t(report_.quantizedValues));
    bump(weights_, int64_t(report_.perChannelWeights));
    bump(biases_, int64_t(report_.int32Biases));
    bump(folded_, int64_t(report_.foldedConstants));
    bump(calib_, o_.calibrationRuns);
    return passes::PassResult::changed();
  }

 private:
  const QuantizeOptions& o_;
  QuantizeReport& report_;
  size_t annotated_, observers_, qdq_, weights_, biases_, folded_, calib_;
};

/// The transform-for-annotation part of the quantizer's run: the flag pass, the extra passes
/// by name, then the built-in decompositions.
Status addTfaPasses(passes::PassManager& pm, const QuantizeOptions& o, QuantizeReport& report) {
  pm.add(std::make_unique<SetDisallowTfaForNodesPass>(o, report));
  // The extra (backend) passes first: what they emit (var's mean, say) is then decomposed by
  // the built-in passes as upstream's order has it.
  for (const std::string& name : o.extraTfaPasses) {
    auto p = passes::PassRegistry::instance().create(name);
    if (!p) return Status::error(fmt::format("transform for annotation: unknown pass '{}'", name));
    p->honourDisallowFlag();
    pm.add(std::move(p));
  }
  for (auto& p : builtinTfaPasses()) pm.add(std::move(p));
  return Status::ok();
}

/// Runs `pm` over `g` as the quantizer's own pipeline (INT profile, structural verifier after
/// every changed pass, statistics, then the caller's instrumentations).
Result<passes::RunResult> runQuantizerPipeline(passes::PassManager& pm, ir::Graph& g,
                                               const std::vector<passes::Instrumentation*>& instrumentations) {
  passes::VerifierInstrumentation verifier;
  passes::StatisticsInstrumentation stats;
  pm.addInstrumentation(&verifier);
  pm.addInstrumentation(&stats);  // before the caller's recorders, so records carry the counters
  for (passes::Instrumentation* i : instrumentations) pm.addInstrumentation(i);
  passes::PassContext ctx;
  ctx.profile = passes::Profile::INT;
  ops::InferenceCache cache;
  ctx.cache = &cache;
  return pm.run(g, ctx);
}

void collectChanged(const passes::RunResult& res, size_t first, size_t count, QuantizeReport& report) {
  for (size_t i = first; i < std::min(res.records.size(), first + count); ++i)
    if (res.records[i].status == passes::PassStatus::Changed) report.tfaChanged.push_back(res.records[i].name);
}

}  // namespace

Status transformForAnnotation(ir::Graph& g, const QuantizeOptions& o, QuantizeReport& report) {
  passes::PassManager pm;
  pm.pipelineName = kQuantizePipelineName;
  LS_RETURN_IF_ERROR(addTfaPasses(pm, o, report));
  const size_t count = pm.passes().size();
  LS_ASSIGN_OR_RETURN(res, runQuantizerPipeline(pm, g, {}));
  if (res.failedIndex >= 0) return Status::error("transform for annotation: " + res.failure);
  // The flag pass is not a transform: tfaChanged lists the decompositions that changed.
  collectChanged(res, 1, count - 1, report);
  return Status::ok();
}

namespace {

/// Builds the converted graph in one ordered pass (no per-insertion index rebuilds): nodes are
/// copied with their inputs remapped to the dequantised values; planned nodes are emitted
/// right before a given node or right after a value's producer.
class Rebuilder {
 public:
  Rebuilder(const ir::Graph& src) : src_(src), out_(src.shellCopy()) {}

  ir::Graph& graph() { return out_; }

  /// A node name not used by the source graph nor by a node emitted so far.
  std::string freshName(const std::string& base) {
    for (int k = counters_[base];; ++k) {
      std::string n = k == 0 ? base : fmt::format("{}_{}", base, k);
      if (src_.findByName(n) == ir::kInvalidNode && !used_.count(n) && !out_.constant(n)) {
        counters_[base] = k + 1;
        used_.insert(n);
        return n;
      }
    }
  }

  /// A new constant holding `t`'s bytes.
  ValueRef constant(const std::string& base, const std::string& fqn, exec::Tensor t, NodeId derivedFrom) {
    return constant(base, fqn, transforms::makeConstant(out_.store(), std::move(t)), derivedFrom);
  }
  /// A new constant `c` (bytes or a recipe; named here).
  ValueRef constant(const std::string& base, const std::string& fqn, ir::Constant c, NodeId derivedFrom) {
    ir::Node n = constantNode(out_, freshName(base), fqn, std::move(c));
    n.provenance.derivedFrom = {derivedFrom};
    return ValueRef{out_.append(std::move(n)), 0};
  }
  /// The constant a get_attr value of the graph being built reads.
  const ir::Constant& constantAt(ValueRef v) { return *out_.constant(out_.node(v.node).target); }

  Result<ValueRef> call(std::string_view op, std::vector<ir::Arg> args, const std::string& base, NodeId derivedFrom) {
    ir::Node n;
    n.kind = ir::NodeKind::Call;
    n.op = ir::internOp(op);
    n.target = std::string(op);
    n.name = freshName(base);
    n.args = std::move(args);
    n.provenance.createdBy = kCreatedBy;
    n.provenance.derivedFrom = {derivedFrom};
    const ops::OpSchema* s = ops::OpRegistry::instance().find(n.op);
    if (!s) return Status::error(fmt::format("quantizer: op '{}' is not registered", op));
    LS_RETURN_IF_ERROR(ops::checkArgs(*s, n, out_).withContext(fmt::format("quantizer: new node '{}': ", n.name)));
    LS_RETURN_IF_ERROR(
        ops::inferNode(out_, n, n.outputs, &cache_).withContext(fmt::format("quantizer: new node '{}': ", n.name)));
    return ValueRef{out_.append(std::move(n)), 0};
  }

  /// Copies source node `p` with remapped inputs and the given arg overrides.
  void copy(const ir::NodePtr& p, const std::unordered_map<NodeId, ValueRef>& remap,
            const std::vector<std::pair<size_t, ValueRef>>* overrides) {
    bool touched = overrides && !overrides->empty();
    if (!touched)
      p->forEachInput([&](const ValueRef& r) { touched = touched || (r.output == 0 && remap.count(r.node)); });
    if (!touched) {
      out_.appendShared(p);
      return;
    }
    ir::Node n = *p;
    n.forEachInputMutable([&](ValueRef& r) {
      if (r.output != 0) return;
      auto it = remap.find(r.node);
      if (it != remap.end()) r = it->second;
    });
    if (overrides)
      for (const auto& [arg, v] : *overrides) n.args[arg] = v;
    out_.append(std::move(n));
  }

 private:
  const ir::Graph& src_;
  ir::Graph out_;
  std::unordered_map<std::string, int> counters_;
  std::set<std::string> used_;
  ops::InferenceCache cache_;
};

}  // namespace

Result<QuantizeReport> quantizeGraph(ir::Graph& g, const QuantizeOptions& o,
                                     const std::vector<passes::Instrumentation*>& instrumentations) {
  QuantizeReport report;
  if (exec::hasQuantOps(g)) {
    report.alreadyQuantized = true;
    return report;
  }
  if (o.calibrationRuns < 1) return Status::error("quantizer: calibrationRuns must be at least 1");
  // Synthesised weights are fixed (a later rename must not reseed them) but not made: the
  // calibration runs, the weight quantisation and the file writers each make a weight when
  // they read it, so a large shape-only model is never held in float32 all at once.
  exec::freezeConstants(g);
  passes::PassManager pm;
  pm.pipelineName = kQuantizePipelineName;
  LS_RETURN_IF_ERROR(addTfaPasses(pm, o, report));
  const size_t tfaCount = pm.passes().size();
  if (o.foldBatchNorm)
    pm.add(std::make_unique<CountedPass>(
        std::make_unique<transforms::FuseBatchNormPass>("FuseBatchNorm2dPass", batchNormOptions()),
        report.batchNormsFolded));
  pm.add(std::make_unique<CountedPass>(
      std::make_unique<transforms::DecomposeBatchNormPass>("DecomposeBatchNormNoStatsPass", batchNormOptions()),
      report.batchNormsDecomposed));
  pm.add(std::make_unique<QuantizePt2ePass>(o, report));
  LS_ASSIGN_OR_RETURN(res, runQuantizerPipeline(pm, g, instrumentations));
  if (res.failedIndex >= 0) {
    if (size_t(res.failedIndex) < tfaCount) return Status::error("transform for annotation: " + res.failure);
    return Status::error("quantizer: " + res.failure);
  }
  collectChanged(res, 1, tfaCount - 1, report);
  report.passes = std::move(res.records);
  report.totalNs = res.totalNs;
  return report;
}

namespace {

/// Widens [lo, hi] to the finite values of d[0, n). Eight independent lanes instead of one
/// chain of dependent min/max (min and max do not depend on the order). A first pass takes
/// plain min/max (NaN never compares, so it is skipped as it is: the compiler makes packed
/// min/max of it); only when an infinity shows up does the pass that skips infinities run,
/// with the same lanes, so both give the same values (the same zero's sign too).
void finiteRange(const float* d, int64_t n, double& lo, double& hi) {
  constexpr int kLanes = 8;
  float l[kLanes], h[kLanes];
  auto pass = [&](auto take) {
    std::fill(l, l + kLanes, INFINITY);
    std::fill(h, h + kLanes, -INFINITY);
    int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes)
      for (int k = 0; k < kLanes; ++k) take(k, d[i + k]);
    for (; i < n; ++i) take(0, d[i]);
  };
#if defined(__SSE2__)
  // The same lanes and comparisons in two SSE vectors (minps(x, l) is x < l ? x : l, NaN
  // skipped as above); the compiler leaves the scalar form unvectorised.
  {
    __m128 l0 = _mm_set1_ps(INFINITY), l1 = l0, h0 = _mm_set1_ps(-INFINITY), h1 = h0;
    int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes) {
      const __m128 x0 = _mm_loadu_ps(d + i), x1 = _mm_loadu_ps(d + i + 4);
      l0 = _mm_min_ps(x0, l0), l1 = _mm_min_ps(x1, l1);
      h0 = _mm_max_ps(x0, h0), h1 = _mm_max_ps(x1, h1);
    }
    _mm_storeu_ps(l, l0), _mm_storeu_ps(l + 4, l1), _mm_storeu_ps(h, h0), _mm_storeu_ps(h + 4, h1);
    for (; i < n; ++i) l[0] = d[i] < l[0] ? d[i] : l[0], h[0] = d[i] > h[0] ? d[i] : h[0];
  }
#else
  pass([&](int k, float x) {
    l[k] = x < l[k] ? x : l[k];
    h[k] = x > h[k] ? x : h[k];
  });
#endif
  bool infinite = false;
  for (int k = 0; k < kLanes; ++k) infinite = infinite || l[k] == -INFINITY || h[k] == INFINITY;
  if (infinite)
    pass([&](int k, float x) {
      const bool finite = x - x == 0.0f;  // false for inf and NaN
      l[k] = finite && x < l[k] ? x : l[k];
      h[k] = finite && x > h[k] ? x : h[k];
    });
  for (int k = 0; k < kLanes; ++k) lo = std::min(lo, double(l[k])), hi = std::max(hi, double(h[k]));
}

/// The activation observers of one calibration: one per group of values sharing qparams, fed
/// in torch's order whatever order the runs' threads deliver the values in (see
/// annotateCalibrateConvert). Thread-safe.
class Calibration {
 public:
  Calibration(ActivationObserver kind, size_t groups, size_t runs, std::vector<size_t> members)
      : kind_(kind), runs_(runs), members_(std::move(members)), pending_(groups, std::vector<Batch>(runs)),
        next_(groups, 0), hist_(kind == ActivationObserver::Histogram ? groups : 0),
        mn_(groups, INFINITY), mx_(groups, -INFINITY) {}

  /// Value at graph position `pos` of run `run`, in group `group` (null: not a float value,
  /// which still counts as its member's observation).
  void observe(size_t group, size_t run, size_t pos, const exec::Tensor* t) {
    std::lock_guard<std::mutex> lock(mu_);
    if (kind_ == ActivationObserver::MinMax) {
      if (t) range(*t, group);
      return;
    }
    Batch& b = pending_[group][run];
    ++b.arrived;
    if (t) b.values.emplace_back(pos, *t);
    // Feed every run of this group whose members are all in, in run order.
    while (next_[group] < runs_ && pending_[group][next_[group]].arrived >= members_[group]) feed(group, next_[group]++);
  }

  /// Feeds what is still pending (members that never arrived), in torch's order.
  void finish() {
    for (size_t g = 0; g < pending_.size(); ++g)
      while (next_[g] < runs_) feed(g, next_[g]++);
  }

  QParams qparams(size_t group, const QuantSpec& s) const {
    if (kind_ == ActivationObserver::MinMax)
      return mn_[group] <= mx_[group] ? affineParams(mn_[group], mx_[group], s) : affineParams(0.0, 0.0, s);
    const HistogramObserver& h = hist_[group];
    if (!h.initialized()) return affineParams(0.0, 0.0, s);
    const HistogramObserver::QParams q = h.qparams(s.actQmin, s.actQmax, float(s.eps));
    return {q.scale, q.zeroPoint};
  }

 private:
  struct Batch {
    size_t arrived = 0;
    std::vector<std::pair<size_t, exec::Tensor>> values;  // (graph position, value)
  };

  void feed(size_t group, size_t run) {
    Batch& b = pending_[group][run];
    std::sort(b.values.begin(), b.values.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (const auto& [pos, t] : b.values) {
      if (t.dtype() == DType::Float32) {
        hist_[group].observe(t.data<float>(), t.numel());
      } else {
        std::vector<float> f(size_t(t.numel()));
        for (int64_t i = 0; i < t.numel(); ++i) f[size_t(i)] = float(t.getDouble(i));
        hist_[group].observe(f.data(), t.numel());
      }
    }
    b = Batch{};
  }

  void range(const exec::Tensor& t, size_t group) {
    double lo = mn_[group], hi = mx_[group];
    if (t.dtype() == DType::Float32) {
      finiteRange(t.data<float>(), t.numel(), lo, hi);
    } else {
      for (int64_t i = 0; i < t.numel(); ++i) {
        const double x = t.getDouble(i);
        if (std::isfinite(x)) lo = std::min(lo, x), hi = std::max(hi, x);
      }
    }
    mn_[group] = lo, mx_[group] = hi;
  }

  ActivationObserver kind_;
  size_t runs_;
  std::vector<size_t> members_;
  std::vector<std::vector<Batch>> pending_;
  std::vector<size_t> next_;
  std::vector<HistogramObserver> hist_;
  std::vector<double> mn_, mx_;
  std::mutex mu_;
};

Status annotateCalibrateConvert(ir::Graph& g, const QuantizeOptions& o, QuantizeReport& report) {
  Annotation ann = annotate(g, o);
  report.annotatedNodes = ann.annotatedNodes;

  // Calibration over the runs, made side by side (Executor::runEach: a weight's transpose is
  // made once for all of them; values are observed as they are produced, runs on several
  // threads). Each group of values sharing qparams has one observer, fed as torch's would be:
  // run after run, and within a run in graph order (observations of a run wait until the
  // earlier runs' are in; a group's are fed once all its members of that run have arrived).
  const size_t ngroups = ann.uf.parent.size();
  const size_t runs = o.calibrationInputs.empty() ? size_t(o.calibrationRuns) : o.calibrationInputs.size();
  std::vector<int> rootOf(g.nextId(), -1);
  std::vector<size_t> members(ngroups, 0);
  for (const auto& [v, gi] : ann.group) {
    rootOf[v] = ann.uf.find(gi);
    ++members[size_t(rootOf[v])];
  }
  Calibration cal(o.activationObserver, ngroups, runs, std::move(members));
  // The runs go in batches of kBatch side by side: a weight is made once per batch, and the
  // live values of only one batch are held (the user's data may hold many samples).
  constexpr size_t kBatch = 8;
  size_t firstRun = 0;  // of the batch being run
  exec::Executor::RunObserveFn observe = [&](size_t run, const ir::Node& n, const std::vector<exec::Tensor>& outs) {
    if (n.id >= rootOf.size() || rootOf[n.id] < 0) return;
    const exec::Tensor* t = outs.size() == 1 && outs[0].defined() && ir::isFloating(outs[0].dtype()) ? &outs[0] : nullptr;
    cal.observe(size_t(rootOf[n.id]), firstRun + run, g.position(n.id), t);
  };
  // Ordered accumulation: the observed values (hence every qparam of the INT model) are then
  // the same on every CPU, whichever kernels OpenBLAS would pick for float32 (docs/DESIGN.md).
  exec::Executor ex(exec::ExecOptions{.orderedAccumulation = true, .keepConstants = false});
  if (o.progress)
    ex.setProgress([&](size_t done, size_t total) {
      // This batch's share of all the runs.
      const double batch = double(std::min(kBatch, runs - firstRun));
      o.progress("quantize: calibration",
                 (double(firstRun) + batch * double(done) / double(std::max<size_t>(total, 1))) / double(runs));
    });
  for (; firstRun < runs; firstRun += kBatch) {
    std::vector<std::vector<exec::Tensor>> inputs;
    for (size_t run = firstRun; run < std::min(runs, firstRun + kBatch); ++run)
      inputs.push_back(o.calibrationInputs.empty() ? exec::synthesizeInputs(g, o.seed + uint64_t(run))
                                                   : o.calibrationInputs[run]);
    auto out = ex.runEach(g, inputs, observe);
    if (!out) {
      return Status::error(o.calibrationInputs.empty() ? "quantizer: calibration run failed: " + out.message()
                                                       : fmt::format("quantizer: calibration on sample {} failed: {}",
                                                                     firstRun, out.message()));
    }
  }
  cal.finish();
  report.observer = o.activationObserver;
  report.calibrationSamples = runs;
  report.userCalibration = !o.calibrationInputs.empty();
  if (o.progress) o.progress("quantize: converting", 1.0);
  std::vector<QParams> qp(ngroups);
  std::vector<uint8_t> calibrated(ngroups, 0);
  for (size_t r = 0; r < ngroups; ++r)
    if (ann.uf.find(int(r)) == int(r)) {
      // A value that was never finite on the calibration runs (NaN everywhere, say acosh below
      // 1) gets the range [0, 0]: the smallest scale, every value at the zero point (the
      // quantize kernels map NaN there too), instead of failing the whole graph.
      qp[r] = cal.qparams(r, o.spec);
      calibrated[r] = 1;
    }

  // Convert plan. Weights/biases: emitted right before the node reading them. Activations: a
  // q/dq pair right after the producer (placeholders and constants: before their first user).
  const ir::Arg i8 = dtypeArg(DType::Int8), i32 = dtypeArg(DType::Int32);
  Rebuilder rb(g);
  std::unordered_map<NodeId, ValueRef> remap;  // value -> its dequantised replacement
  std::unordered_map<NodeId, std::vector<std::function<Status()>>> emitBefore;
  std::unordered_map<NodeId, std::vector<std::pair<size_t, ValueRef>>> overrides;
  std::vector<uint8_t> quantizeAfter(g.nextId(), 0);
  std::set<int> usedRoots;

  for (const WeightUse& wu : ann.weights) {
    const WeightUse u = wu;
    const ir::Node& wnode = g.node(u.weightNode);
    const ir::Constant* wc = g.constant(wnode.target);
    if (!wc) return Status::error(fmt::format("quantizer: node '{}': weight constant '{}' is missing", wnode.name, wnode.target));
    const exec::Tensor W = valuesOf(*wc);
    const std::vector<float> scales = symmetricChannelScales(W, u.axis, o.spec);
    const int64_t channels = int64_t(scales.size());
    const std::string wname = wc->name, wfqn = wc->fqn;
    const ir::Constant wconst = *wc;
    emitBefore[u.weightReader].push_back([&, u, wconst, scales, channels, wname, wfqn]() -> Status {
      exec::Tensor scaleT = exec::Tensor::fromFloats(ir::Shape{channels}, scales);
      exec::Tensor zpT(DType::Int64, ir::Shape{channels});
      ValueRef s = rb.constant(wname + "_scales", wfqn, scaleT, u.weightNode);
      ValueRef z = rb.constant(wname + "_zero_points", wfqn, zpT, u.weightNode);
      ValueRef qv;
      if (o.foldWeightQuantize) {
        // A recipe (the float weight and its scales): the int8 bytes are made when read.
        qv = rb.constant(wname + "_int8", wfqn,
                         exec::recipeConstant(exec::quantizePerChannelRecipe(
                             wconst, rb.constantAt(s), u.axis, o.spec.weightQmin, o.spec.weightQmax, DType::Int8)),
                         u.weightNode);
      } else {
        auto q = rb.call(kQC, {ValueRef{u.weightNode, 0}, s, z, int64_t(u.axis), o.spec.weightQmin, o.spec.weightQmax, i8},
                         "quantize_per_channel_default", u.weightNode);
        if (!q) return q.status();
        qv = *q;
      }
      auto dq = rb.call(kDQC, {qv, s, z, int64_t(u.axis), o.spec.weightQmin, o.spec.weightQmax, i8},
                        "dequantize_per_channel_default", u.weightNode);
      if (!dq) return dq.status();
      overrides[u.weightReader].emplace_back(u.weightArg, *dq);
      return Status::ok();
    });
    ++report.perChannelWeights;

    if (u.biasArg == SIZE_MAX) continue;
    auto git = ann.group.find(u.inputValue);
    const int root = git == ann.group.end() ? -1 : ann.uf.find(git->second);
    if (root < 0 || !calibrated[size_t(root)])
      return Status::error(
          fmt::format("quantizer: node '{}': its input has no calibrated scale for the bias", g.node(u.consumer).name));
    const ir::Node& bnode = g.node(u.biasNode);
    const ir::Constant* bc = g.constant(bnode.target);
    if (!bc) return Status::error(fmt::format("quantizer: node '{}': bias constant '{}' is missing", bnode.name, bnode.target));
    exec::Tensor B = valuesOf(*bc);
    // A one-element bias broadcasts over the output channels (torch allows it): quantised per
    // channel like a full one, from an expanded copy.
    const bool expanded = B.numel() == 1 && channels > 1;
    if (expanded) {
      exec::Tensor full(B.dtype(), ir::Shape{channels});
      for (int64_t c = 0; c < channels; ++c) full.setDouble(c, B.getDouble(0));
      B = std::move(full);
    }
    if (B.numel() != channels)
      return Status::error(fmt::format("quantizer: node '{}': bias has {} elements, the weight {} channels",
                                       g.node(u.consumer).name, B.numel(), channels));
    std::vector<float> bscales(static_cast<size_t>(channels));
    for (int64_t c = 0; c < channels; ++c) bscales[size_t(c)] = float(qp[size_t(root)].scale) * scales[size_t(c)];
    const std::string bname = bc->name, bfqn = bc->fqn;
    // The usual [C] bias folds as a recipe; an expanded (or otherwise shaped) one eagerly.
    const bool eagerBias = expanded || bc->shape.rank() != 1;
    const ir::Constant bconst = *bc;
    emitBefore[u.consumer].push_back([&, u, B, bconst, bscales, channels, bname, bfqn, expanded, eagerBias]() -> Status {
      // Upstream's _get_int32_per_channel_bias_qspec: [int32 min, int32 max - 1], zero points 0
      // (int32), scale = input activation scale * weight scale per channel.
      const int64_t lo = std::numeric_limits<int32_t>::min(), hi = int64_t(std::numeric_limits<int32_t>::max()) - 1;
      ValueRef s = rb.constant(bname + "_scales", bfqn, exec::Tensor::fromFloats(ir::Shape{channels}, bscales), u.biasNode);
      ValueRef z = rb.constant(bname + "_zero_points", bfqn, exec::Tensor(DType::Int32, ir::Shape{channels}), u.biasNode);
      ValueRef bq;
      if (o.foldWeightQuantize) {
        bq = rb.constant(bname + "_int32", bfqn,
                         eagerBias ? ir::Constant(transforms::makeConstant(
                                        rb.graph().store(), exec::quantizePerChannel(B, 0, bscales.data(), lo, hi, DType::Int32)))
                                  : exec::recipeConstant(exec::quantizePerChannelRecipe(bconst, rb.constantAt(s), 0, lo, hi,
                                                                                        DType::Int32)),
                         u.biasNode);
      } else {
        ValueRef src = expanded ? rb.constant(bname + "_expanded", bfqn, B, u.biasNode) : ValueRef{u.biasNode, 0};
        auto q = rb.call(kQC, {src, s, z, int64_t(0), lo, hi, i32}, "quantize_per_channel_default", u.biasNode);
        if (!q) return q.status();
        bq = *q;
      }
      auto dq = rb.call(kDQC, {bq, s, z, int64_t(0), lo, hi, i32}, "dequantize_per_channel_default", u.biasNode);
      if (!dq) return dq.status();
      overrides[u.consumer].emplace_back(u.biasArg, *dq);
      return Status::ok();
    });
    ++report.int32Biases;
  }

  // A float constant annotated as an operand (layer-norm weight of a mul, its bias in an add,
  // a position embedding, a class token in a cat) is observed like an activation; with
  // fold_quantize its quantize is constant-folded as convert_pt2e does: int8 constant -> dq.
  auto emitActivation = [&](NodeId v) -> Status {
    const QParams& p = qp[size_t(rootOf[v])];
    const ir::Node& vn = g.node(v);
    const ir::Constant* c = vn.kind == ir::NodeKind::GetAttr ? g.constant(vn.target) : nullptr;
    ValueRef qv;
    if (o.foldWeightQuantize && c && c->valuesKnown() && c->dtype == DType::Float32) {
      qv = rb.constant(c->name + "_int8", c->fqn.empty() ? c->name : c->fqn,
                       exec::recipeConstant(
                           exec::quantizePerTensorRecipe(*c, p.scale, p.zeroPoint, o.spec.actQmin, o.spec.actQmax)),
                       v);
      ++report.foldedConstants;
    } else {
      auto q = rb.call(kQ, {ValueRef{v, 0}, p.scale, p.zeroPoint, o.spec.actQmin, o.spec.actQmax, i8},
                       "quantize_per_tensor_default", v);
      if (!q) return q.status();
      qv = *q;
      ++report.quantizePerTensor;
    }
    auto dq = rb.call(kDQ, {qv, p.scale, p.zeroPoint, o.spec.actQmin, o.spec.actQmax, i8},
                      "dequantize_per_tensor_default", v);
    if (!dq) return dq.status();
    remap[v] = *dq;
    ++report.dequantizePerTensor;
    ++report.quantizedValues;
    usedRoots.insert(rootOf[v]);
    return Status::ok();
  };
  for (const auto& [v, gi] : ann.group) {
    const ir::Node* n = g.find(v);
    if (!n || n->outputs.size() != 1 || !isFloatTensor(n->outputs[0])) continue;
    if (!calibrated[size_t(rootOf[v])]) continue;
    auto users = g.users(v);
    if (users.empty()) continue;
    if (n->isCall()) {
      quantizeAfter[v] = 1;
    } else {
      NodeId first = users[0];
      for (NodeId u : users)
        if (g.position(u) < g.position(first)) first = u;
      const NodeId value = v;  // clang 14 cannot capture a structured binding
      emitBefore[first].push_back([&, value]() { return emitActivation(value); });
    }
  }

  // Rebuild in order.
  rb.graph().reserveNodes(g.size() + 2 * report.quantizePerTensor + 8 * report.perChannelWeights);
  for (const ir::NodePtr& p : g.nodes()) {
    if (auto it = emitBefore.find(p->id); it != emitBefore.end())
      for (auto& fn : it->second) LS_RETURN_IF_ERROR(fn());
    auto ov = overrides.find(p->id);
    rb.copy(p, remap, ov == overrides.end() ? nullptr : &ov->second);
    if (quantizeAfter[p->id]) LS_RETURN_IF_ERROR(emitActivation(p->id));
  }
  report.observers = usedRoots.size();
  g = std::move(rb.graph());
  removeDeadConstants(g);
  return Status::ok();  // the quantizer's run verifies the graph after this pass
}

}  // namespace

}  // namespace ls::quant
