// Upstream's Arm backend support lists (pytorch/executorch,
// backends/arm/operator_support/tosa_profile_supported_op_lists.py): the edge ops its TOSA
// partitioner accepts per profile. Recorded as facts so the coverage table (docs/OPS.md) can
// put our lowering beside upstream's; ops upstream admits through a dedicated support check
// (convolution, pools, ...) or through pre-quantisation decompositions are not in these lists.
#pragma once

#include <map>
#include <string>

namespace ls::arm {

enum UpstreamProfile : unsigned { kUpstreamFp = 1, kUpstreamInt = 2 };

/// Op name ("aten.add.Tensor") -> kUpstreamFp | kUpstreamInt.
const std::map<std::string, unsigned>& upstreamTosaSupportLists();

}  // namespace ls::arm
