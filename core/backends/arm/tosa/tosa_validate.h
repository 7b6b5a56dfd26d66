// TOSA 1.0 legality validator, written from the specification: every operator's operand
// data types must be one of the combinations the spec lists for the allowed profiles and
// extensions (tosa_spec_tables.inc, generated from the spec's tosa.xml, with the spec's
// operator group beside each entry), operand ranks within the spec's limits, the level's
// limits kept (8K: MAX_RANK, MAX_KERNEL, MAX_STRIDE, MAX_SCALE, MAX_LOG2_SIZE,
// MAX_TENSOR_LIST_SIZE), and the cheap ERROR_IF rules on zero points and shifts. It checks a
// graph of tosa.* nodes (what the pipeline produces, before the writer serialises it) and a
// decoded .tosa flatbuffer from any tool (lowerscope-cli tosa-check).
#pragma once

#include <string>
#include <vector>

#include "core/backends/arm/tosa/tosa_writer.h"
#include "core/ir/graph.h"

namespace ls::arm {

struct TosaCheckOptions {
  /// "int": PRO-INT only (the integer-only Ethos-U profile); "fp": PRO-FP and PRO-INT (an FP
  /// graph also computes indices and shapes in integers).
  enum class Profile : uint8_t { Int, Fp } profile = Profile::Fp;
  /// Extensions allowed besides the profile, e.g. "EXT-INT16", "EXT-BF16", "EXT-FP8E4M3".
  std::vector<std::string> extensions;
  /// Level limits: "8k" (the spec's Level 8K) or "none".
  bool level8k = true;
  /// Leave the type check of an operator alone when one of its operands has a type TOSA 1.0
  /// does not have at all (int64, float64): a graph still being lowered, which the pipeline's
  /// last check judges (the executor's kernels run such intermediate graphs).
  bool skipNonTosaTypes = false;
};

struct TosaViolation {
  std::string where;    ///< "node 'clamp_3'" or "block 'main', operator #12"
  std::string op;       ///< spec name, e.g. "CLAMP"
  std::string message;  ///< what is illegal and what the spec allows
  std::string str() const { return where + " (" + op + "): " + message; }
};

/// Every violation of a graph of tosa.* nodes (get_attr constants checked as CONST). Nodes of
/// other dialects are reported as not TOSA operators.
std::vector<TosaViolation> validateTosaGraph(const ir::Graph& g, const TosaCheckOptions& o = {});

/// The violations of one node of `g` (a tosa.* call or a get_attr constant): what the reference
/// executor's TOSA kernels check before they run.
std::vector<TosaViolation> validateTosaNode(const ir::Graph& g, const ir::Node& n, const TosaCheckOptions& o = {});

/// Every violation of a decoded TOSA flatbuffer (all regions and blocks).
std::vector<TosaViolation> validateTosaFile(const io::TosaFileInfo& f, const TosaCheckOptions& o = {});

/// "N TOSA 1.0 violation(s) (profile P, level L):" and one line each (at most `limit`).
std::string formatViolations(const std::vector<TosaViolation>& v, const TosaCheckOptions& o, size_t limit = 50);

/// Spec version the tables come from ("1.0.1").
const char* tosaSpecVersion();
/// Whether the specification's tables name `extension` ("EXT-BF16").
bool isTosaExtension(std::string_view extension);

/// The specification's operator table as the validator reads it (for tests, docs and tools).
struct TosaSpecArg {
  std::string name;
  char category;  ///< 'i' input, 'o' output, 'a' attribute
  std::string type, elem, rankMin, rankMax;
};
struct TosaSpecSupport {
  std::string mode, profile, andProfile;
  std::vector<std::pair<std::string, std::string>> types;  ///< element-type variable -> type
};
struct TosaSpecOp {
  std::string name, group;
  std::vector<TosaSpecArg> args;
  std::vector<TosaSpecSupport> support;
};
const std::vector<TosaSpecOp>& tosaSpecOps();

}  // namespace ls::arm
