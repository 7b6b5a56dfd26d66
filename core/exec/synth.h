// Deterministic synthetic values for constants without data and for graph inputs.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "core/exec/tensor.h"
#include "core/ir/graph.h"

namespace ls::exec {

class TensorRecipe;

/// The splitmix64 output function (Steele, Lea, Flood 2014): a bijective 64-bit mix with good
/// avalanche.
inline uint64_t splitmix64Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Element i of the splitmix64 stream seeded with `seed` (what the (i+1)-th SplitMix64::next()
/// returns), computed from (seed, i) alone: counter-based, so any part of a tensor can be
/// filled first, by any thread, with the same values.
inline uint64_t splitmix64At(uint64_t seed, uint64_t i) { return splitmix64Mix(seed + (i + 1) * 0x9E3779B97F4A7C15ull); }

/// A 64-bit draw as a double uniform in [0, 1) (its top 53 bits).
inline double unitDouble(uint64_t bits) { return double(bits >> 11) * 0x1.0p-53; }

/// The draw a synthesised float makes from 64 random bits: uniform in [lo, lo + scale), a
/// multiply then an add in double (every build computes it so: core/exec/synth_fill_v4.cpp, the
/// vectorised one, is compiled without contraction).
inline double uniformDraw(uint64_t bits, double lo, double scale) { return lo + scale * unitDouble(bits); }

/// splitmix64: a small, fast, well-mixed 64-bit PRNG (Steele, Lea, Flood 2014). Same sequence
/// on every platform; next() after k calls equals splitmix64At(seed, k).
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() { return splitmix64Mix(state_ += 0x9E3779B97F4A7C15ull); }
  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return unitDouble(next()); }
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  /// Uniform integer in [lo, hi] (inclusive; tiny modulo bias is irrelevant here).
  int64_t uniformInt(int64_t lo, int64_t hi) { return lo + int64_t(next() % uint64_t(hi - lo + 1)); }

 private:
  uint64_t state_;
};

/// The role a constant's name gives it, which decides the value distribution.
enum class ConstantRole : uint8_t {
  RunningVar,   ///< "...running_var"
  RunningMean,  ///< "...running_mean"
  Weight,       ///< "...weight", rank >= 2 (conv / linear)
  NormWeight,   ///< "...weight", rank <= 1 (batch/layer/group norm scale)
  Bias,         ///< "...bias"
  Other,        ///< anything else (embeddings, cls tokens, plain constants)
  COUNT
};
std::string_view constantRoleName(ConstantRole r);
/// Role from the constant's fqn (or its name when the fqn is empty) and rank.
ConstantRole constantRole(const ir::Constant& c);

/// A read-only view (Tensor::view, no copy) of the data of a constant whose bytes match its
/// dtype and shape; an undefined tensor otherwise (shape-only, or bytes of the wrong size).
Tensor constantDataView(const ir::Constant& c);

/// Deterministic values for a constant, seeded by a hash of its name (ir::Constant::name), so
/// the same constant gets the same values in every run, process and snapshot.
///
/// Scheme (PyTorch naming conventions; numerically sane through 50+ layers of real CNNs and
/// ViTs, so outputs neither blow up nor vanish):
///   - running_var:            uniform [0.5, 1.5]   (positive, around 1)
///   - running_mean:           uniform [-0.1, 0.1]
///   - weight, rank >= 2:      uniform (-b, b), b = sqrt(6 / fan_in), fan_in = numel / shape[0]
///                             (He / kaiming_uniform_ for ReLU). torch's default bound
///                             1 / sqrt(fan_in) shrinks the activations' second moment ~3x per
///                             layer: eval-mode batch norm with made-up running stats does not
///                             renormalise, so after 50 layers MobileNetV2's logits changed by
///                             ~1e-7 relative when the whole input was replaced (outputs driven
///                             by biases alone, blind to errors in early layers). With He
///                             bounds the input's influence stays O(1) in every real graph
///                             (measured: 0.5% for EfficientNet-B0 up to ~100% for ResNet-18).
///   - weight, rank <= 1:      uniform [0.8, 1.2]   (norm-layer scale)
///   - bias:                   uniform [-0.1, 0.1]
///   - anything else:          uniform [-1, 1)
///   - bool:                   0 or 1
///   - int8 / int16:           integers in [-8, 8]; uint8 / uint16: [0, 16]
///   - int32 / int64:          integers in [0, 3] (non-negative: such constants are usually
///                             indices, and small values stay in range)
/// Floats are drawn in double and rounded to the dtype. Constants with data are not
/// synthesised (the executor uses their bytes).
///
/// Element i is a function of (name seed, i) only (splitmix64At): large constants are filled
/// by up to `threads` threads (0: one per hardware thread) with the same values as one thread.
/// Thread-safe.
Tensor synthesizeConstant(const ir::Constant& c, int threads = 0);

/// Values for a graph input: floats uniform [-1, 1), bool 0/1, integers in [0, 3]; seeded
/// by `seed` only (the caller derives one seed per input, e.g. with inputSeed()). A quantized
/// input (integer dtype with per-tensor qparams, e.g. the int8 inputs of an INT TOSA graph
/// whose boundary quantize was moved out) gets the float values a float input would get,
/// quantized with its qparams: the same seed gives the quantized graph exactly what the
/// float graph's own quantize would compute.
Tensor synthesizeInput(const ir::TensorMeta& meta, uint64_t seed);

/// x quantized per tensor as quantized_decomposed.quantize_per_tensor computes it
/// (round half to even of x * float(1/scale), + zero point, clamped to [qmin, qmax]), stored
/// as q.storage. Uses q.scales[0] / q.zeroPoints[0].
Tensor quantizePerTensor(const Tensor& x, const ir::QuantParams& q);

/// True for a value the graph takes or returns quantized: integer storage with per-tensor
/// qparams recorded in its metadata.
bool isQuantizedIO(const ir::TensorMeta& m);

/// Inputs for `g` from inputs made for a float version of it: a float tensor given for a
/// quantized input (isQuantizedIO) is quantized with that input's qparams; the rest as given.
std::vector<Tensor> adaptInputs(const ir::Graph& g, std::vector<Tensor> inputs);

/// x dequantized per tensor, as float32: (q - zero point) * scale exact in double and rounded
/// once, what the float64 INT reference's dequantize gives its graph's float32 output (for a
/// scale that is a float32, also what quantized_decomposed.dequantize_per_tensor computes in
/// float32).
Tensor dequantizePerTensor(const Tensor& q, const ir::QuantParams& p);

/// Outputs of `g` comparable with outputs `like` of a float version of it: an integer output
/// of a quantized output slot (isQuantizedIO) whose counterpart in `like` is a float is
/// dequantized with that slot's qparams; the rest as given.
std::vector<Tensor> adaptOutputs(const ir::Graph& g, std::vector<Tensor> outputs, const std::vector<Tensor>& like);

/// Seed of input #index for a run seeded with `seed`.
uint64_t inputSeed(uint64_t seed, size_t index);

/// Synthesised values for every placeholder of `g`, in placeholder order
/// (synthesizeInput(meta, inputSeed(seed, i))).
std::vector<Tensor> synthesizeInputs(const ir::Graph& g, uint64_t seed);

/// Gives every shape-only constant of `g` (and of its subgraphs) the synthesised values as
/// real data, interned in the graph's constant store, so passes that transform weights (e.g.
/// permute them) see the same values the executor would have made up. Content hashes change
/// to the data hash. Call once, before any pass, on the source graph. The constants are
/// synthesised and interned on up to `threads` threads (0: one per hardware thread). A derived
/// constant (recipe) over any shape-only source gets its materialised values as data (its
/// recipe stays, for display); one over sources with data is left lazy. Throws
/// std::runtime_error when a recipe cannot be evaluated.
void materializeConstants(ir::Graph& g, int threads = 0);

/// A source recipe fixing the values synthesizeConstant(c) makes (seeded by c's name now, so a
/// later rename does not change them), made on demand instead of held. valuesKnown() like bytes;
/// describes itself as c does (its fqn, else its name); not derived() (a file records its bytes
/// only). Its content hash is the recipe's ("synthesize", c's name and fqn, dtype, shape).
std::shared_ptr<const TensorRecipe> synthesizedRecipe(const ir::Constant& c);

/// materializeConstants() without making bytes: every shape-only constant of `g` (and of its
/// subgraphs) becomes a synthesizedRecipe() constant (same name, fqn and kind), whose values
/// readers materialise when they need them (exec::materialize; the executor, the quantizer and
/// the file writers read such values once each, transiently). Passes see the same values as
/// after materializeConstants() and treat them as known. A derived constant over a shape-only
/// source gets its values as data, as materializeConstants() gives it. For pipelines that
/// fix synthesised weights of a large model without holding them (the quantizer).
void freezeConstants(ir::Graph& g, int threads = 0);

}  // namespace ls::exec
