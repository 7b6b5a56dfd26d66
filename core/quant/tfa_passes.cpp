// Transform-for-annotation decompositions (see tfa_passes.h).
#include "core/quant/tfa_passes.h"

namespace ls::quant {

transforms::DecomposeOptions tfaDecomposeOptions() {
  transforms::DecomposeOptions o;
  o.honourDisallowFlag = true;
  o.float32Only = true;        // only float32 is quantised
  o.rejectUnsupported = false;  // the Arm pipeline decomposes or rejects the rest after quantisation
  return o;
}

std::vector<std::unique_ptr<passes::Pass>> builtinTfaPasses() {
  // Upstream order: layer norm first (its means go through the mean decomposition there;
  // here they are emitted as sum * 1/N directly), softmaxes after the division.
  const transforms::DecomposeOptions o = tfaDecomposeOptions();
  std::vector<std::unique_ptr<passes::Pass>> v;
  v.push_back(std::make_unique<transforms::DecomposeGroupNormPass>(o));
  v.push_back(std::make_unique<transforms::DecomposeLayerNormPass>(o));
  v.push_back(std::make_unique<transforms::DecomposeMeanDimPass>(o));
  v.push_back(std::make_unique<transforms::DecomposeDivPass>(o));
  v.push_back(std::make_unique<transforms::DecomposeSiluPass>(o));
  v.push_back(std::make_unique<transforms::DecomposeSoftmaxPass>(o));
  v.push_back(std::make_unique<transforms::DecomposeLogSoftmaxPass>(o));
  return v;
}

}  // namespace ls::quant
