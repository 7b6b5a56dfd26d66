// TensorMeta: dtype, shape, dim order and optional quantisation of one value.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/ir/dtype.h"

namespace ls::ir {

/// Maximum tensor rank the engine supports. Larger ranks are rejected at import with a
/// clear error (no real model in our scope goes beyond 6).
inline constexpr int kMaxRank = 8;

/// Inline fixed-capacity shape: no heap allocation, cheap to copy and compare.
class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) { assign(dims.begin(), dims.size()); }
  explicit Shape(std::span<const int64_t> dims) { assign(dims.data(), dims.size()); }
  static Shape ofRank(int rank, int64_t fill = 1) {
    Shape s;
    s.rank_ = uint8_t(rank);
    for (int i = 0; i < rank; ++i) s.d_[i] = fill;
    return s;
  }

  int rank() const { return rank_; }
  bool empty() const { return rank_ == 0; }
  int64_t operator[](int i) const { return d_[i]; }
  int64_t& operator[](int i) { return d_[i]; }
  const int64_t* begin() const { return d_.data(); }
  const int64_t* end() const { return d_.data() + rank_; }
  int64_t* begin() { return d_.data(); }
  int64_t* end() { return d_.data() + rank_; }
  std::span<const int64_t> dims() const { return {d_.data(), size_t(rank_)}; }
  std::vector<int64_t> toVector() const { return {begin(), end()}; }

  /// Appends a dim; the caller guarantees rank() < kMaxRank.
  void push(int64_t d) { d_[rank_++] = d; }
  void insert(int pos, int64_t d) {
    for (int i = rank_; i > pos; --i) d_[i] = d_[i - 1];
    d_[pos] = d;
    ++rank_;
  }
  void erase(int pos) {
    for (int i = pos; i + 1 < rank_; ++i) d_[i] = d_[i + 1];
    --rank_;
  }
  void resize(int r) { rank_ = uint8_t(r); }
  /// Product of the dims; saturates at INT64_MAX instead of overflowing (shapes read from files
  /// or built from their shape constants can be anything; a saturated count fails every size check).
  int64_t numel() const {
    int64_t n = 1;
    for (int i = 0; i < rank_; ++i)
      if (__builtin_mul_overflow(n, d_[i], &n)) return std::numeric_limits<int64_t>::max();
    return n;
  }
  bool operator==(const Shape& o) const {
    return rank_ == o.rank_ && std::equal(begin(), end(), o.begin());
  }
  bool operator!=(const Shape& o) const { return !(*this == o); }

 private:
  void assign(const int64_t* p, size_t n) {
    rank_ = uint8_t(std::min<size_t>(n, kMaxRank));
    std::copy(p, p + rank_, d_.begin());
  }
  uint8_t rank_ = 0;
  std::array<int64_t, kMaxRank> d_{};
};

/// Dim order (ExecuTorch's dim_order): the permutation of dims from outermost to innermost
/// in memory. Identity is contiguous (NCHW for rank 4); {0,2,3,1} is channels-last (NHWC).
class DimOrder {
 public:
  DimOrder() = default;
  static DimOrder identity(int rank) {
    DimOrder o;
    o.rank_ = uint8_t(rank);
    for (int i = 0; i < rank; ++i) o.p_[i] = uint8_t(i);
    return o;
  }
  static DimOrder of(std::initializer_list<int> perm) {
    DimOrder o;
    for (int v : perm) o.p_[o.rank_++] = uint8_t(v);
    return o;
  }
  int rank() const { return rank_; }
  int operator[](int i) const { return p_[i]; }
  void set(int i, int v) { p_[i] = uint8_t(v); }
  void resize(int r) { rank_ = uint8_t(r); }
  bool isIdentity() const {
    for (int i = 0; i < rank_; ++i)
      if (p_[i] != i) return false;
    return true;
  }
  /// True when this is a permutation of 0..rank-1.
  bool isValid() const {
    uint32_t seen = 0;
    for (int i = 0; i < rank_; ++i) {
      if (p_[i] >= rank_ || (seen >> p_[i]) & 1u) return false;
      seen |= 1u << p_[i];
    }
    return true;
  }
  bool operator==(const DimOrder& o) const {
    return rank_ == o.rank_ && std::equal(p_.begin(), p_.begin() + rank_, o.p_.begin());
  }
  bool operator!=(const DimOrder& o) const { return !(*this == o); }

 private:
  uint8_t rank_ = 0;
  std::array<uint8_t, kMaxRank> p_{};
};

enum class QScheme : uint8_t { PerTensor, PerChannel, COUNT };

/// Quantisation parameters: per tensor (one scale/zero point) or per channel along `axis`.
struct QuantParams {
  QScheme scheme = QScheme::PerTensor;
  DType storage = DType::Int8;  ///< integer storage type (int8, uint8, int16, int32)
  int32_t axis = 0;             ///< channel axis for PerChannel
  int64_t qmin = -128;
  int64_t qmax = 127;
  std::vector<double> scales;      ///< 1 entry per tensor, else one per channel
  std::vector<int64_t> zeroPoints;  ///< same length as scales

  bool operator==(const QuantParams& o) const {
    return scheme == o.scheme && storage == o.storage && axis == o.axis && qmin == o.qmin &&
           qmax == o.qmax && scales == o.scales && zeroPoints == o.zeroPoints;
  }
};

/// Metadata of one value: what shape inference computes and what passes rely on.
/// A default-constructed TensorMeta (dtype Undefined) stands for a non-tensor/absent output.
struct TensorMeta {
  DType dtype = DType::Undefined;
  Shape shape;
  DimOrder dimOrder;  ///< same rank as shape; identity when contiguous
  std::shared_ptr<const QuantParams> quant;  ///< null when not quantised

  TensorMeta() = default;
  TensorMeta(DType t, Shape s) : dtype(t), shape(s), dimOrder(DimOrder::identity(s.rank())) {}

  bool isTensor() const { return dtype != DType::Undefined; }
  int rank() const { return shape.rank(); }
  int64_t numel() const { return shape.numel(); }

  bool operator==(const TensorMeta& o) const {
    if (dtype != o.dtype || shape != o.shape || dimOrder != o.dimOrder) return false;
    if (quant == o.quant) return true;
    if (!quant || !o.quant) return false;
    return *quant == *o.quant;
  }
  bool operator!=(const TensorMeta& o) const { return !(*this == o); }
};

/// "f32[1,16,8,8]", with "{0,2,3,1}" appended for a non-identity dim order and
/// " q(scale,zp)" / " qc(axis=0,n=16)" for quantised values; "none" for non-tensors.
std::string toString(const TensorMeta& m);
std::string toString(const Shape& s);  // "[1,16,8,8]"

}  // namespace ls::ir
