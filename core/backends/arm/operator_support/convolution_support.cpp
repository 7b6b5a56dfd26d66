// Upstream's convolution_support.py (ConvolutionSupported): what TOSA takes of
// aten.convolution, and the Ethos-U55 limits of Vela (channels, kernel size, the stride /
// padding / dilation combination; TRANSPOSE_CONV2D's shape, kernel and stride). See
// operator_support.h.
#include <fmt/format.h>

#include "core/backends/arm/arm_util.h"
#include "core/backends/arm/operator_support/operator_support.h"
#include "core/ir/op_ref.h"

namespace ls::arm::support {

namespace {

/// Upstream's expand_around_channel(xs, 2): one value stands for both spatial dims.
std::vector<int64_t> expand2(std::vector<int64_t> v) {
  if (v.size() == 1) v.push_back(v[0]);
  return v;
}

class ConvolutionSupported : public Check {
 public:
  explicit ConvolutionSupported(const Spec& spec) : spec_(spec) {}
  std::string_view name() const override { return "ConvolutionSupported"; }

  std::optional<std::string> refuse(const ir::Graph& g, const ir::Node& n) const override {
    if (!isOp(n, LS_OP("aten.convolution.default"))) return std::nullopt;
    const ir::Node* in = producer(g, n, 0);
    const ir::Node* w = producer(g, n, 1);
    if (!in || !w) return std::nullopt;  // malformed: the lowering names it
    const bool transposed = sarg(n, 6).asBool() && *sarg(n, 6).asBool();
    const std::vector<int64_t> outPad = sints(n, 7).value_or(std::vector<int64_t>{});
    const int64_t groups = sarg(n, 8).asInt() ? *sarg(n, 8).asInt() : 1;
    if (transposed) {
      if (auto why = transposedSupport(n, *w, groups, outPad)) return why;
    } else {
      for (int64_t p : outPad)
        if (p != 0) return "Convolutions with non-zero output padding not implemented.";
    }
    if (!spec_.u55()) return std::nullopt;
    return transposed ? transposedU55(n, *in, *w) : convU55(n, *in, *w, groups);
  }

 private:
  std::optional<std::string> transposedSupport(const ir::Node& n, const ir::Node& w, int64_t groups,
                                               const std::vector<int64_t>& outPadArg) const {
    for (int64_t d : expand2(sints(n, 5).value_or(std::vector<int64_t>{1})))
      if (d != 1) return "Transpose convolutions with dilation are not supported.";
    if (groups != 1 && isOp(w, LS_OP(kDqc)))
      return "Grouped transpose convolutions with per-channel weight quantization are not supported.";
    const ir::Shape& ks = w.meta().shape;
    if (ks.rank() != 4) return "Only 2D transpose convolutions are supported.";
    std::vector<int64_t> pad = expand2(sints(n, 4).value_or(std::vector<int64_t>{0}));
    std::vector<int64_t> outPad = expand2(outPadArg.empty() ? std::vector<int64_t>{0} : outPadArg);
    if (pad.size() < 2 || outPad.size() < 2) return std::nullopt;
    const int64_t kh = ks[2], kw = ks[3];
    if (-pad[0] <= -kh || -pad[0] + outPad[0] <= -kh) return "Transpose convolution out_pad exceeds kernel height.";
    if (-pad[1] <= -kw || -pad[1] + outPad[1] <= -kw) return "Transpose convolution out_pad exceeds kernel width.";
    return std::nullopt;
  }

  /// Vela's Ethos-U55 TRANSPOSE_CONV2D constraints.
  std::optional<std::string> transposedU55(const ir::Node& n, const ir::Node& in, const ir::Node& w) const {
    const ir::Shape& s = in.meta().shape;
    if (s.rank() != 4) return fmt::format("TransposeConv2d requires 4D input, got rank {}.", s.rank());
    const int64_t c = s[1], h = s[2], wd = s[3];
    auto inRange = [](int64_t v) { return v >= 1 && v <= 65536; };
    if (!inRange(c) || !inRange(h) || !inRange(wd))
      return fmt::format("HWC must be in the range [1;65536] but got {} {} {}", c, h, wd);
    const ir::Shape& k = w.meta().shape;
    const int64_t kh = k.rank() > 2 ? k[2] : 1, kw = k.rank() > 3 ? k[3] : 1;
    if (kh * kw > 4096 || kh * kw < 1 || kh > 64 || kh < 1)
      return fmt::format("Kernel Height * Kernel Width must be in the range [1;4096] but got {}", kh * kw);
    std::vector<int64_t> st = expand2(sints(n, 3).value_or(std::vector<int64_t>{1}));
    if (st.size() < 2) return std::nullopt;
    bool ok = false;
    if ((st[0] == 1 && st[1] == 1) || (st[0] == 2 && st[1] == 2)) ok = true;
    else if (st[0] == 1 && st[1] == 2) ok = h == 1 && kh == 1;
    else if (st[0] == 2 && st[1] == 1) ok = wd == 1 && kw == 1;
    if (ok) return std::nullopt;
    return fmt::format(
        "Unsupported stride of ({}, {}) for Ethos-U55. You can use stride of (1,1) or (2,2), stride (1,2) for IFM "
        "height kernel height of 1 and stride(2,1) for IFM width and kernel width of 1",
        st[0], st[1]);
  }

  /// Vela's Ethos-U55 CONV2D / DEPTHWISE_CONV2D constraints (as upstream encodes them).
  std::optional<std::string> convU55(const ir::Node& n, const ir::Node& in, const ir::Node& w, int64_t group) const {
    const ir::Shape& si = in.meta().shape;
    const ir::Shape& so = n.meta().shape;
    const ir::Shape& k = w.meta().shape;
    if (si.rank() < 2 || so.rank() < 2 || k.rank() < 3) return std::nullopt;
    const int64_t cin = si[1], cout = so[1];
    if (cin == group && cin != 0 && cout % cin == 0 && si.rank() <= 4) {
      for (int i = 1; i < si.rank(); ++i)
        if (si[i] < 1 || si[i] > 65536) return fmt::format("Depthwise convolution must have CWH <= 65536, got {})", si[i]);
    } else if (cin < 1 || cin > 65536) {
      return fmt::format("Convolution must have C <= 65536, got {})", cin);
    }
    const int64_t kernelW = k[2];
    const int64_t kernelH = k.rank() > 3 ? k[3] : 1;
    const int64_t kernelZ = k.rank() > 4 ? k[4] : 1;
    if (kernelH < 1 || kernelH > 64 || kernelW * kernelH < 1 || kernelW * kernelH > 4096)
      return fmt::format("Convolution needs to have kernel_y<=64, kernel_x*kernel_y<=4096, got kernel ({}, {})", kernelW,
                         kernelH);
    if (kernelZ != 1) return fmt::format("Convolution3d needs to have kernel_z==1, got {}.", kernelZ);
    // Strides above 3 only without padding and with dilation 1; stride_z <= 1.
    std::vector<int64_t> strides = expand2(sints(n, 3).value_or(std::vector<int64_t>{1}));
    std::vector<int64_t> dil = expand2(sints(n, 5).value_or(std::vector<int64_t>{1}));
    bool padded = false;
    for (int64_t p : sints(n, 4).value_or(std::vector<int64_t>{})) padded |= p > 0;
    if (strides.size() > 2 && strides[2] > 1)
      return fmt::format("Convolution3d only supports stride_z<=1, got {}.", strides[2]);
    for (size_t i = 0; i < strides.size() && i < dil.size(); ++i) {
      const bool strideOk = strides[i] >= 1 && strides[i] <= 3;
      const bool dilationOk = !padded && dil[i] == 1;
      if (!strideOk && !dilationOk) return "Failed condition on stride, pad and dilation combination.";
    }
    return std::nullopt;
  }

  Spec spec_;
};

}  // namespace

CheckPtr convolutionSupported(const Spec& spec) { return std::make_unique<ConvolutionSupported>(spec); }

}  // namespace ls::arm::support
