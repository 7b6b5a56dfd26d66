// Upstream's pool_2d_support.py (AvgPool2dSupported, MaxPool2dSupported): max pooling's
// dilation rule, and Vela's Ethos-U55 limits on kernel, stride, padding and shape. See
// operator_support.h.
#include <fmt/format.h>

#include "core/backends/arm/arm_util.h"
#include "core/backends/arm/operator_support/operator_support.h"
#include "core/ir/op_ref.h"

namespace ls::arm::support {

namespace {

std::string list(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += fmt::format("{}{}", i ? ", " : "", v[i]);
  return s + "]";
}

/// kernel_x * kernel_y in [1, 65536], kernel_y (the second) in [1, 256].
bool kernelCheck(const std::vector<int64_t>& k) { return 1 <= k[0] * k[1] && k[0] * k[1] <= 65536 && 1 <= k[1] && k[1] <= 256; }
bool strideCheck(const std::vector<int64_t>& s) { return 1 <= s[0] && s[0] <= 3 && 1 <= s[1] && s[1] <= 3; }
/// Every dim but the batch in [1, 65536].
bool dimCheck(const ir::Shape& s) {
  for (int i = 1; i < s.rank(); ++i)
    if (s[i] < 1 || s[i] > 65536) return false;
  return true;
}
std::string shapeText(const ir::Shape& s) { return shapeList(s); }

/// Upstream's adjust_pooling_pad_if_needed: the post padding that gives ATen's output size.
int64_t postPad(int64_t in, int64_t k, int64_t s, int64_t pad, bool ceil) {
  const int64_t num = in - k + 2 * pad;
  auto floorDiv = [](int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
  int64_t out;
  if (ceil) {
    out = floorDiv(num + s - 1, s) + 1;
    if ((out - 1) * s >= in + pad) --out;
  } else {
    out = floorDiv(num, s) + 1;
  }
  return (out - 1) * s - in + k - pad;
}

/// Kernel, stride (ATen's default: the kernel) and padding of a 2-D pool, each two values.
struct PoolArgs {
  std::vector<int64_t> kernel, stride, pad, dilation;
};
std::optional<PoolArgs> poolArgs(const ir::Node& n, bool withDilation) {
  PoolArgs a;
  a.kernel = sints(n, 1, 2).value_or(std::vector<int64_t>{});
  if (a.kernel.size() == 1) a.kernel.push_back(a.kernel[0]);
  a.stride = sints(n, 2, 2).value_or(std::vector<int64_t>{});
  if (a.stride.empty()) a.stride = a.kernel;
  if (a.stride.size() == 1) a.stride.push_back(a.stride[0]);
  a.pad = sints(n, 3, 2).value_or(std::vector<int64_t>{0, 0});
  if (a.pad.size() == 1) a.pad.push_back(a.pad[0]);
  if (withDilation) {
    a.dilation = sints(n, 4, 2).value_or(std::vector<int64_t>{1, 1});
    if (a.dilation.size() == 1) a.dilation.push_back(a.dilation[0]);
    if (a.dilation.size() != 2) return std::nullopt;
  }
  if (a.kernel.size() != 2 || a.stride.size() != 2 || a.pad.size() != 2) return std::nullopt;
  return a;
}

class AvgPool2dSupported : public Check {
 public:
  explicit AvgPool2dSupported(const Spec& spec) : spec_(spec) {}
  std::string_view name() const override { return "AvgPool2dSupported"; }
  std::optional<std::string> refuse(const ir::Graph& g, const ir::Node& n) const override {
    if (!isOp(n, LS_OP("aten.avg_pool2d.default")) || !spec_.u55()) return std::nullopt;
    const ir::Node* in = producer(g, n, 0);
    auto a = poolArgs(n, false);
    if (!in || !a || in->meta().rank() != 4) return std::nullopt;
    const ir::Shape& s = in->meta().shape;
    const bool ceil = sarg(n, 4).asBool() && *sarg(n, 4).asBool();
    const bool includePad = !sarg(n, 5).asBool() || *sarg(n, 5).asBool();
    const bool divisorOverride = !sarg(n, 6).isNone();
    // count_include_pad or a divisor override: padding is concatenated zeros, not the pool's.
    std::vector<int64_t> tosaPad = {0, 0, 0, 0};
    if (!includePad && !divisorOverride)
      tosaPad = {a->pad[0], postPad(s[2], a->kernel[0], a->stride[0], a->pad[0], ceil), a->pad[1],
                 postPad(s[3], a->kernel[1], a->stride[1], a->pad[1], ceil)};
    const bool smallKernel = 1 <= a->kernel[0] && a->kernel[0] <= 8 && 1 <= a->kernel[1] && a->kernel[1] <= 8;
    const bool noPad = tosaPad == std::vector<int64_t>{0, 0, 0, 0};
    if (!smallKernel && !noPad) return fmt::format("Avgpool2d with padding needs kernel dims < 8, got {}", list(a->kernel));
    if (!kernelCheck(a->kernel))
      return fmt::format("Avgpool2d needs kernel_y < 256, kernel_x*kernel_y<=65536, got {}", list(a->kernel));
    if (!dimCheck(s)) return fmt::format("Avgpool2d needs N == 1, rest dims <= 65536, got shape {}", shapeText(s));
    if (!strideCheck(a->stride)) return fmt::format("Avgpool2d needs stride <= 3, got {}", list(a->stride));
    if (s[0] != 1) return fmt::format("Avgpool2d needs N==1, got N=={}", s[0]);
    return std::nullopt;
  }

 private:
  Spec spec_;
};

class MaxPool2dSupported : public Check {
 public:
  explicit MaxPool2dSupported(const Spec& spec) : spec_(spec) {}
  std::string_view name() const override { return "MaxPool2dSupported"; }
  std::optional<std::string> refuse(const ir::Graph& g, const ir::Node& n) const override {
    if (!isOp(n, LS_OP("aten.max_pool2d_with_indices.default")) && !isOp(n, LS_OP("aten.max_pool2d.default"))) return std::nullopt;
    const ir::Node* in = producer(g, n, 0);
    auto a = poolArgs(n, true);
    if (!in || !a || in->meta().rank() != 4) return std::nullopt;
    const ir::Shape& s = in->meta().shape;
    // Dilation > 1 needs stride 1 (unless the output is 1x1).
    const int64_t hOut = 1 + (s[2] + 2 * a->pad[0] - a->dilation[0] * (a->kernel[0] - 1) - 1) / a->stride[0];
    const int64_t wOut = 1 + (s[3] + 2 * a->pad[1] - a->dilation[1] * (a->kernel[1] - 1) - 1) / a->stride[1];
    const bool hOk = a->dilation[0] == 1 || a->stride[0] == 1;
    const bool wOk = a->dilation[1] == 1 || a->stride[1] == 1;
    if (!((hOut == 1 && wOut == 1) || (hOk && wOk)))
      return fmt::format("Maxpool2d with dilation {} needs stride = 1, got stride {}", list(a->dilation), list(a->stride));
    if (!spec_.u55()) return std::nullopt;
    if (!kernelCheck(a->kernel))
      return fmt::format("Maxpool2d needs kernel_y < 256, kernel_x*kernel_y<=65536, got {}", list(a->kernel));
    if (!dimCheck(s)) return fmt::format("Maxpool2d needs N == 1, rest dims <= 65536, got shape {}", shapeText(s));
    if (!strideCheck(a->stride)) return fmt::format("Maxpool2d needs stride <= 3, got {}", list(a->stride));
    return std::nullopt;
  }

 private:
  Spec spec_;
};

}  // namespace

std::vector<CheckPtr> pool2dSupported(const Spec& spec) {
  std::vector<CheckPtr> c;
  c.push_back(std::make_unique<AvgPool2dSupported>(spec));
  c.push_back(std::make_unique<MaxPool2dSupported>(spec));
  return c;
}

}  // namespace ls::arm::support
