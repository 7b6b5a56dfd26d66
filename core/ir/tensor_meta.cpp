// Printing of shapes and tensor metadata.
#include "core/ir/tensor_meta.h"

#include <fmt/format.h>

namespace ls::ir {

std::string toString(const Shape& s) {
  std::string out = "[";
  for (int i = 0; i < s.rank(); ++i) {
    if (i) out += ',';
    out += std::to_string(s[i]);
  }
  out += ']';
  return out;
}

std::string toString(const TensorMeta& m) {
  if (!m.isTensor()) return "none";
  std::string out(dtypeShortName(m.dtype));
  out += toString(m.shape);
  if (!m.dimOrder.isIdentity()) {
    out += '{';
    for (int i = 0; i < m.dimOrder.rank(); ++i) {
      if (i) out += ',';
      out += std::to_string(m.dimOrder[i]);
    }
    out += '}';
  }
  if (m.quant) {
    const QuantParams& q = *m.quant;
    if (q.scheme == QScheme::PerTensor && !q.scales.empty())
      out += fmt::format(" q({}:{},{},[{},{}])", dtypeShortName(q.storage), q.scales[0],
                         q.zeroPoints.empty() ? 0 : q.zeroPoints[0], q.qmin, q.qmax);
    else
      out += fmt::format(" qc({}:axis={},n={},[{},{}])", dtypeShortName(q.storage), q.axis,
                         q.scales.size(), q.qmin, q.qmax);
  }
  return out;
}

}  // namespace ls::ir
