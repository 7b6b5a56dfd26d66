// HistogramObserver (core/quant/histogram_observer.h) against torch's own observer (Debian's
// python3-torch, torch.ao.quantization.HistogramObserver, int8 per-tensor affine, eps 2^-16):
// the same tensor gives the same scale (to the last bit) and zero point. Debian's torch is
// 1.13, which builds its first histogram over int(min) .. int(max); the tensors here have
// integral extremes, where that is the range torch >= 2 (upstream's) uses too. The histogram
// merge of later tensors changed between those versions (torch >= 2.2 is ours), so merges are
// checked by their invariants: every finite value counted once, the range covering all,
// infinities ignored.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "core/exec/tensor.h"
#include "core/io/npy.h"
#include "core/quant/histogram_observer.h"
#include "core/quant/quantizer.h"
#include "support/graph_builder.h"

namespace ls::quant {
namespace {

constexpr float kEps = 1.0f / 65536.0f;

/// n values of a distribution, with two of them set to the integral extremes lo and hi.
std::vector<float> sample(const char* kind, size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<float> uni(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) {
    const std::string k = kind;
    if (k == "normal") x = normal(rng);
    else if (k == "heavy") x = normal(rng) / std::max(0.3f, uni(rng));  // heavier tails, plus two outliers
    else if (k == "relu") x = std::max(0.0f, normal(rng)) * 2.0f;
    else x = lo + (hi - lo) * uni(rng);
    x = std::clamp(x, lo, hi);
  }
  v[n / 3] = lo;
  v[2 * n / 3] = hi;
  return v;
}

/// torch's (scale, zero point) for the tensor in each of `npys` (one python run), or empty when
/// python3 + torch are not available (the test then skips).
std::vector<std::pair<float, int64_t>> torchQParams(const std::vector<std::string>& npys, const std::string& dir) {
  const std::string script =
      "import sys, numpy, torch\n"
      "from torch.ao.quantization.observer import HistogramObserver\n"
      "for path in sys.argv[1:]:\n"
      "    o = HistogramObserver(dtype=torch.qint8, qscheme=torch.per_tensor_affine, quant_min=-128, quant_max=127, "
      "eps=2**-16)\n"
      "    o(torch.from_numpy(numpy.load(path)))\n"
      "    s, z = o.calculate_qparams()\n"
      "    print(float(s.item()).hex(), int(z.item()))\n";
  const std::string py = dir + "/torch_observer.py";
  std::ofstream(py) << script;
  std::string cmd = "/usr/bin/python3 " + py;
  for (const std::string& n : npys) cmd += " " + n;
  FILE* p = popen((cmd + " 2>/dev/null").c_str(), "r");
  if (!p) return {};
  std::vector<std::pair<float, int64_t>> out;
  char buf[256] = {0};
  while (fgets(buf, sizeof buf, p)) {
    std::istringstream in(buf);
    std::string hex;
    int64_t zp = 0;
    in >> hex >> zp;
    out.emplace_back(float(std::strtod(hex.c_str(), nullptr)), zp);
  }
  if (pclose(p) != 0 || out.size() != npys.size()) return {};
  return out;
}

TEST(HistogramObserver, ScaleAndZeroPointAreTorchsOnOneTensor) {
  const auto dir = std::filesystem::temp_directory_path() / ("ls_hist_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  struct Case {
    const char* kind;
    size_t n;
    float lo, hi;
  };
  const std::vector<Case> cases = {{"normal", 5000, -4, 4},  {"heavy", 20000, -40, 40}, {"relu", 3000, 0, 7},
                                   {"uniform", 4096, -1, 3}, {"normal", 777, -2, 5}};
  std::vector<std::vector<float>> values;
  std::vector<std::string> files;
  for (const Case& c : cases) {
    values.push_back(sample(c.kind, c.n, 7u + uint32_t(c.n), c.lo, c.hi));
    files.push_back((dir / (std::string(c.kind) + std::to_string(c.n) + ".npy")).string());
    ASSERT_TRUE(io::writeNpyFile(files.back(), exec::Tensor::fromFloats(ir::Shape{int64_t(c.n)}, values.back())).isOk());
  }
  const auto want = torchQParams(files, dir.string());
  std::filesystem::remove_all(dir);
  if (want.empty()) GTEST_SKIP() << "/usr/bin/python3 with torch is not available";
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    SCOPED_TRACE(std::string(c.kind) + " " + std::to_string(c.n));
    HistogramObserver h;
    h.observe(values[i].data(), int64_t(values[i].size()));
    const HistogramObserver::QParams got = h.qparams(-128, 127, kEps);
    EXPECT_EQ(float(got.scale), want[i].first) << std::hexfloat << float(got.scale) << " vs " << want[i].first;
    EXPECT_EQ(got.zeroPoint, want[i].second);
    // The search keeps whole bins of [min, max]: never a wider range than min/max's.
    EXPECT_LE(got.scale, affineQParams(c.lo, c.hi, -128, 127, kEps).scale);
  }
}

TEST(HistogramObserver, MergesCountEveryFiniteValueOnceOverTheWidenedRange) {
  HistogramObserver h;
  const std::vector<float> a = sample("normal", 1000, 1, -3, 3);
  std::vector<float> b = sample("uniform", 500, 2, -1, 8);
  b[10] = INFINITY;
  b[11] = -INFINITY;
  b[12] = NAN;
  h.observe(a.data(), int64_t(a.size()));
  EXPECT_EQ(h.min(), -3.0f);
  EXPECT_EQ(h.max(), 3.0f);
  h.observe(b.data(), int64_t(b.size()));  // widens to [-3, 8]; the three non-finite values ignored
  EXPECT_EQ(h.min(), -3.0f);
  EXPECT_EQ(h.max(), 8.0f);
  double total = 0;
  for (float c : h.histogram()) total += c;
  EXPECT_NEAR(total, 1000.0 + 497.0, 1e-3);
  // A third tensor inside the range adds its counts as they are.
  h.observe(a.data(), int64_t(a.size()));
  total = 0;
  for (float c : h.histogram()) total += c;
  EXPECT_NEAR(total, 2497.0, 1e-3);
  const auto [lo, hi] = h.searchedRange();
  EXPECT_GE(lo, -3.0f);
  EXPECT_LE(hi, 8.0f);
  EXPECT_LT(lo, hi);
}

TEST(HistogramObserver, DegenerateInputs) {
  HistogramObserver h;
  EXPECT_EQ(h.qparams(-128, 127, kEps).scale, 1.0);  // nothing observed: torch's (1, 0)
  const float inf[2] = {INFINITY, -INFINITY};
  h.observe(inf, 2);
  EXPECT_FALSE(h.initialized());
  const float one[3] = {2.5f, 2.5f, 2.5f};
  h.observe(one, 3);  // a single value: the range [2.5, 2.5]
  const auto q = h.qparams(-128, 127, kEps);
  EXPECT_FLOAT_EQ(float(q.scale), 2.5f / 255.0f);
  EXPECT_EQ(q.zeroPoint, -128);
  const float more[2] = {-1.0f, 4.0f};
  h.observe(more, 2);  // the single value's count moves into the widened histogram
  double total = 0;
  for (float c : h.histogram()) total += c;
  EXPECT_NEAR(total, 5.0, 1e-6);
}

}  // namespace
}  // namespace ls::quant

// ---- the quantizer's calibration feeds the observers in torch's order ----

namespace ls::quant {
namespace {

TEST(HistogramCalibration, UserSamplesReachEachObserverInTorchsOrder) {
  // x -> relu -> output: relu shares its input's observer (a parent-shared spec), so one
  // histogram sees x0, relu(x0), x1, relu(x1), x2, relu(x2), in that order.
  test::GraphBuilder b;
  auto x = b.input("x", {1, 64});
  b.output({b.call("aten.relu.default", {x})});
  std::vector<std::vector<exec::Tensor>> samples;
  HistogramObserver want;
  for (int s = 0; s < 3; ++s) {
    std::vector<float> v(64);
    for (int i = 0; i < 64; ++i) v[size_t(i)] = float((i * (7 + 5 * s)) % 23) * 0.25f - 2.0f - float(s);
    samples.push_back({exec::Tensor::fromFloats(ir::Shape{1, 64}, v)});
    std::vector<float> r(v);
    for (float& f : r) f = std::max(f, 0.0f);
    want.observe(v.data(), 64);
    want.observe(r.data(), 64);
  }
  for (const ActivationObserver kind : {ActivationObserver::Histogram, ActivationObserver::MinMax}) {
    ir::Graph g = b.g;
    QuantizeOptions o;
    o.calibrationInputs = samples;
    o.activationObserver = kind;
    auto rep = quantizeGraph(g, o);
    ASSERT_TRUE(rep.isOk()) << rep.message();
    EXPECT_TRUE(rep->userCalibration);
    EXPECT_EQ(rep->calibrationSamples, 3u);
    const auto qs = g.nodesOfOp(ir::internOp("quantized_decomposed.quantize_per_tensor.default"));
    ASSERT_FALSE(qs.empty());
    const double scale = *g.node(qs[0]).args[1].number();
    const HistogramObserver::QParams expect =
        kind == ActivationObserver::Histogram ? want.qparams(-128, 127, kEps) : affineQParams(want.min(), want.max(), -128, 127, kEps);
    EXPECT_EQ(float(scale), float(expect.scale)) << (kind == ActivationObserver::Histogram ? "histogram" : "minmax");
  }
}

}  // namespace
}  // namespace ls::quant
