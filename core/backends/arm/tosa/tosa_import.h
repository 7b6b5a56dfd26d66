// Opens a TOSA 1.0 flatbuffer (ours or any other tool's) as a graph of tosa.* nodes, the
// inverse of the writer: block inputs become placeholders, CONST operators constants with their
// bytes, CONST_SHAPE operators tosa.CONST_SHAPE nodes, every other operator a call node whose
// kwargs are decoded from its attribute table by the op table's serialization facts. The file's
// shapes and types are checked against the registry's meta inference.
#pragma once

#include <string>
#include <string_view>

#include "core/backends/arm/tosa/tosa_writer.h"
#include "core/exec/tensor.h"
#include "core/io/fxjson.h"
#include "core/ir/graph.h"
#include "core/util/status.h"

namespace ls::arm {

/// The main block of `f` as a graph. Errors name `sourceName`, the operator (index and op) or
/// the tensor, and say what was expected (an operator the registry does not know, a type TOSA
/// graphs here cannot hold, metadata that disagrees with the operator's shape rule). What a newer
/// TOSA file holds that this build does not know is a warning in `report`: the file's own
/// warnings (version, unknown fields) and operators without a schema here, which are imported
/// as opaque nodes (ir::kFlagOpaque: drawn and inspected, not run or written), as fxjson does.
Result<ir::Graph> tosaFileToGraph(const io::TosaFileInfo& f, const std::string& sourceName,
                                  io::ImportReport* report = nullptr);

/// Reads TOSA bytes into a graph (readTosaBytes, then tosaFileToGraph).
Result<ir::Graph> loadTosaGraphBytes(std::string_view bytes, const std::string& sourceName,
                                     io::ImportReport* report = nullptr);

/// How the graph read back from a .tosa file computes against the graph it was written from.
struct TosaFileRun {
  bool identical = false;  ///< every output has the same dtype, shape and bytes
  size_t outputs = 0;
  std::string message;     ///< "N outputs bit-identical" or the first difference (output, element, values)
};

/// Runs `lowered` and the file `bytes` (read as any .tosa file is) with the reference executor
/// on the same `inputs` (those `lowered` takes, e.g. int8 for an INT graph) and compares outputs
/// bit for bit. Fails when the file does not read or either graph does not run.
Result<TosaFileRun> runTosaFileAgainst(const ir::Graph& lowered, std::string_view bytes, const std::string& sourceName,
                                       const std::vector<exec::Tensor>& inputs);

}  // namespace ls::arm
