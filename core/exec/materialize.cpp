// Lazy constants (see materialize.h).
#include "core/exec/materialize.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>

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

MaterializeCache::MaterializeCache() : capacity_(size_t(1) << 30) {
  if (const char* mb = std::getenv("LS_MATERIALIZE_CACHE_MB")) capacity_ = size_t(std::strtoull(mb, nullptr, 10)) << 20;
}

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

Result<Tensor> materialize(const ir::Constant& c) {
  Tensor t = constantDataView(c);
  if (t.defined()) return t;
  const uint64_t key = c.contentHash != 0 ? c.contentHash : ir::constantContentHash(c);
  MaterializeCache& cache = MaterializeCache::instance();
  t = cache.find(key, c.dtype, c.shape);
  if (t.defined()) return t;
  if (c.recipe && !c.hasData()) {
    const auto* r = dynamic_cast<const TensorRecipe*>(c.recipe.get());
    if (!r) return Status::error(fmt::format("constant '{}': recipe '{}' cannot be evaluated", c.name, c.recipe->op()));
    std::vector<Tensor> ins;
    ins.reserve(r->inputs().size());
    for (const ir::Constant& in : r->inputs()) {
      auto v = materialize(in);
      if (!v) return v.status().withContext(fmt::format("constant '{}' ({}): ", c.name, r->describe()));
      ins.push_back(std::move(*v));
    }
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
  cache.put(key, t);
  return t;
}

// ---------------------------------------------------------------- permute

Tensor permuteTensor(const Tensor& t, const std::vector<int64_t>& perm) {
  ir::Shape os = ir::Shape::ofRank(int(perm.size()), 1);
  for (size_t i = 0; i < perm.size(); ++i) os[int(i)] = t.dim(int(perm[i]));
  Tensor o(t.dtype(), os);
  std::vector<int64_t> in = contiguousStrides(t.shape()), src(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) src[i] = in[size_t(perm[i])];
  std::vector<int64_t> dst = contiguousStrides(o.shape());
  copyStrided(t.elementSize(), o.shape(), t.bytes(), 0, src.data(), o.bytes(), 0, dst.data());
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

}  // namespace ls::exec
