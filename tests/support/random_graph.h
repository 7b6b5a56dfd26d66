// Random valid graphs for the pipeline fuzzer (tests/fuzz/pipeline_fuzz.cpp, libFuzzer) and its
// deterministic CTest smoke (tests/core/session/pipeline_fuzz_test.cpp).
//
// A graph is built from an entropy stream: float32 inputs of random rank and shape, then a
// sequence of ops drawn from the op registry. Structured ops (convolution, pooling, linear,
// norms, reductions, views, permutes, concatenation, softmax, where) have their own argument
// makers; every other registered aten op whose arguments are tensors and scalars only is
// generated from its schema, so the fuzzer grows with the registry. Every node is kept only if
// the registry's shape inference accepts it, so the graphs are valid by construction. Shapes are
// small; broadcasting, shared weights, fan-out, duplicate graph outputs and returned Nones are drawn
// at random.
//
// runCase lowers a graph through one pipeline/profile with the structural verifier and
// semantic verify-each on, and says whether something broke (a finding: a pass threw or failed,
// the verifier failed, a pass changed the outputs, a lowered graph does not run, the quantizer
// failed) or the pipeline's support check refused the graph (CheckTosaOperatorSupportPass
// naming an op or type the target cannot take: not a finding, it is counted).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/ir/graph.h"
#include "core/passes/pass.h"

namespace ls::fuzz {

/// Decisions from fuzzer bytes (exhausted: zeros) or from a seeded generator.
class Entropy {
 public:
  Entropy(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  explicit Entropy(uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 1), seeded_(true) {}
  /// Uniform in [0, n); n > 0.
  uint32_t below(uint32_t n);
  bool coin() { return below(2) == 1; }
  /// One of a few "nice" reals in [lo, hi].
  double real(double lo, double hi) { return lo + (hi - lo) * double(below(17)) / 16.0; }

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0, pos_ = 0;
  uint64_t state_ = 0;
  bool seeded_ = false;
};

struct GenOptions {
  int maxOps = 10;
  int maxDim = 6;
};

/// A random valid graph (see the file comment).
ir::Graph randomGraph(Entropy& e, const GenOptions& opts = {});

/// One pipeline run: pipeline name, profile (INT quantizes the float graph first), target.
struct RunCase {
  std::string pipeline;
  passes::Profile profile = passes::Profile::FP;
  passes::Target target = passes::Target::Generic;
  std::string describe() const;
  /// The CLI command that reruns the case on `path`.
  std::string command(const std::string& path) const;
};

/// Every registered pipeline under FP; the `tosa` pipelines also under INT for u55 and u85.
std::vector<RunCase> allRunCases();

struct CaseResult {
  enum class Kind { Lowered, Refused, SourceDoesNotRun, Finding };
  Kind kind = Kind::Lowered;
  std::string category;  ///< findings: "threw", "pass-error", "verifier", "semantic", "preparation", "session"
  std::string message;
};

/// Lowers `g` through `c` with the structural verifier and verify-each (seeded inputs). FP:
/// outputs within verify's float tolerance after every pass. INT: within 2 quantisation steps
/// of the quantized source, or else no further from the float model than the quantized source
/// is (x1.25, the real-model tests' rule): integer arithmetic on an ill-conditioned graph may
/// move an output many steps without being wrong.
CaseResult runCase(const ir::Graph& g, const RunCase& c, uint64_t seed = 1);

/// The smallest graph found that keeps `stillFails` true: `g` with its outputs cut to one value
/// (each call's in turn, dead nodes removed), repeated while it shrinks.
ir::Graph minimise(const ir::Graph& g, const std::function<bool(const ir::Graph&)>& stillFails);

}  // namespace ls::fuzz
