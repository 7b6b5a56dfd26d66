// End-to-end check of a lowered graph as a .tosa file: it serialises (TOSA 1.0 flatbuffer),
// reads back, and the file passes our validator (tosa-check) under the profile given.
#pragma once

#include <gtest/gtest.h>

#include "core/backends/arm/tosa/tosa_validate.h"
#include "core/backends/arm/tosa/tosa_writer.h"
#include "core/passes/pass_manager.h"
#include "core/quant/quantizer.h"

namespace ls::test {

/// `low` (the tosa pipeline's result) written as .tosa bytes, read back and validated for the
/// generic target, as `lower --tosa` and the pipeline's support check judge it: PRO-FP with
/// PRO-INT. (An INT lowering may keep float islands, e.g. a quantised bool -> float cast, so
/// PRO-INT alone is not asked of it.)
inline void expectValidTosaFile(const ir::Graph& low) {
  io::TosaWriteOptions wo;
  wo.synthesizeMissingData = true;
  auto bytes = io::serializeTosa(low, wo);
  ASSERT_TRUE(bytes.isOk()) << bytes.message();
  auto info = io::readTosaBytes(*bytes, "lowered.tosa");
  ASSERT_TRUE(info.isOk()) << info.message();
  arm::TosaCheckOptions o;
  o.profile = arm::TosaCheckOptions::Profile::Fp;
  std::vector<arm::TosaViolation> v = arm::validateTosaFile(*info, o);
  EXPECT_TRUE(v.empty()) << arm::formatViolations(v, o);
}

/// `g` through the tosa pipeline under `profile` with the passes `disabled` switched off; INT
/// quantizes first as `lower` does (the pipeline's transform-for-annotation passes, seeded
/// calibration). The run's result is returned, not asserted.
inline passes::RunResult lowerTosaWithout(ir::Graph& g, passes::Profile profile,
                                          const std::vector<std::string>& disabled = {}) {
  if (profile == passes::Profile::INT) {
    quant::QuantizeOptions qo;
    if (const passes::PipelineDef* def = passes::PipelineRegistry::instance().find("tosa"))
      qo.extraTfaPasses = def->annotationPasses;
    for (const std::string& d : disabled) std::erase(qo.extraTfaPasses, d);
    auto rep = quant::quantizeGraph(g, qo);
    EXPECT_TRUE(rep.isOk()) << rep.message();
  }
  auto pm = passes::PassManager::fromPipeline("tosa");
  EXPECT_TRUE(pm.isOk()) << pm.message();
  if (!pm.isOk()) return {};
  for (const std::string& d : disabled) pm->disable(d);
  ops::InferenceCache cache;
  passes::PassContext ctx;
  ctx.profile = profile;
  ctx.cache = &cache;
  return pm->run(g, ctx);
}

}  // namespace ls::test
