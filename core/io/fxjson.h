// fxjson import/export: reads the neutral torch.fx JSON dump (docs/FXJSON.md) into an ir::Graph
// and writes a graph back in the same format.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/graph.h"
#include "core/util/status.h"

namespace ls::io {

/// One finding that many nodes can share (an unknown op imported as opaque, an op imported as
/// its functional twin): reported as one line with the count and the first few nodes, not one
/// line per node (a symbolic_trace graph has dozens of call_module nodes).
struct NodeFinding {
  static constexpr size_t kMaxExamples = 3;
  std::string what;                   ///< "unknown op 'operator.add' imported as opaque"
  size_t nodes = 0;                   ///< how many nodes it applies to
  std::vector<std::string> examples;  ///< the first kMaxExamples of them, as "'name'" or "'name' (target)"
  /// "WHAT: 1 node ('a')", "WHAT: 3 nodes ('a', 'b', 'c')", "WHAT: 12 nodes, e.g. 'a', 'b', 'c'".
  std::string text() const;
};

/// Non-fatal findings of an import (unknown ops imported as opaque, nodes re-sorted, ...).
struct ImportReport {
  std::vector<std::string> warnings;  ///< one line each, "SOURCE: ..."; grouped findings included
  size_t opaqueNodes = 0;  ///< call nodes whose op the registry does not know (kFlagOpaque)
  /// The grouped findings behind some of `warnings` (in the same order), for readers that merge
  /// the reports of several graphs (a bundle warns once per finding, not once per snapshot).
  std::vector<NodeFinding> nodeFindings;
};

/// The kind an unknown op is grouped under in warnings: the op itself, except that every
/// `call_module.<module path>` (torch.fx symbolic_trace, kept by tools/lowerscope_record.py)
/// is one kind, "call_module.*": its target names a module instance, not an operation.
std::string unknownOpKind(std::string_view target);

/// Imports an fxjson document. `sourceName` prefixes every error message
/// ("resnet18.fxjson.json: node 'convolution_3' (#57): meta.shape: expected ..., got ...").
///
/// Nodes get ids 0..n-1 in graph order. Nodes that are not in topological order in the file
/// are sorted (stable: file order is kept wherever the references allow); a cycle is an error.
/// Call nodes of known ops are checked against their schema (ops::checkArgs); missing meta is
/// inferred (ops::inferNode). Unknown ops are kept with their recorded meta, flagged
/// ir::kFlagOpaque and counted in `report`, with one warning per kind (unknownOpKind) that
/// gives the node count and the first few nodes.
///
/// Never throws and never crashes on malformed input: every problem is an error Status that
/// names the source, the node (name and index in "nodes") or constant, what was expected and
/// what was found. Thread-safe (no shared mutable state besides the op-name table).
///
/// Extension to FXJSON.md: a node reference may carry `"output": i` ({"node": "x", "output": 1})
/// to read output i of a multi-output node directly; the exporter writes it only when i > 0.
/// Another: `"meta": {"shape": null, "dtype": null}` records a single non-tensor output.
Result<ir::Graph> importFxJson(std::string_view json, const std::string& sourceName, ImportReport* report = nullptr);
/// importFxJson for text followed by at least kReadFilePadding readable bytes (readFile's
/// result): parsed in place, without the copy of the whole text a plain view needs.
Result<ir::Graph> importPaddedFxJson(std::string_view json, const std::string& sourceName,
                                     ImportReport* report = nullptr);

/// Reads and imports a file; errors are prefixed with the file's name (without directories).
Result<ir::Graph> importFxJsonFile(const std::string& path, ImportReport* report = nullptr);

/// Writes `g` as fxjson (format, version, model, nodes in graph order, constants with
/// data_b64 when their bytes are present, inputs, outputs). Floats are written so that they
/// parse back to the same double; non-finite ones as {"float": "inf"|"-inf"|"nan"}.
/// importFxJson(exportFxJson(g)) prints identically (ir::printGraph) and has the same
/// constants. Not written (the format has no place for them): provenance, node flags other
/// than the list form of outputs, quantisation parameters, subgraphs.
std::string exportFxJson(const ir::Graph& g);

/// Standard base64 (RFC 4648, '=' padding) used for data_b64; exposed for tests and tools.
std::string encodeBase64(const void* data, size_t len);
/// Decodes standard, padded base64. The error says what is wrong and where.
Result<std::vector<uint8_t>> decodeBase64(std::string_view text);

}  // namespace ls::io
