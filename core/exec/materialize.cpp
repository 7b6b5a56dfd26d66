// Lazy constants (see materialize.h).
#include "core/exec/materialize.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/exec/kernel_util.h"
#include "core/exec/synth.h"

namespace ls::exec {

ir::Constant recipeConstant(std::shared_ptr<const TensorRecipe> recipe, ir::ConstantKind kind, std::string fqn) {
  ir::Constant c;
  c.kind = kind;
  c.fqn = std::move(fqn);
  c.dtype = recipe->dtype();
  c.shape = recipe->shape();
  c.contentHash = recipe->hash();
  c.recipe = std::move(recipe);
  return c;
}

// ---------------------------------------------------------------- MaterializeCache

namespace {
/// Memory this process may use: the physical memory, or the cgroup's limit when lower.
size_t usableMemory() {
  size_t bytes = size_t(::sysconf(_SC_PHYS_PAGES)) * size_t(::sysconf(_SC_PAGESIZE));
  if (std::FILE* f = std::fopen("/sys/fs/cgroup/memory.max", "r")) {
    unsigned long long limit = 0;
    if (std::fscanf(f, "%llu", &limit) == 1 && limit > 0 && limit < bytes) bytes = size_t(limit);
    std::fclose(f);
  }
  return bytes;
}
}  // namespace

size_t MaterializeCache::defaultCapacity() {
  if (const char* mb = std::getenv("LS_MATERIALIZE_CACHE_MB")) return size_t(std::strtoull(mb, nullptr, 10)) << 20;
  // A sixteenth of what the machine gives the process, between 64 MiB and 1 GiB.
  return std::clamp(usableMemory() / 16, size_t(64) << 20, size_t(1) << 30);
}

MaterializeCache::MaterializeCache() : capacity_(defaultCapacity()) {}

MaterializeCache& MaterializeCache::instance() {
  static MaterializeCache cache;
  return cache;
}

void MaterializeCache::setCapacity(size_t bytes) {
  std::lock_guard lock(mu_);
  capacity_ = bytes;
  evictLocked();
}

MaterializeCache::Stats MaterializeCache::stats() const {
  std::lock_guard lock(mu_);
  return Stats{capacity_, bytes_, map_.size(), hits_, misses_, evictions_};
}

void MaterializeCache::clear() {
  std::lock_guard lock(mu_);
  lru_.clear();
  map_.clear();
  bytes_ = 0;
  hits_ = misses_ = evictions_ = 0;
}

Tensor MaterializeCache::find(uint64_t key, ir::DType dtype, const ir::Shape& shape) {
  std::lock_guard lock(mu_);
  auto it = map_.find(key);
  if (it == map_.end() || it->second->value.dtype() != dtype || !(it->second->value.shape() == shape)) {
    ++misses_;
    return {};
  }
  ++hits_;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->value;
}

void MaterializeCache::put(uint64_t key, const Tensor& t) {
  std::lock_guard lock(mu_);
  if (t.nbytes() > capacity_) return;
  if (auto it = map_.find(key); it != map_.end()) {  // computed concurrently, or a collision: the newer stays
    bytes_ -= it->second->value.nbytes();
    lru_.erase(it->second);
    map_.erase(it);
  }
  lru_.push_front(Entry{key, t});
  map_.emplace(key, lru_.begin());
  bytes_ += t.nbytes();
  evictLocked();
}

void MaterializeCache::evictLocked() {
  while (bytes_ > capacity_ && !lru_.empty()) {
    const Entry& e = lru_.back();
    bytes_ -= e.value.nbytes();
    map_.erase(e.key);
    lru_.pop_back();
    ++evictions_;
  }
}

// ---------------------------------------------------------------- materialize

namespace {

/// The values of a recipe's inputs (materialised, not kept); errors name `c` and the recipe.
Result<std::vector<Tensor>> recipeInputs(const ir::Constant& c, const TensorRecipe& r);

/// The key of `c`'s values in MaterializeCache: its content hash (computed when not set yet).
uint64_t cacheKey(const ir::Constant& c) { return c.contentHash != 0 ? c.contentHash : ir::constantContentHash(c); }

/// The evaluable recipe of `c`, or an error naming it.
Result<const TensorRecipe*> tensorRecipe(const ir::Constant& c) {
  const auto* r = dynamic_cast<const TensorRecipe*>(c.recipe.get());
  if (!r) return Status::error(fmt::format("constant '{}': recipe '{}' cannot be evaluated", c.name, c.recipe->op()));
  return r;
}

/// materialize(); `keep`: put what is made in the cache (false for the inputs a recipe reads:
/// only the values asked for are kept, so a chain such as quantize -> permute holds one value;
/// false too for a Retain::Transient request).
Result<Tensor> materializeImpl(const ir::Constant& c, bool keep) {
  Tensor t = constantDataView(c);
  if (t.defined()) return t;
  const uint64_t key = cacheKey(c);
  MaterializeCache& cache = MaterializeCache::instance();
  t = cache.find(key, c.dtype, c.shape);
  if (t.defined()) return t;
  if (c.recipe && !c.hasData()) {
    LS_ASSIGN_OR_RETURN(r, tensorRecipe(c));
    LS_ASSIGN_OR_RETURN(ins, recipeInputs(c, *r));
    auto v = r->compute(ins);
    if (!v) return v.status().withContext(fmt::format("constant '{}' ({}): ", c.name, r->describe()));
    if (v->dtype() != c.dtype || !(v->shape() == c.shape))
      return Status::error(fmt::format("constant '{}' ({}): computed {}{} but the constant is {}{}", c.name,
                                       r->describe(), ir::dtypeName(v->dtype()), ir::toString(v->shape()),
                                       ir::dtypeName(c.dtype), ir::toString(c.shape)));
    t = std::move(*v);
  } else {
    t = synthesizeConstant(c);
  }
  if (keep) cache.put(key, t);
  return t;
}

Result<std::vector<Tensor>> recipeInputs(const ir::Constant& c, const TensorRecipe& r) {
  std::vector<Tensor> ins;
  ins.reserve(r.inputs().size());
  for (const ir::Constant& in : r.inputs()) {
    auto v = materializeImpl(in, false);
    if (!v) return v.status().withContext(fmt::format("constant '{}' ({}): ", c.name, r.describe()));
    ins.push_back(std::move(*v));
  }
  return ins;
}

}  // namespace

Result<Tensor> materialize(const ir::Constant& c, Retain retain) { return materializeImpl(c, retain == Retain::Cache); }

Status TensorRecipe::computeInto(const std::vector<Tensor>& inputs, std::span<uint8_t> out) const {
  LS_ASSIGN_OR_RETURN(t, compute(inputs));
  if (t.nbytes() != out.size())
    return Status::error(fmt::format("recipe {}: computed {} bytes for a {}-byte destination", describe(), t.nbytes(),
                                     out.size()));
  if (!out.empty()) std::memcpy(out.data(), t.bytes(), out.size());
  return Status::ok();
}

Status materializeInto(const ir::Constant& c, std::span<uint8_t> out) {
  const size_t want = size_t(c.numel()) * size_t(ir::dtypeSize(c.dtype));
  if (out.size() != want)
    return Status::error(fmt::format("constant '{}': {} bytes ({}{}) cannot fill a {}-byte destination", c.name, want,
                                     ir::dtypeName(c.dtype), ir::toString(c.shape), out.size()));
  Tensor t = constantDataView(c);
  if (!t.defined() && c.recipe && !c.hasData()) {
    t = MaterializeCache::instance().find(cacheKey(c), c.dtype, c.shape);
    if (!t.defined()) {  // the recipe's last step writes straight into `out`
      LS_ASSIGN_OR_RETURN(r, tensorRecipe(c));
      LS_ASSIGN_OR_RETURN(ins, recipeInputs(c, *r));
      return r->computeInto(ins, out).withContext(fmt::format("constant '{}' ({}): ", c.name, r->describe()));
    }
  }
  if (!t.defined()) {
    LS_ASSIGN_OR_RETURN(v, materializeImpl(c, false));
    t = std::move(v);
  }
  if (want) std::memcpy(out.data(), t.bytes(), want);
  return Status::ok();
}

// ---------------------------------------------------------------- permute

void permuteInto(const Tensor& t, const std::vector<int64_t>& perm, uint8_t* out) {
  ir::Shape os = ir::Shape::ofRank(int(perm.size()), 1);
  for (size_t i = 0; i < perm.size(); ++i) os[int(i)] = t.dim(int(perm[i]));
  std::vector<int64_t> in = contiguousStrides(t.shape()), src(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) src[i] = in[size_t(perm[i])];
  std::vector<int64_t> dst = contiguousStrides(os);
  copyStrided(t.elementSize(), os, t.bytes(), 0, src.data(), out, 0, dst.data());
}

Tensor permuteTensor(const Tensor& t, const std::vector<int64_t>& perm) {
  ir::Shape os = ir::Shape::ofRank(int(perm.size()), 1);
  for (size_t i = 0; i < perm.size(); ++i) os[int(i)] = t.dim(int(perm[i]));
  Tensor o = Tensor::uninitialized(t.dtype(), os);  // permuteInto writes every element
  permuteInto(t, perm, o.bytes());
  return o;
}

namespace {

class PermuteRecipe : public TensorRecipe {
 public:
  PermuteRecipe(const ir::Constant& in, std::vector<int64_t> perm, std::string label, std::optional<ir::Shape> view,
                ir::Shape out)
      : TensorRecipe("permute",
                     fmt::format("perm=[{}]{}", fmt::join(perm, ","),
                                 view ? fmt::format(";view={}", ir::toString(*view)) : std::string()),
                     {in}, in.dtype, std::move(out), std::move(label)),
        perm_(std::move(perm)),
        view_(std::move(view)) {}

  Result<Tensor> compute(const std::vector<Tensor>& inputs) const override {
    const Tensor& x = inputs.at(0);
    return permuteTensor(view_ ? x.reshaped(*view_) : x, perm_);
  }
  Status computeInto(const std::vector<Tensor>& inputs, std::span<uint8_t> out) const override {
    const Tensor& x = inputs.at(0);
    if (x.nbytes() != out.size())
      return Status::error(fmt::format("permute of {} bytes into a {}-byte destination", x.nbytes(), out.size()));
    permuteInto(view_ ? x.reshaped(*view_) : x, perm_, out.data());
    return Status::ok();
  }

 private:
  std::vector<int64_t> perm_;
  std::optional<ir::Shape> view_;
};

}  // namespace

std::shared_ptr<const TensorRecipe> permuteRecipe(const ir::Constant& in, std::vector<int64_t> perm, std::string label,
                                                  std::optional<ir::Shape> view) {
  const ir::Shape& s = view ? *view : in.shape;
  ir::Shape out = ir::Shape::ofRank(int(perm.size()), 1);
  for (size_t i = 0; i < perm.size(); ++i) out[int(i)] = s[int(perm[i])];
  if (label.empty()) label = fmt::format("permute [{}]", fmt::join(perm, ", "));
  return std::make_shared<PermuteRecipe>(in, std::move(perm), std::move(label), std::move(view), std::move(out));
}

// ---------------------------------------------------------------- quantize

int64_t quantizeValue(float x, float inv, int64_t zp, int64_t qmin, int64_t qmax) {
  const float v = x * inv;
  if (std::isnan(v)) return std::clamp(zp, qmin, qmax);
  const float r = std::nearbyint(v) + float(zp);  // round half to even (default rounding mode)
  return r <= float(qmin) ? qmin : r >= float(qmax) ? qmax : int64_t(r);
}

Tensor quantizePerChannel(const Tensor& w, int axis, const float* scales, int64_t qmin, int64_t qmax,
                          ir::DType storage) {
  const int64_t channels = w.dim(axis);
  int64_t inner = 1;
  for (int d = axis + 1; d < w.rank(); ++d) inner *= w.dim(d);
  Tensor q = Tensor::uninitialized(storage, w.shape());  // every element written below
  if (w.dtype() == ir::DType::Float32 && storage == ir::DType::Int8) {  // the usual weight: raw loops
    const float* d = w.data<float>();
    int8_t* out = q.data<int8_t>();
    for (int64_t i = 0; i < w.numel(); i += inner) {
      const float inv = 1.0f / scales[size_t((i / inner) % channels)];
      for (int64_t j = 0; j < inner; ++j) out[i + j] = int8_t(quantizeValue(d[i + j], inv, 0, qmin, qmax));
    }
    return q;
  }
  for (int64_t i = 0; i < w.numel(); ++i) {
    const float inv = 1.0f / scales[size_t((i / inner) % channels)];
    q.setInt(i, quantizeValue(float(w.getDouble(i)), inv, 0, qmin, qmax));
  }
  return q;
}

Tensor quantizePerTensor(const Tensor& x, double scale, int64_t zeroPoint, int64_t qmin, int64_t qmax) {
  const float inv = float(1.0 / scale);
  Tensor q = Tensor::uninitialized(ir::DType::Int8, x.shape());  // every element written below
  if (x.dtype() == ir::DType::Float32) {
    const float* d = x.data<float>();
    int8_t* out = q.data<int8_t>();
    for (int64_t i = 0; i < x.numel(); ++i) out[i] = int8_t(quantizeValue(d[i], inv, zeroPoint, qmin, qmax));
    return q;
  }
  for (int64_t i = 0; i < x.numel(); ++i) q.setInt(i, quantizeValue(float(x.getDouble(i)), inv, zeroPoint, qmin, qmax));
  return q;
}

namespace {

class QuantizePerChannelRecipe : public TensorRecipe {
 public:
  QuantizePerChannelRecipe(const ir::Constant& in, const ir::Constant& scales, int axis, int64_t qmin, int64_t qmax,
                           ir::DType storage)
      : TensorRecipe("quantize",
                     fmt::format("per_channel;axis={};qmin={};qmax={};dtype={}", axis, qmin, qmax,
                                 ir::dtypeName(storage)),
                     {in, scales}, storage, in.shape, fmt::format("quantize per channel {}", ir::dtypeName(storage))),
        axis_(axis),
        qmin_(qmin),
        qmax_(qmax) {}

  Result<Tensor> compute(const std::vector<Tensor>& inputs) const override {
    const Tensor& x = inputs.at(0);
    const Tensor& s = inputs.at(1);
    if (s.dtype() != ir::DType::Float32 || axis_ < 0 || axis_ >= x.rank() || s.numel() != x.dim(axis_))
      return Status::error(fmt::format("quantize per channel: {} scales of {} for axis {} of {}", s.numel(),
                                       ir::dtypeName(s.dtype()), axis_, ir::toString(x.shape())));
    return quantizePerChannel(x, axis_, s.data<float>(), qmin_, qmax_, dtype());
  }

  std::string describe() const override {  // "<weight> -> quantize per channel int8" (scales omitted)
    return fmt::format("{} -> {}", describeInput(inputs().at(0)), label());
  }

 private:
  int axis_;
  int64_t qmin_, qmax_;
};

class QuantizePerTensorRecipe : public TensorRecipe {
 public:
  QuantizePerTensorRecipe(const ir::Constant& in, double scale, int64_t zp, int64_t qmin, int64_t qmax)
      : TensorRecipe("quantize",
                     // the scale in hexadecimal: exact, so equal recipes are equal values
                     fmt::format("per_tensor;scale={:a};zp={};qmin={};qmax={};dtype=int8", scale, zp, qmin, qmax),
                     {in}, ir::DType::Int8, in.shape, "quantize per tensor int8"),
        scale_(scale),
        zp_(zp),
        qmin_(qmin),
        qmax_(qmax) {}

  Result<Tensor> compute(const std::vector<Tensor>& inputs) const override {
    return quantizePerTensor(inputs.at(0), scale_, zp_, qmin_, qmax_);
  }

 private:
  double scale_;
  int64_t zp_, qmin_, qmax_;
};

}  // namespace

std::shared_ptr<const TensorRecipe> quantizePerChannelRecipe(const ir::Constant& in, const ir::Constant& scales,
                                                             int axis, int64_t qmin, int64_t qmax, ir::DType storage) {
  return std::make_shared<QuantizePerChannelRecipe>(in, scales, axis, qmin, qmax, storage);
}

std::shared_ptr<const TensorRecipe> quantizePerTensorRecipe(const ir::Constant& in, double scale, int64_t zeroPoint,
                                                            int64_t qmin, int64_t qmax) {
  return std::make_shared<QuantizePerTensorRecipe>(in, scale, zeroPoint, qmin, qmax);
}

}  // namespace ls::exec
