// Local agreement of the INT lowering with its quantised source, quantize by quantize. The
// source graph runs with every dequantize fed the lowered graph's int8 value of its quantize
// (teacher forcing), so each quantize is computed from the same int8 inputs the integer graph
// used and no difference propagates. The integer ops (int32 accumulation, RESCALE, TABLE) must
// then give the source's quantised values everywhere except where the float32 q/dq arithmetic
// cannot decide a rounding: an element whose value lies within 1e-3 quantisation steps of a .5
// boundary (float32 dequantize, sum, bias add and x * (1 / scale) each round; the integer
// graph rounds the exact value once). Such a near-tie, one element in a million, is where the
// end-to-end step counts of tosa_int_real_models_test come from: one flipped step inside a deep
// network can move an output by several steps, and which elements are near a tie changes with
// any last-bit change of the scales (docs/DESIGN.md, "Matrix products of the reference
// executor"). Run in float64 (ExecOptions::float64, what verify's INT reference does), the
// source rounds the exact values too: a value differs only (rarely) where it lies within
// RESCALE's own precision of a tie (its 31-bit multiplier; an exact tie, which TOSA rounds
// half up and torch.round half to even).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <iostream>
#include <unordered_map>
#include <unordered_set>

#include "core/exec/executor.h"
#include "core/exec/synth.h"
#include "core/io/fxjson.h"
#include "core/passes/pass_manager.h"
#include "core/quant/quantizer.h"
#include "core/verify/verify.h"

namespace ls::arm {
namespace {

using exec::Tensor;

struct Agreement {
  size_t quantizes = 0, matched = 0;
  int64_t elements = 0, flips = 0, notNearTie = 0, maxDiff = 0;
  /// Flips farther from a .5 boundary than RESCALE resolves: its 31-bit multiplier approximates
  /// the scale to 2^-31 relative, so the integer graph may round x / scale = k + .5 +- |x / scale|
  /// * 2^-30 either way (and rounds an exact tie half up where the q/dq source rounds half to
  /// even).
  int64_t notRescaleTie = 0;
};

/// Lowered int8 element of the source's flat index i: the same layout, or the NHWC form of an
/// NCHW source value.
int64_t lowAt(const Tensor& src, const Tensor& low, int64_t i) {
  if (src.shape() == low.shape()) return low.getInt(i);
  const ir::Shape& s = src.shape();
  const int64_t C = s[1], H = s[2], W = s[3];
  const int64_t w = i % W, h = (i / W) % H, c = (i / (W * H)) % C, n = i / (W * H * C);
  return low.getInt(((n * H + h) * W + w) * C + c);
}

bool comparable(const ir::Shape& src, const ir::Shape& low) {
  if (src == low) return true;
  return src.rank() == 4 && low.rank() == 4 && low[0] == src[0] && low[1] == src[2] && low[2] == src[3] &&
         low[3] == src[1];
}

/// Agreement of the lowered graph with its quantised source run in float32 ([0]) and with
/// the source run in float64 ([1], ExecOptions::float64, the INT reference of verify).
std::array<Agreement, 2> measure(const std::string& model) {
  std::array<Agreement, 2> both;
  auto loaded = io::importFxJsonFile(std::string(LS_ASSETS_DIR) + "/graphs/" + model + ".fxjson.json");
  EXPECT_TRUE(loaded.isOk()) << loaded.message();
  if (!loaded) return both;
  ir::Graph src = std::move(loaded).value();
  auto rep = quant::quantizeGraph(src, {});
  EXPECT_TRUE(rep.isOk()) << rep.message();
  exec::materializeConstants(src);
  ir::Graph low = src;
  auto pm = passes::PassManager::fromPipeline("tosa");
  EXPECT_TRUE(pm.isOk()) << pm.message();
  ops::InferenceCache cache;
  passes::PassContext ctx;
  ctx.profile = passes::Profile::INT;
  ctx.cache = &cache;
  auto run = pm->run(low, ctx);
  EXPECT_EQ(run.failedIndex, -1) << run.failure;

  static const ir::OpId q = ir::internOp("quantized_decomposed.quantize_per_tensor.default");
  static const ir::OpId dq = ir::internOp("quantized_decomposed.dequantize_per_tensor.default");
  // Source quantize -> the lowered int8 value that takes it over (the last node whose
  // provenance names it alone).
  std::unordered_map<ir::NodeId, ir::NodeId> lowOf;
  for (const ir::NodePtr& p : low.nodes()) {
    if (!p->isCall() || p->outputs.size() != 1 || p->meta().dtype != ir::DType::Int8) continue;
    if (p->provenance.derivedFrom.size() != 1) continue;
    const ir::NodeId s = p->provenance.derivedFrom[0];
    if (src.contains(s) && src.node(s).op == q && comparable(src.node(s).meta().shape, p->meta().shape)) lowOf[s] = p->id;
  }
  auto shared = std::make_shared<exec::ConstantCache>();
  exec::Executor ex(exec::ExecOptions{.exactAccumulation = true}, shared);
  const std::vector<Tensor> inputs = exec::synthesizeInputs(src, 1);
  auto lv = ex.runAll(low, exec::adaptInputs(low, inputs));
  EXPECT_TRUE(lv.isOk()) << lv.message();
  if (!lv) return both;
  for (const bool f64 : {false, true}) {
    Agreement& a = both[f64 ? 1 : 0];
    a.quantizes = src.nodesOfOp(q).size();
    std::unordered_map<ir::NodeId, std::vector<Tensor>> forced;
    auto reuse = [&](const ir::Node& n, const std::vector<std::vector<Tensor>>& values) -> const std::vector<Tensor>* {
      if (n.op != dq) return nullptr;
      const ir::NodeId qid = n.args[0].ref()->node;
      if (auto f = forced.find(qid); f != forced.end()) return &f->second;
      auto it = lowOf.find(qid);
      if (it == lowOf.end()) return nullptr;
      const ir::Node& qn = src.node(qid);
      const Tensor& mine = values[qid][0];
      const Tensor& theirs = lv->of(it->second)[0];
      const Tensor& pre = values[qn.args[0].ref()->node][qn.args[0].ref()->output];
      const double scale = *qn.args[1].number();
      const float inv = float(1.0 / scale);
      const int64_t zp = int64_t(*qn.args[2].number());
      Tensor out(f64 ? ir::DType::Float64 : ir::DType::Float32, mine.shape());
      ++a.matched;
      a.elements += mine.numel();
      for (int64_t i = 0; i < mine.numel(); ++i) {
        const int64_t want = mine.getInt(i), got = lowAt(mine, theirs, i);
        // the dequantize kernel's arithmetic
        if (f64) out.data<double>()[i] = double(got - zp) * scale;
        else out.data<float>()[i] = float(got - zp) * float(scale);
        if (want == got) continue;
        ++a.flips;
        a.maxDiff = std::max(a.maxDiff, std::abs(want - got));
        const double v = f64 ? pre.getDouble(i) / scale : double(float(pre.getDouble(i)) * inv);
        if (std::abs(v - std::floor(v) - 0.5) >= 1e-3) ++a.notNearTie;
        if (std::abs(v - std::floor(v) - 0.5) > std::ldexp(std::abs(v), -30)) ++a.notRescaleTie;
      }
      forced[qid] = {std::move(out)};
      return &forced[qid];
    };
    exec::Executor sx(exec::ExecOptions{.exactAccumulation = true, .float64 = f64}, shared);
    auto sv = sx.runAll(src, inputs, reuse);
    EXPECT_TRUE(sv.isOk()) << sv.message();
  }
  return both;
}

class TosaIntLocalAgreement : public ::testing::TestWithParam<const char*> {};

TEST_P(TosaIntLocalAgreement, IntegerOpsGiveTheSourceQuantisedValuesUpToNearTies) {
  const std::array<Agreement, 2> both = measure(GetParam());
  for (int f64 = 0; f64 < 2; ++f64) {
    const Agreement& a = both[size_t(f64)];
    std::cout << "[ tosa-int-local ] " << GetParam() << (f64 ? " (float64 source)" : " (float32 source)") << ": "
              << a.matched << " of " << a.quantizes << " quantize nodes compared, " << a.elements << " elements, "
              << a.flips << " differ (" << a.notNearTie << " not at a near-tie, " << a.notRescaleTie
              << " farther from a tie than RESCALE resolves, largest difference " << a.maxDiff << ")\n";
  }
  // Evaluated in float64 (the INT reference of verify), the source decides every near-tie that
  // the integer graph resolves as it does: an element may differ only where x / scale lies
  // within RESCALE's own precision (2^-30 relative) of a .5 boundary. deit_tiny_vit: 1 of 18.6 M
  // elements (4e-9 steps from the tie; with float32, 8 elements up to 5e-5 steps away).
  // (Both runs compare the same quantize nodes and elements, checked below.)
  const Agreement& exact = both[1];
  EXPECT_EQ(exact.notRescaleTie, 0);
  EXPECT_LE(exact.maxDiff, 1);
  EXPECT_LE(double(exact.flips), 1e-6 * double(exact.elements));
  const Agreement& a = both[0];
  // Every quantize that rounds (not only moves data) has its lowered value found.
  EXPECT_GE(a.matched * 2, a.quantizes);
  EXPECT_GT(a.elements, 1'000'000);
  EXPECT_EQ(a.notNearTie, 0);
  EXPECT_LE(a.maxDiff, 1);
  EXPECT_LE(double(a.flips), 1e-5 * double(a.elements));
}

INSTANTIATE_TEST_SUITE_P(Int, TosaIntLocalAgreement, ::testing::Values("deit_tiny_vit", "mobilenet_v2"),
                         [](const auto& p) { return std::string(p.param); });

}  // namespace
}  // namespace ls::arm
