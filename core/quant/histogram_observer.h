// The activation observer of upstream's Arm quantizer (get_symmetric_quantization_config,
// static PTQ: torch.ao.quantization.HistogramObserver, int8, per tensor affine), written from
// PyTorch's algorithm, float32 where torch computes in float32:
//  - observe(x): infinities are dropped (torch warns and ignores them; NaN is dropped here too,
//    where torch's min/max would become NaN). The first tensor sets [min, max] and a histogram
//    of `bins` bins over it (torch.histc); a later one widens [min, max] to cover both, makes
//    its own histogram over the widened range and adds the old histogram mapped into it: each
//    old bin split into `upsampleRate` equal parts whose mid-points fall into the new bins
//    (torch >= 2.2's _upscale_histogram; torch 1.13 interpolated a 128-times upsampled
//    cumulative histogram instead, which gives other counts after the first tensor).
//  - qparams(): the L2 search (_non_linear_param_search, after caffe2's norm minimisation)
//    narrows [min, max] to the bins that minimise the quantisation error of the histogram
//    into 2^8 levels, then scale and zero point as MinMaxObserver computes them from the
//    narrowed range.
// Observing the same tensors in the same order gives torch's scale and zero point; the error
// sum is accumulated in double (torch sums float32 in its own order), which can only matter
// when two candidate ranges' errors tie to the last bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace ls::quant {

class HistogramObserver {
 public:
  explicit HistogramObserver(int bins = 2048, int upsampleRate = 16, int dstBins = 256)
      : bins_(bins), upsampleRate_(upsampleRate), dstBins_(dstBins), hist_(std::size_t(bins), 0.0f) {}

  /// Observes n float32 values.
  void observe(const float* x, int64_t n);
  bool initialized() const { return min_ <= max_; }
  float min() const { return min_; }
  float max() const { return max_; }
  const std::vector<float>& histogram() const { return hist_; }

  /// The range the L2 search keeps ([min, max] narrowed to whole bins).
  std::pair<float, float> searchedRange() const;

  struct QParams {
    double scale = 1.0;
    int64_t zeroPoint = 0;
  };
  /// Per-tensor affine qparams for [qmin, qmax] (at least eps); (1, 0) before any observation,
  /// as torch returns.
  QParams qparams(int64_t qmin, int64_t qmax, float eps) const;

 private:
  /// torch.histc(x, bins, lo, hi) in float32 (values outside [lo, hi] skipped).
  std::vector<float> histc(const float* x, int64_t n, float lo, float hi) const;
  double quantizationError(int startBin, int endBin) const;

  int bins_, upsampleRate_, dstBins_;
  std::vector<float> hist_;
  float min_ = std::numeric_limits<float>::infinity(), max_ = -std::numeric_limits<float>::infinity();
};

/// MinMaxObserver's per-tensor affine qparams of [mn, mx] in float32: scale = (max(mx, 0) -
/// min(mn, 0)) / (qmax - qmin), at least eps; zero point = qmin - round(min(mn, 0) / scale),
/// clamped.
HistogramObserver::QParams affineQParams(float mn, float mx, int64_t qmin, int64_t qmax, float eps);

}  // namespace ls::quant
