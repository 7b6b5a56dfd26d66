// Machine-readable summary of a pipeline run (`lowerscope-cli lower --json`).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/ir/graph.h"
#include "core/passes/pass.h"
#include "core/trace/trace.h"

namespace ls::io {

struct RunSummary {
  std::string model, pipeline;
  passes::Profile profile = passes::Profile::FP;
  passes::Target target = passes::Target::Generic;
  passes::EngineOptions options;
  std::vector<trace::PassRecord> records;
  int64_t totalNs = 0;
  /// INT profile over a float graph: the quantizer's run before the pipeline ("quantize":
  /// {pipeline, summary, ms, passes[]} in the JSON; omitted when empty).
  std::string quantizePipeline, quantizeSummary;
  std::vector<trace::PassRecord> quantizePasses;
  int64_t quantizeNs = 0;
  const ir::Graph* finalGraph = nullptr;
  /// Extra top-level fields under "final" (e.g. delegates), written as integers / op counts.
  std::map<std::string, int64_t> finalExtras;
  std::map<std::string, std::map<std::string, int64_t>> finalMaps;
  /// The pipeline's operator support checks ran ("support": {enforced, ms, rejected[]} in the JSON;
  /// omitted when the pipeline has none): the nodes they refused for the target.
  bool supportChecked = false;
  int64_t supportNs = 0;
  std::vector<passes::SupportRejection> rejected;
};

/// Op histogram of call nodes ("aten.add.Tensor" -> count), nested graphs included.
std::map<std::string, int64_t> opHistogram(const ir::Graph& g, bool includeNested = true);

/// The JSON document documented in README ("lower --json").
std::string runSummaryJson(const RunSummary& s);

}  // namespace ls::io
