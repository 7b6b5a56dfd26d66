// Lazy constants: recipes the executor can evaluate, and the ONE function that turns a constant
// into values (a view of its bytes, or synthesised / evaluated once and kept in a bounded cache).
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/exec/tensor.h"
#include "core/ir/graph.h"
#include "core/util/status.h"

namespace ls::exec {

/// An ir::ConstantRecipe with its evaluation: compute() gets the input constants' values (in
/// inputs() order) and returns the value (dtype and shape of the recipe). Deterministic: the
/// same inputs give the same bytes, so a value can be dropped and recomputed at any time.
class TensorRecipe : public ir::ConstantRecipe {
 public:
  using ir::ConstantRecipe::ConstantRecipe;
  virtual Result<Tensor> compute(const std::vector<Tensor>& inputs) const = 0;
  /// compute() written into `out` (exactly the recipe's byte size), for a reader that has the
  /// destination already (a file writer's buffer). The default computes and copies; a recipe
  /// whose result is one loop over its input (permute) writes into `out` directly.
  virtual Status computeInto(const std::vector<Tensor>& inputs, std::span<uint8_t> out) const;
};

/// A constant holding `recipe` (dtype, shape and content hash from it; name set when added).
ir::Constant recipeConstant(std::shared_ptr<const TensorRecipe> recipe,
                            ir::ConstantKind kind = ir::ConstantKind::Constant, std::string fqn = {});

/// The values of a constant, made once: a read-only view of its bytes (no copy, not cached), or
/// for a shape-only constant synthesizeConstant(), for a recipe its inputs materialised and
/// compute(); both kept in MaterializeCache under the content hash (the inputs a recipe reads
/// are used from the cache when there, else made and not kept: only the values asked for stay,
/// so a chain such as quantize -> permute holds one value). Never write into the result
/// (Tensor::writable() copies). Thread-safe. An error names the constant and the recipe.
/// `Retain::Transient`: values already cached are used, but nothing computed by this call is
/// kept (a reader that needs each value once, such as a file writer, then holds at most one
/// constant's values instead of filling the cache).
enum class Retain { Cache, Transient };
Result<Tensor> materialize(const ir::Constant& c, Retain retain = Retain::Cache);

/// materialize(c, Retain::Transient) written into `out`, which must hold exactly c's bytes (an
/// error otherwise): the values come from the constant's bytes or the cache by one copy, or a
/// recipe writes its result there (TensorRecipe::computeInto) without a buffer of its own.
Status materializeInto(const ir::Constant& c, std::span<uint8_t> out);

/// The bounded cache behind materialize(): least recently used values go first when the bytes
/// held exceed the capacity (a value larger than the capacity is returned but not kept).
/// Evicted values are recomputed identically on the next request. Thread-safe.
class MaterializeCache {
 public:
  static MaterializeCache& instance();
  /// Default: a sixteenth of the machine's memory (or of the cgroup's limit when lower),
  /// between 64 MiB and 1 GiB; LS_MATERIALIZE_CACHE_MB overrides it.
  static size_t defaultCapacity();
  void setCapacity(size_t bytes);
  /// One consistent reading of the cache's state and counters.
  struct Stats {
    size_t capacity = 0, bytes = 0, entries = 0;
    uint64_t hits = 0, misses = 0, evictions = 0;
  };
  Stats stats() const;
  void clear();

  /// A cached value of `key` with this dtype and shape, or an undefined tensor.
  Tensor find(uint64_t key, ir::DType dtype, const ir::Shape& shape);
  void put(uint64_t key, const Tensor& t);

 private:
  MaterializeCache();
  void evictLocked();
  struct Entry {
    uint64_t key;
    Tensor value;
  };
  mutable std::mutex mu_;
  std::list<Entry> lru_;  // most recent first
  std::unordered_map<uint64_t, std::list<Entry>::iterator> map_;
  size_t capacity_, bytes_ = 0;
  uint64_t hits_ = 0, misses_ = 0, evictions_ = 0;
};

/// Permutes a tensor: out dim i = in dim perm[i] (copyStrided, tiled for large transposes).
Tensor permuteTensor(const Tensor& t, const std::vector<int64_t>& perm);
/// permuteTensor written into `out` (t.nbytes() bytes, not overlapping t).
void permuteInto(const Tensor& t, const std::vector<int64_t>& perm, uint8_t* out);

/// Recipe "permute": `in` (first viewed as `view` when given, same numel) permuted by `perm`,
/// shown as `label` (e.g. "permute OHWI"; default "permute [p0, p1, ...]").
std::shared_ptr<const TensorRecipe> permuteRecipe(const ir::Constant& in, std::vector<int64_t> perm,
                                                  std::string label = {}, std::optional<ir::Shape> view = {});

/// The quantize kernels' arithmetic for one value (quantize_per_tensor / _per_channel):
/// clamp(round_half_even(x * inv) + zp, qmin, qmax) in float32; NaN maps to the zero point.
int64_t quantizeValue(float x, float inv, int64_t zp, int64_t qmin, int64_t qmax);

/// quantize_per_channel of `w` along `axis` into `storage`: inv = 1.0f / scales[c] (float32
/// division), zero points 0. `scales` has w.dim(axis) entries.
Tensor quantizePerChannel(const Tensor& w, int axis, const float* scales, int64_t qmin, int64_t qmax,
                          ir::DType storage);
/// quantize_per_tensor.default of `x` into int8 with the scale passed as a number
/// (inv = float(1 / scale)): the values a folded quantize of a constant produces.
Tensor quantizePerTensor(const Tensor& x, double scale, int64_t zeroPoint, int64_t qmin, int64_t qmax);

/// Recipe "quantize" per channel: `in` quantised along `axis` by the float32 per-channel
/// `scales` constant (zero points 0) into `storage` within [qmin, qmax] (quantizePerChannel):
/// the int8 weights / int32 biases convert_pt2e folds. Shown as "quantize per channel int8".
std::shared_ptr<const TensorRecipe> quantizePerChannelRecipe(const ir::Constant& in, const ir::Constant& scales,
                                                             int axis, int64_t qmin, int64_t qmax, ir::DType storage);
/// Recipe "quantize" per tensor: `in` quantised to int8 with (scale, zeroPoint) within [qmin,
/// qmax] (quantizePerTensor). Shown as "quantize per tensor int8".
std::shared_ptr<const TensorRecipe> quantizePerTensorRecipe(const ir::Constant& in, double scale, int64_t zeroPoint,
                                                            int64_t qmin, int64_t qmax);

}  // namespace ls::exec
