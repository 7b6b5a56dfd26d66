// Reference-executor kernels for the ops the XNNPACK pipeline introduces: the clamp-fused
// variants (base kernel, then the output clamp).
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/backends/xnnpack/xnnpack_ops.h"
#include "core/exec/kernel_util.h"

namespace ls::xnnpack {
namespace {

using namespace exec;

/// Runs the base op's kernel, then clamps the result to [output_min, output_max].
Status fusedClamp(KernelCtx& c) {
  const std::string base = baseOfFusedClamp(c.opName());
  KernelFn fn = KernelRegistry::instance().find(base);
  if (!fn) return c.error("no kernel for the base op '{}' of the fused op", base);
  LS_ASSIGN_OR_RETURN(lo, c.getFloat(c.argIndex("output_min")));
  LS_ASSIGN_OR_RETURN(hi, c.getFloat(c.argIndex("output_max")));
  LS_RETURN_IF_ERROR(fn(c));
  if (c.outputs.empty() || !c.outputs[0].defined()) return c.error("the base kernel produced no output");
  Tensor& o = c.outputs[0];
  if (o.sharesStorage()) o = o.clone();
  if (o.dtype() == ir::DType::Float32) {
    const float flo = float(lo), fhi = float(hi);
    float* d = o.data<float>();
    for (int64_t i = 0; i < o.numel(); ++i) d[i] = d[i] < flo ? flo : (d[i] > fhi ? fhi : d[i]);
  } else {
    for (int64_t i = 0; i < o.numel(); ++i) {
      const double x = o.getDouble(i);
      o.setDouble(i, x < lo ? lo : (x > hi ? hi : x));
    }
  }
  return Status::ok();
}

}  // namespace

void registerXnnpackKernels(exec::KernelRegistry& r) {
  for (std::string_view base : {"aten.convolution.default", "aten.linear.default", "aten.add.Tensor",
                                "aten.sub.Tensor", "aten.mul.Tensor"})
    r.registerKernel(fusedClampOf(base), fusedClamp);
}

}  // namespace ls::xnnpack
