// Teacher-forced agreement of an INT lowering with its quantised source (see int_agreement.h).
#include "core/verify/int_agreement.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <unordered_map>

#include "core/exec/materialize.h"
#include "core/exec/synth.h"

namespace ls::verify {

namespace {

/// An NCHW source shape's C, H and W; an NCW one (a 1-D convolution's value, which the TOSA
/// lowering computes as [N, C, 1, W] in NHWC) as H = 1.
struct Chw {
  int64_t C, H, W;
};
Chw chwOf(const ir::Shape& s) { return s.rank() == 3 ? Chw{s[1], 1, s[2]} : Chw{s[1], s[2], s[3]}; }

/// The lowered value is the NHWC form of an NCHW source value: its shape says so, or, when
/// C = H = W leaves both layouts the same shape, its values do (the layout that agrees with the
/// source in more elements; a dim order is not a safe guide here, as it is not kept alike by
/// every pass).
bool nhwcForm(const exec::Tensor& src, const exec::Tensor& low) {
  const ir::Shape& s = src.shape();
  if (s != low.shape()) return true;  // comparable(): the NHWC form
  if (s.rank() != 4 || s[1] != s[2] || s[2] != s[3]) return false;
  const int64_t C = s[1], H = s[2], W = s[3];
  int64_t same = 0, permuted = 0;
  for (int64_t i = 0; i < src.numel(); ++i) {
    const int64_t w = i % W, h = (i / W) % H, c = (i / (W * H)) % C, n = i / (W * H * C);
    const int64_t v = src.getInt(i);
    same += low.getInt(i) == v;
    permuted += low.getInt(((n * H + h) * W + w) * C + c) == v;
  }
  return permuted > same;
}

/// The lowered int8 element of the source's flat index i: the same layout, or the NHWC form of
/// an NCHW source value.
int64_t loweredAt(const exec::Tensor& src, const exec::Tensor& low, bool nhwc, int64_t i) {
  if (!nhwc) return low.getInt(i);
  const auto [C, H, W] = chwOf(src.shape());
  const int64_t w = i % W, h = (i / W) % H, c = (i / (W * H)) % C, n = i / (W * H * C);
  return low.getInt(((n * H + h) * W + w) * C + c);
}

bool comparable(const ir::Shape& src, const ir::Shape& low) {
  if (src == low) return true;
  if (low.rank() != 4 || (src.rank() != 4 && src.rank() != 3)) return false;
  const auto [C, H, W] = chwOf(src);
  return low[0] == src[0] && low[1] == H && low[2] == W && low[3] == C;
}

}  // namespace

Result<IntAgreement> intAgreement(const ir::Graph& source, const ir::Graph& lowered,
                                  const std::vector<exec::Tensor>& inputs, const AgreementOptions& opts,
                                  std::shared_ptr<exec::ConstantCache> constants) {
  static const ir::OpId q = ir::internOp("quantized_decomposed.quantize_per_tensor.default");
  static const ir::OpId dq = ir::internOp("quantized_decomposed.dequantize_per_tensor.default");
  IntAgreement a;
  a.quantizes = source.nodesOfOp(q).size();
  // Source quantize -> the lowered int8 value that takes it over.
  std::unordered_map<ir::NodeId, ir::NodeId> lowOf;
  for (const ir::NodePtr& p : lowered.nodes()) {
    if (!p->isCall() || p->outputs.size() != 1 || p->meta().dtype != ir::DType::Int8) continue;
    if (p->provenance.derivedFrom.size() != 1) continue;
    const ir::NodeId s = p->provenance.derivedFrom[0];
    if (const ir::Node* sn = source.find(s); sn && sn->op == q && comparable(sn->meta().shape, p->meta().shape))
      lowOf[s] = p->id;
  }
  if (!constants) constants = std::make_shared<exec::ConstantCache>();
  exec::Executor lx(exec::ExecOptions{.threads = opts.threads, .exactAccumulation = true}, constants);
  auto lv = lx.runAll(lowered, exec::adaptInputs(lowered, inputs));
  if (!lv) return Status::error("the lowered graph does not run: " + lv.message());

  // Source values no graph input reaches (weights, and values computed from them alone): the
  // lowering folds them and quantises them as PyTorch's convert does (x * (1 / scale) in
  // float32) into int8 constants, which no lowered node's provenance names.
  const std::vector<uint8_t> inputFree = exec::inputFreeNodes(source);

  std::unordered_map<ir::NodeId, std::vector<exec::Tensor>> forced;
  Status bad = Status::ok();
  auto reuse = [&](const ir::Node& n, const std::vector<std::vector<exec::Tensor>>& values)
      -> const std::vector<exec::Tensor>* {
    if (n.op != dq || n.args.empty() || !n.args[0].ref()) return nullptr;
    const ir::NodeId qid = n.args[0].ref()->node;
    if (auto f = forced.find(qid); f != forced.end()) return &f->second;
    auto it = lowOf.find(qid);
    const ir::Node& qn = source.node(qid);
    const ir::ValueRef* in = qn.args.empty() ? nullptr : qn.args[0].ref();
    const bool folded = it == lowOf.end() && in && in->node < inputFree.size() && inputFree[in->node];
    if (it == lowOf.end() && !folded) return nullptr;
    const std::optional<double> scaleArg = qn.args.size() > 2 ? qn.args[1].number() : std::nullopt;
    const std::optional<double> zpArg = qn.args.size() > 2 ? qn.args[2].number() : std::nullopt;
    if (!in || !scaleArg || !zpArg || qid >= values.size() || values[qid].empty() || in->node >= values.size() ||
        values[in->node].size() <= in->output) {
      if (bad.isOk()) bad = Status::error(fmt::format("quantize '{}': its input or qparams are not plain", qn.name));
      return nullptr;
    }
    const exec::Tensor& mine = values[qid][0];
    const exec::Tensor& pre = values[in->node][in->output];
    const double scale = *scaleArg;
    const float inv = float(1.0 / scale);
    const int64_t zp = int64_t(*zpArg);
    exec::Tensor constant;  // a folded constant's int8 value as the lowering quantises it
    if (folded) {
      if (!ir::isFloating(pre.dtype()) || pre.numel() != mine.numel()) return nullptr;
      const int64_t qmin = qn.args.size() > 4 && qn.args[3].number() ? int64_t(*qn.args[3].number()) : -128;
      const int64_t qmax = qn.args.size() > 4 && qn.args[4].number() ? int64_t(*qn.args[4].number()) : 127;
      constant = exec::Tensor(mine.dtype(), mine.shape());
      for (int64_t i = 0; i < pre.numel(); ++i)
        constant.setInt(i, exec::quantizeValue(float(pre.getDouble(i)), inv, zp, qmin, qmax));
    } else if (lv->of(it->second).empty()) {
      return nullptr;
    }
    const exec::Tensor& theirs = folded ? constant : lv->of(it->second)[0];
    if (theirs.numel() != mine.numel() || pre.numel() != mine.numel()) return nullptr;
    const bool nhwc = !folded && nhwcForm(mine, theirs);
    exec::Tensor out(opts.float64 ? ir::DType::Float64 : ir::DType::Float32, mine.shape());
    ++a.compared;
    a.elements += mine.numel();
    QuantizeDisagreement d;
    for (int64_t i = 0; i < mine.numel(); ++i) {
      const int64_t want = mine.getInt(i), got = loweredAt(mine, theirs, nhwc, i);
      // the dequantize kernel's arithmetic
      if (opts.float64) out.data<double>()[i] = double(got - zp) * scale;
      else out.data<float>()[i] = float(got - zp) * float(scale);
      if (want == got) continue;
      ++d.differ;
      d.maxDiff = std::max(d.maxDiff, std::abs(want - got));
      // x / scale as the source's quantize computed it
      const double v = opts.float64 ? pre.getDouble(i) / scale : double(float(pre.getDouble(i)) * inv);
      const double fromTie = std::abs(v - std::floor(v) - 0.5);
      if (fromTie > std::ldexp(std::abs(v), -30)) ++d.notTie;
      if (fromTie >= 1e-3) ++d.notNearTie;
      if (d.example < 0 || fromTie > std::abs(d.exampleSteps - std::floor(d.exampleSteps) - 0.5))
        d.example = i, d.exampleSteps = v, d.exampleSource = want, d.exampleLowered = got;
    }
    if (d.differ) {
      d.quantize = qn.name;
      const ir::Node& pn = source.node(in->node);
      d.producer = pn.name;
      d.producerOp = pn.target;
      d.elements = mine.numel();
      a.differ += d.differ;
      a.notTie += d.notTie;
      a.notNearTie += d.notNearTie;
      a.maxDiff = std::max(a.maxDiff, d.maxDiff);
      a.nodes.push_back(std::move(d));
    }
    forced[qid] = {std::move(out)};
    return &forced[qid];
  };
  exec::Executor sx(exec::ExecOptions{.threads = opts.threads, .exactAccumulation = true, .float64 = opts.float64},
                    constants);
  auto sv = sx.runAll(source, inputs, reuse);
  if (!sv) return Status::error("the source graph does not run: " + sv.message());
  LS_RETURN_IF_ERROR(bad);
  std::stable_sort(a.nodes.begin(), a.nodes.end(), [](const QuantizeDisagreement& x, const QuantizeDisagreement& y) {
    if ((x.notNearTie > 0) != (y.notNearTie > 0)) return x.notNearTie > 0;
    if ((x.notTie > 0) != (y.notTie > 0)) return x.notTie > 0;
    return x.differ > y.differ;
  });
  return a;
}

}  // namespace ls::verify
