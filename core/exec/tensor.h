// Tensor: a dense, contiguous (row-major, logical dim order) tensor with shared storage, the
// value type of the reference executor.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/ir/dtype.h"
#include "core/ir/tensor_meta.h"

namespace ls::exec {

/// IEEE half / bfloat16 conversions (round to nearest even), used for f16/bf16 storage.
float halfToFloat(uint16_t h);
uint16_t floatToHalf(float f);
float bfloat16ToFloat(uint16_t b);
uint16_t floatToBfloat16(float f);

/// A dense tensor: dtype, shape and contiguous row-major storage in logical dim order (the
/// dim order of ir::TensorMeta describes a memory layout, not values, so the executor ignores
/// it). Copies are cheap and share storage.
///
/// Mutation rule: storage is shared between copies, so write only into a tensor you created
/// (Tensor(dtype, shape) or a factory) and have not handed out yet. Kernels allocate fresh
/// outputs and never write into their inputs. Not thread-safe for concurrent writes; any
/// number of threads may read.
class Tensor {
 public:
  /// An undefined tensor (dtype Undefined); stands for a missing/non-tensor value.
  Tensor() = default;
  /// A zero-filled tensor.
  Tensor(ir::DType dtype, const ir::Shape& shape);
  /// A tensor whose bytes are not initialised, for a producer that writes every byte (a
  /// permute, a fold): no zero-fill pass over memory about to be overwritten.
  static Tensor uninitialized(ir::DType dtype, const ir::Shape& shape);

  /// Builds a float32 tensor; `values.size()` must equal shape.numel().
  static Tensor fromFloats(const ir::Shape& shape, std::vector<float> values);
  /// Builds a tensor of any dtype from doubles (converted as by _to_copy).
  static Tensor fromDoubles(ir::DType dtype, const ir::Shape& shape, const std::vector<double>& values);
  /// Builds an integer/bool tensor from int64 values (wrapped to the dtype's width).
  static Tensor fromInts(ir::DType dtype, const ir::Shape& shape, const std::vector<int64_t>& values);
  /// A 0-d tensor holding one value.
  static Tensor scalar(ir::DType dtype, double value);
  /// Wraps existing little-endian bytes (copied). Size must equal numel * element size.
  static Tensor fromBytes(ir::DType dtype, const ir::Shape& shape, std::span<const uint8_t> bytes);
  /// Takes `bytes` as storage (no copy, no zero fill). Size must equal numel * element size.
  static Tensor fromVector(ir::DType dtype, const ir::Shape& shape, std::vector<uint8_t> bytes);
  /// A read-only view of bytes owned elsewhere (e.g. an interned constant blob): no copy; the
  /// view keeps `owner` alive. Never write into it (see the mutation rule); writable() and
  /// releaseBytes() copy it. Size must equal numel * element size.
  static Tensor view(ir::DType dtype, const ir::Shape& shape, std::span<const uint8_t> bytes,
                     std::shared_ptr<const void> owner);

  bool defined() const { return dtype_ != ir::DType::Undefined; }
  ir::DType dtype() const { return dtype_; }
  const ir::Shape& shape() const { return shape_; }
  int rank() const { return shape_.rank(); }
  int64_t dim(int i) const { return shape_[i]; }
  int64_t numel() const { return shape_.numel(); }
  int elementSize() const { return ir::dtypeSize(dtype_); }
  size_t nbytes() const { return size_t(numel()) * size_t(elementSize()); }
  /// dtype + shape with identity dim order.
  ir::TensorMeta meta() const { return ir::TensorMeta(dtype_, shape_); }

  /// Typed element pointers. T must have the dtype's element size (not checked for speed;
  /// use `is<T>()` in debug code).
  template <typename T>
  T* data() {
    return reinterpret_cast<T*>(data_);
  }
  template <typename T>
  const T* data() const {
    return reinterpret_cast<const T*>(data_);
  }
  uint8_t* bytes() { return data_; }
  const uint8_t* bytes() const { return data_; }
  /// True when more than one Tensor shares this storage.
  bool sharesStorage() const { return owner_ && owner_.use_count() > 1; }
  /// True for a view() of bytes owned elsewhere.
  bool isView() const { return view_; }

  /// Element i (flat, row-major) converted to double / int64 (floats truncate toward zero).
  double getDouble(int64_t i) const;
  int64_t getInt(int64_t i) const;
  /// Stores a value at flat index i, converting as a cast to the dtype would.
  void setDouble(int64_t i, double v);
  void setInt(int64_t i, int64_t v);

  /// All elements as float / double / int64.
  std::vector<float> toFloats() const;
  std::vector<double> toDoubles() const;
  std::vector<int64_t> toInts() const;

  /// Same values with another shape of equal numel; shares storage.
  Tensor reshaped(const ir::Shape& shape) const;
  /// A converted copy (float -> int truncates toward zero, -> bool is x != 0, as torch's
  /// _to_copy); returns *this (shared) when the dtype already matches.
  Tensor to(ir::DType dtype) const;
  /// A deep copy with its own storage.
  Tensor clone() const;
  /// This tensor when it alone owns its storage (not shared, not a view), else clone(): a
  /// tensor the caller may write into, copied only when it has to be.
  Tensor writable() &&;
  /// The storage as a vector, moved out when this tensor alone owns it (else copied); leaves
  /// this tensor undefined. For handing values to ir::ConstantStore::intern without a copy.
  std::vector<uint8_t> releaseBytes() &&;

  /// "f32[2,3] {1, 2, 3, ...}" with at most `maxElements` values.
  std::string toString(int maxElements = 16) const;

 private:
  ir::DType dtype_ = ir::DType::Undefined;
  ir::Shape shape_;
  /// Keeps the storage alive: this tensor's own allocation, or (view_) whatever owns the
  /// viewed bytes.
  std::shared_ptr<const void> owner_;
  uint8_t* data_ = nullptr;
  bool view_ = false;    ///< the bytes are owned elsewhere and read-only
  bool vector_ = false;  ///< owner_ is this tensor's own std::vector<uint8_t> (releaseBytes moves it)
};

/// Row-major strides (in elements) of a shape.
std::vector<int64_t> contiguousStrides(const ir::Shape& shape);

}  // namespace ls::exec
