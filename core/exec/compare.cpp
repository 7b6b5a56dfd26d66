// Output comparison (allclose for floats, quantisation steps for quantised integers, equality
// for other integers).
#include "core/exec/compare.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <optional>

#include "core/exec/executor.h"
#include "core/ir/op_ref.h"

namespace ls::exec {

OutputDiff compareTensors(const Tensor& actual, const Tensor& expected, const CompareOptions& opts, bool quantised) {
  OutputDiff d;
  if (!actual.defined() || !expected.defined()) {
    d.equivalent = actual.defined() == expected.defined();
    d.shapeMismatch = !d.equivalent;
    return d;
  }
  if (actual.shape() != expected.shape()) {
    d.equivalent = false;
    d.shapeMismatch = true;
    return d;
  }
  const bool fa = ir::isFloating(actual.dtype()), fe = ir::isFloating(expected.dtype());
  if (fa != fe) {
    d.equivalent = false;
    d.dtypeMismatch = true;
    return d;
  }
  const int64_t n = actual.numel();
  if (!fa) {
    const int64_t allowed = quantised && expected.dtype() != ir::DType::Bool ? opts.maxSteps : 0;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t a = actual.getInt(i), b = expected.getInt(i);
      const int64_t diff = a > b ? a - b : b - a;
      if (diff > d.maxSteps) {
        d.maxSteps = diff;
        d.worstElement = i;
      }
      if (diff > 0)
        d.tolerances = std::max(d.tolerances, allowed > 0 ? double(diff) / double(allowed) : INFINITY);
      if (diff > allowed) {
        ++d.mismatches;
        if (d.firstFailingElement < 0) {
          d.firstFailingElement = i;
          d.actualAtFailure = double(a);
          d.expectedAtFailure = double(b);
        }
      }
    }
    d.maxAbsError = double(d.maxSteps);
    d.equivalent = d.mismatches == 0;
    return d;
  }
  double maxExpected = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double b = expected.getDouble(i);
    if (std::isfinite(b)) maxExpected = std::max(maxExpected, std::abs(b));
  }
  for (int64_t i = 0; i < n; ++i) {
    const double a = actual.getDouble(i), b = expected.getDouble(i);
    bool ok;
    double diff = 0.0;
    if (std::isnan(a) || std::isnan(b)) {
      ok = opts.nanEqual && std::isnan(a) && std::isnan(b);
      diff = ok ? 0.0 : INFINITY;
      if (!ok) d.tolerances = INFINITY;
    } else if (std::isinf(a) || std::isinf(b)) {
      ok = a == b;
      diff = ok ? 0.0 : INFINITY;
      if (!ok) d.tolerances = INFINITY;
    } else {
      diff = std::abs(a - b);
      const double tol = opts.atol + opts.rtol * (opts.scaleRelative ? maxExpected : std::abs(b));
      ok = diff <= tol;
      if (diff > 0) d.tolerances = std::max(d.tolerances, tol > 0 ? diff / tol : INFINITY);
    }
    if (d.worstElement < 0 || diff > d.maxAbsError) {
      d.worstElement = i;
      d.maxAbsError = diff;
    }
    d.maxRelError = std::max(d.maxRelError, diff / std::max(std::abs(b), opts.relFloor));
    if (!ok) {
      ++d.mismatches;
      if (d.firstFailingElement < 0) {
        d.firstFailingElement = i;
        d.actualAtFailure = a;
        d.expectedAtFailure = b;
      }
    }
  }
  d.maxRelToMax = maxExpected > 0 ? d.maxAbsError / maxExpected : (d.maxAbsError > 0 ? INFINITY : 0.0);
  d.equivalent = d.mismatches == 0;
  return d;
}

CompareResult compareOutputs(const std::vector<Tensor>& actual, const std::vector<Tensor>& expected,
                             const CompareOptions& opts, const std::vector<bool>& quantised) {
  CompareResult r;
  if (actual.size() != expected.size()) {
    r.equivalent = false;
    r.message = fmt::format("output count differs: {} vs expected {}", actual.size(), expected.size());
    return r;
  }
  for (size_t i = 0; i < actual.size(); ++i) {
    const bool q = i < quantised.size() && quantised[i];
    OutputDiff d = compareTensors(actual[i], expected[i], opts, q);
    const bool isFloat = actual[i].defined() && ir::isFloating(actual[i].dtype());
    if (isFloat) {
      r.maxAbsError = std::max(r.maxAbsError, d.maxAbsError);
      r.maxRelError = std::max(r.maxRelError, d.maxRelError);
      r.maxRelToMax = std::max(r.maxRelToMax, d.maxRelToMax);
    } else {
      r.maxSteps = std::max(r.maxSteps, d.maxSteps);
    }
    if (!d.equivalent && r.equivalent) {
      r.equivalent = false;
      r.firstFailingOutput = int(i);
      r.firstFailingElement = d.firstFailingElement;
      if (d.shapeMismatch)
        r.message = fmt::format("output #{}: {} vs expected {}", i, actual[i].defined() ? ir::toString(actual[i].meta()) : "none",
                                expected[i].defined() ? ir::toString(expected[i].meta()) : "none");
      else if (d.dtypeMismatch)
        r.message = fmt::format("output #{}: dtype {} vs expected {}", i, ir::dtypeName(actual[i].dtype()),
                                ir::dtypeName(expected[i].dtype()));
      else if (isFloat)
        r.message = fmt::format("output #{} element {}: {:.9g} vs expected {:.9g} (|diff| {:.3g} > atol {} + rtol {} * {}; "
                                "{} of {} elements differ)",
                                i, d.firstFailingElement, d.actualAtFailure, d.expectedAtFailure,
                                std::abs(d.actualAtFailure - d.expectedAtFailure), opts.atol, opts.rtol,
                                opts.scaleRelative ? "max|expected|" : "|expected|", d.mismatches,
                                actual[i].numel());
      else if (q && expected[i].dtype() != ir::DType::Bool)
        r.message = fmt::format("output #{} element {}: {} vs expected {} ({} steps > {}; {} of {} elements differ)", i,
                                d.firstFailingElement, int64_t(d.actualAtFailure), int64_t(d.expectedAtFailure),
                                std::llabs(int64_t(d.actualAtFailure) - int64_t(d.expectedAtFailure)), opts.maxSteps,
                                d.mismatches, actual[i].numel());
      else
        r.message = fmt::format("output #{} element {}: {} vs expected {} ({} values must be equal; {} of {} elements "
                                "differ)",
                                i, d.firstFailingElement, int64_t(d.actualAtFailure), int64_t(d.expectedAtFailure),
                                ir::dtypeName(expected[i].dtype()), d.mismatches, actual[i].numel());
    }
    r.outputs.push_back(d);
  }
  if (r.equivalent)
    r.message = fmt::format("equivalent (max abs {:.3g}, max rel {:.3g}{}, max steps {})", r.maxAbsError,
                            opts.scaleRelative ? r.maxRelToMax : r.maxRelError,
                            opts.scaleRelative ? " of max|expected|" : "", r.maxSteps);
  return r;
}

namespace {
bool isDequantPerTensor(ir::OpId op) {
  return op == LS_OP("quantized_decomposed.dequantize_per_tensor.default") ||
         op == LS_OP("quantized_decomposed.dequantize_per_tensor.tensor");
}
}  // namespace

bool hasQuantOps(const ir::Graph& g) {
  for (ir::OpId op : g.opsPresent())
    if (ir::opName(op).starts_with("quantized_decomposed.")) return true;
  for (const auto& [name, sg] : g.subgraphs())
    if (sg && hasQuantOps(*sg)) return true;
  return false;
}

namespace {
/// The values `g` returns, in output order.
std::vector<ir::ValueRef> outputRefs(const ir::Graph& g) {
  std::vector<ir::ValueRef> refs;
  const ir::Node* out = g.outputNode();
  if (!out) return refs;
  for (const ir::Arg& a : out->args) {
    if (const ir::RefList* l = a.asRefList()) refs.insert(refs.end(), l->begin(), l->end());
    else if (const ir::ValueRef* r = a.ref()) refs.push_back(*r);
  }
  return refs;
}
}  // namespace

std::vector<bool> quantisedOutputs(const ir::Graph& g) {
  std::vector<bool> q;
  for (const ir::ValueRef& r : outputRefs(g)) q.push_back(!r.isNone() && g.find(r.node) && g.meta(r).quant != nullptr);
  return q;
}

std::vector<double> outputQuantSteps(const ir::Graph& g, ConstantCache& constants, std::vector<int64_t>* zeroPoints) {
  std::vector<double> steps;
  if (zeroPoints) zeroPoints->clear();
  if (!g.outputNode()) return steps;
  const std::vector<ir::ValueRef> refs = outputRefs(g);
  // A number argument, or a 1-element constant.
  auto scalarArg = [&](const ir::Arg& a) -> std::optional<double> {
    if (auto v = a.number()) return v;
    if (const ir::ValueRef* sr = a.ref()) {
      const ir::Node* sn = g.find(sr->node);
      if (sn && sn->kind == ir::NodeKind::GetAttr)
        if (const ir::Constant* c = g.constant(sn->target)) {
          Tensor t = constants.get(*c);
          if (t.numel() == 1) return t.getDouble(0);
        }
    }
    return std::nullopt;
  };
  for (const ir::ValueRef& r : refs) {
    double step = 0.0;
    int64_t zp = 0;
    const ir::Node* n = r.isNone() ? nullptr : g.find(r.node);
    if (n && n->isCall() && isDequantPerTensor(n->op) && n->args.size() > 2) {
      auto s = scalarArg(n->args[1]);
      auto z = scalarArg(n->args[2]);
      if (s && z) {
        step = *s;
        zp = int64_t(*z);
      }
    }
    const bool ok = step > 0 && std::isfinite(step);
    steps.push_back(ok ? step : 0.0);
    if (zeroPoints) zeroPoints->push_back(ok ? zp : 0);
  }
  return steps;
}

}  // namespace ls::exec
