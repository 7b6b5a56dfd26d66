// Upstream's operator support checks (pytorch/executorch backends/arm/operator_support/, pinned
// at cff6f4dd): what upstream's TOSA partitioner lets into a delegated partition for a TOSA
// specification. Each check keeps upstream's class name and reason text; a refused node is
// reported as "Rejected by <check>: <reason>". One file per upstream file:
//   tosa_supported_operators.cpp  the chain (tosaSupportChecks), RankCheck, CheckDtypeInputsAndOutputs
//   ethos_u55_support.cpp         EthosU55NotSupported, EthosU55ResizeCheck, EthosU55ReverseCheck,
//                                 EthosU55DtypeSupport, EthosU55CastCheck
//   convolution_support.cpp       ConvolutionSupported (TOSA, and the Ethos-U55 limits of Vela)
//   pool_2d_support.cpp           AvgPool2dSupported, MaxPool2dSupported
//   reduce_sum_support.cpp        SumSupported (Vela's Ethos-U55 REDUCE_SUM shape limits)
// The checks read the graph the lowering starts from (the quantized edge graph, as upstream's
// partitioner does), before any pass; the session runs them through PipelineDef::supportChecks.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/graph.h"
#include "core/passes/pass.h"

namespace ls::arm::support {

/// The TOSA specification the checks are evaluated for (upstream's TosaSpecification, as far
/// as the checks read it).
struct Spec {
  passes::Profile profile = passes::Profile::FP;
  passes::Target target = passes::Target::Generic;
  /// Ethos-U55: upstream's is_U55_subset.
  bool u55() const { return target == passes::Target::U55; }
  /// Upstream's spec string: "TOSA-1.0+FP", "TOSA-1.0+INT", "TOSA-1.0+INT+u55", ...
  std::string str() const;
};

/// One check: accepts a call node (nullopt) or refuses it with upstream's reason.
class Check {
 public:
  virtual ~Check() = default;
  /// Upstream's class name ("EthosU55NotSupported").
  virtual std::string_view name() const = 0;
  virtual std::optional<std::string> refuse(const ir::Graph& g, const ir::Node& n) const = 0;
};
using CheckPtr = std::unique_ptr<Check>;

/// The checks for `spec` in upstream's order (tosa_support_factory's negative checks, with the
/// registered per-op checks where their ops are concerned).
std::vector<CheckPtr> tosaSupportChecks(const Spec& spec);
/// Every call node the chain refuses, in graph order, with the first check that refused it.
std::vector<passes::SupportRejection> evaluate(const ir::Graph& g, const Spec& spec);

// ---- the families (one per upstream file)
std::vector<CheckPtr> genericChecks(const Spec& spec);   // tosa_supported_operators.cpp
std::vector<CheckPtr> ethosU55Checks();                  // ethos_u55_support.cpp
CheckPtr convolutionSupported(const Spec& spec);         // convolution_support.cpp
std::vector<CheckPtr> pool2dSupported(const Spec& spec); // pool_2d_support.cpp
CheckPtr sumSupported(const Spec& spec);                 // reduce_sum_support.cpp

// ---- helpers shared by the families
/// "torch.int8", as upstream prints a dtype.
std::string torchDType(ir::DType t);
/// "[1, 3, 224, 224]"
std::string shapeList(const ir::Shape& s);
/// The node producing call arg `i` of `n` (a tensor ref), or null.
const ir::Node* producer(const ir::Graph& g, const ir::Node& n, int i);
/// The nodes `n` reads, in argument order (upstream's all_input_nodes, duplicates removed).
std::vector<const ir::Node*> inputNodes(const ir::Graph& g, const ir::Node& n);
bool isOp(const ir::Node& n, ir::OpId op);

}  // namespace ls::arm::support
