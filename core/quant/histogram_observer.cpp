// HistogramObserver (histogram_observer.h): PyTorch's algorithm, float32 where torch computes
// in float32, so the same observations give the same scale and zero point.
#include "core/quant/histogram_observer.h"

#include <algorithm>
#include <cmath>

namespace ls::quant {

namespace {

/// torch's floor division of floats (div_floor_floating): fmod-based, not floor(a / b).
float divFloor(float a, float b) {
  if (b == 0) return a / b;
  const float mod = std::fmod(a, b);
  float div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0)) div -= 1.0f;
  if (div == 0) return std::copysign(0.0f, a / b);
  float fl = std::floor(div);
  if (div - fl > 0.5f) fl += 1.0f;
  return fl;
}

/// torch.linspace(start, end, steps) in float32, element i (the scalar formula: from the start
/// for the first half, from the end for the second).
float linspaceAt(float start, float end, int64_t steps, int64_t i) {
  const float step = (end - start) / float(steps - 1);
  return i < steps / 2 ? start + step * float(i) : end - step * float(steps - i - 1);
}

}  // namespace

std::vector<float> HistogramObserver::histc(const float* x, int64_t n, float lo, float hi) const {
  std::vector<float> h(size_t(bins_), 0.0f);
  double left = lo, right = hi;
  if (left == right) {
    // torch.histc: equal bounds take the data's extrema, and equal extrema widen by one.
    float mn = std::numeric_limits<float>::infinity(), mx = -mn;
    for (int64_t i = 0; i < n; ++i) mn = std::min(mn, x[i]), mx = std::max(mx, x[i]);
    if (n > 0) left = mn, right = mx;
    if (left == right) left -= 1, right += 1;
  }
  const float l = float(left), r = float(right);
  for (int64_t i = 0; i < n; ++i) {
    const float e = x[i];
    if (!(e >= l && e <= r)) continue;
    int64_t pos = int64_t((e - l) * float(bins_) / (r - l));
    if (pos == bins_) pos -= 1;
    h[size_t(pos)] += 1.0f;
  }
  return h;
}

void HistogramObserver::observe(const float* data, int64_t n) {
  // Infinities are ignored (torch), NaN too (torch's range would become NaN).
  std::vector<float> kept;
  const float* x = data;
  float xmin = std::numeric_limits<float>::infinity(), xmax = -xmin;
  bool allFinite = true;
  for (int64_t i = 0; i < n; ++i) allFinite = allFinite && std::isfinite(data[i]);
  if (!allFinite) {
    for (int64_t i = 0; i < n; ++i)
      if (std::isfinite(data[i])) kept.push_back(data[i]);
    x = kept.data();
    n = int64_t(kept.size());
  }
  if (n == 0) return;
  for (int64_t i = 0; i < n; ++i) xmin = std::min(xmin, x[i]), xmax = std::max(xmax, x[i]);
  if (!initialized()) {
    min_ = xmin, max_ = xmax;
    hist_ = histc(x, n, xmin, xmax);
    return;
  }
  const float newMin = std::min(min_, xmin), newMax = std::max(max_, xmax);
  std::vector<float> update = histc(x, n, newMin, newMax);
  if (newMin == min_ && newMax == max_) {
    for (int b = 0; b < bins_; ++b) hist_[size_t(b)] += update[size_t(b)];
    return;
  }
  if (min_ == max_) {
    // One value observed so far: its count goes to that value's bin of the new range.
    float total = 0;
    for (float c : hist_) total += c;
    const std::vector<float> one = histc(&min_, 1, newMin, newMax);
    for (int b = 0; b < bins_; ++b) update[size_t(b)] += one[size_t(b)] * total;
  } else {
    // Each old bin split into upsampleRate equal parts; a part's count goes to the new bin its
    // mid-point falls in (torch's _upscale_histogram: linspace mid-points, bucketize, bincount).
    const int64_t fine = int64_t(bins_) * upsampleRate_;
    const float part = (max_ - min_) / float(fine), half = 0.5f * part;
    std::vector<float> edges(size_t(bins_) + 1);
    for (int64_t i = 0; i <= bins_; ++i) edges[size_t(i)] = linspaceAt(newMin, newMax, bins_ + 1, i);
    std::vector<float> moved(size_t(bins_), 0.0f);
    for (int64_t i = 0; i < fine; ++i) {
      const float mid = linspaceAt(min_, max_, fine + 1, i) + half;
      int64_t b = int64_t(std::upper_bound(edges.begin(), edges.end(), mid) - edges.begin()) - 1;
      b = std::clamp<int64_t>(b, 0, bins_ - 1);
      moved[size_t(b)] += hist_[size_t(i / upsampleRate_)] / float(upsampleRate_);
    }
    for (int b = 0; b < bins_; ++b) update[size_t(b)] += moved[size_t(b)];
  }
  hist_ = std::move(update);
  min_ = newMin, max_ = newMax;
}

double HistogramObserver::quantizationError(int startBin, int endBin) const {
  const double binWidth = (double(max_) - double(min_)) / bins_;
  const double dstBinWidth = binWidth * (endBin - startBin + 1) / dstBins_;
  if (dstBinWidth == 0.0) return 0.0;
  const float bw = float(binWidth), dbw = float(dstBinWidth), dbwHalf = float(dstBinWidth / 2);
  const float lastDst = float(dstBins_ - 1);
  // The norm of a whole destination bin: density * ((w/2)^3 - (-w/2)^3) / 3, in float32.
  const float a = float(-dstBinWidth / 2), b = float(dstBinWidth / 2);
  const float wholeBin = (b * b * b - a * a * a) / 3.0f;
  double sum = 0;
  for (int i = 0; i < bins_; ++i) {
    const float begin = float(int64_t(i) - startBin) * bw;
    const float end = begin + bw;
    const float dstOfBegin = std::clamp(divFloor(begin, dbw), 0.0f, lastDst);
    const float dstOfBeginCenter = (dstOfBegin + 0.5f) * dbw;
    const float dstOfEnd = std::clamp(divFloor(end, dbw), 0.0f, lastDst);
    const float density = hist_[size_t(i)] / bw;
    const float db1 = begin - dstOfBeginCenter, de1 = 1.0f * dbwHalf;
    float norm = density * ((de1 * de1 * de1 - db1 * db1 * db1) / 3.0f);
    norm += (dstOfEnd - dstOfBegin - 1.0f) * (density * wholeBin);
    const float dstOfEndCenter = dstOfEnd * dbw + dbwHalf;
    const float db3 = a, de3 = end - dstOfEndCenter;
    norm += density * ((de3 * de3 * de3 - db3 * db3 * db3) / 3.0f);
    sum += double(norm);
  }
  return double(float(sum));
}

std::pair<float, float> HistogramObserver::searchedRange() const {
  double totalD = 0;
  for (float c : hist_) totalD += c;
  const float total = float(totalD);
  std::vector<float> cSum(hist_.size());
  float run = 0;
  for (size_t i = 0; i < hist_.size(); ++i) cSum[i] = run += hist_[i];
  const double stepsize = 1e-5;
  double alpha = 0.0, beta = 1.0;
  int startBin = 0, endBin = bins_ - 1;
  double normMin = std::numeric_limits<double>::infinity();
  while (alpha < beta) {
    const double nextAlpha = alpha + stepsize, nextBeta = beta - stepsize;
    // torch compares a float32 cumulative sum with a Python float: in float32.
    const float lowBound = float(nextAlpha * double(total)), highBound = float(nextBeta * double(total));
    int l = startBin, r = endBin;
    while (l < endBin && cSum[size_t(l)] < lowBound) ++l;
    while (r > startBin && cSum[size_t(r)] > highBound) --r;
    int nextStart = startBin, nextEnd = endBin;
    if ((l - startBin) > (endBin - r)) {
      nextStart = l;
      alpha = nextAlpha;
    } else {
      nextEnd = r;
      beta = nextBeta;
    }
    if (nextStart == startBin && nextEnd == endBin) continue;
    const double norm = quantizationError(nextStart, nextEnd);
    if (norm > normMin) break;
    normMin = norm;
    startBin = nextStart;
    endBin = nextEnd;
  }
  const float binWidth = (max_ - min_) / float(bins_);
  return {min_ + binWidth * float(startBin), min_ + binWidth * float(endBin + 1)};
}

HistogramObserver::QParams affineQParams(float mn, float mx, int64_t qmin, int64_t qmax, float eps) {
  if (!(mn <= mx)) return {1.0, 0};
  const float minNeg = std::min(mn, 0.0f), maxPos = std::max(mx, 0.0f);
  float scale = (maxPos - minNeg) / float(qmax - qmin);
  scale = std::max(scale, eps);
  int64_t zp = qmin - int64_t(std::nearbyint(minNeg / scale));
  return {double(scale), std::clamp(zp, qmin, qmax)};
}

HistogramObserver::QParams HistogramObserver::qparams(int64_t qmin, int64_t qmax, float eps) const {
  if (!initialized()) return {1.0, 0};
  const auto [lo, hi] = searchedRange();
  return affineQParams(lo, hi, qmin, qmax, eps);
}

}  // namespace ls::quant
