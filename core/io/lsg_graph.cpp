// Graph <-> flatbuffers Graph table (graph.fbs): writer with string/tensor/quant dedup and a
// loader that checks every index, enum and invariant before trusting it.
#include "core/io/lsg_graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>

#include "core/exec/materialize.h"
#include "core/exec/parallel.h"
#include "core/util/hash.h"

namespace ls::io {

// The schema enums mirror the C++ enums value for value.
static_assert(size_t(fb::DType::MAX) + 1 == size_t(ir::DType::COUNT), "graph.fbs DType out of sync");
static_assert(size_t(fb::NodeKind::MAX) + 1 == size_t(ir::NodeKind::COUNT), "graph.fbs NodeKind out of sync");
static_assert(size_t(fb::ArgKind::MAX) + 1 == size_t(ir::ArgKind::COUNT), "graph.fbs ArgKind out of sync");
static_assert(size_t(fb::EnumKind::MAX) + 1 == size_t(ir::EnumKind::COUNT), "graph.fbs EnumKind out of sync");
static_assert(size_t(fb::ConstantKind::MAX) + 1 == size_t(ir::ConstantKind::COUNT),
              "graph.fbs ConstantKind out of sync");
static_assert(size_t(fb::QScheme::MAX) + 1 == size_t(ir::QScheme::COUNT), "graph.fbs QScheme out of sync");
static_assert(std::variant_size_v<ir::ArgValue> == size_t(ir::ArgKind::COUNT), "ArgKind/ArgValue out of sync");

namespace {

using flatbuffers::Offset;
using flatbuffers::Vector;

constexpr uint8_t kSliceStart = 1, kSliceStop = 2, kSliceStep = 4;

std::string_view view(const flatbuffers::String* s) {
  return s ? std::string_view(s->c_str(), s->size()) : std::string_view();
}

// The Verifier (flatbuffers 2.0.8) checks the alignment of a vector's length only, so the
// 8-byte elements of a hostile file may be misaligned: read them with memcpy, never Get().
template <typename T>
T elementAt(const Vector<T>* v, uint32_t i) {
  T x;
  std::memcpy(&x, v->Data() + size_t(i) * sizeof(T), sizeof(T));
  return flatbuffers::EndianScalar(x);
}

template <typename T>
std::vector<T> toVector(const Vector<T>* v) {
  std::vector<T> out;
  if (!v || v->size() == 0) return out;
#if FLATBUFFERS_LITTLEENDIAN
  out.resize(v->size());
  std::memcpy(out.data(), v->Data(), v->size() * sizeof(T));
#else
  out.reserve(v->size());
  for (uint32_t i = 0; i < v->size(); ++i) out.push_back(elementAt(v, i));
#endif
  return out;
}

// Byte size of a constant (numel * dtype size); false when a dim is negative or it overflows.
bool constantByteSize(const ir::Shape& shape, ir::DType dtype, int64_t& bytes) {
  bytes = ir::dtypeSize(dtype);
  for (int d = 0; d < shape.rank(); ++d)
    if (shape[d] < 0 || __builtin_mul_overflow(bytes, shape[d], &bytes)) return false;
  return true;
}

std::string dimOrderText(const ir::DimOrder& o) {
  std::string s = "{";
  for (int i = 0; i < o.rank(); ++i) s += (i ? "," : "") + std::to_string(o[i]);
  return s + "}";
}

}  // namespace

// ------------------------------------------------------------------ shared invariants

std::string tensorMetaProblem(const ir::TensorMeta& m) {
  if (m.dtype >= ir::DType::COUNT)
    return fmt::format("dtype enum value {} out of range (expected < {})", int(m.dtype), int(ir::DType::COUNT));
  if (m.shape.rank() > ir::kMaxRank)
    return fmt::format("rank {} exceeds the maximum {}", m.shape.rank(), ir::kMaxRank);
  int64_t numel = 1;
  for (int i = 0; i < m.shape.rank(); ++i) {
    if (m.shape[i] < 0) return fmt::format("shape {}: dim {} is negative, expected sizes >= 0", ir::toString(m.shape), i);
    if (__builtin_mul_overflow(numel, m.shape[i], &numel))
      return fmt::format("shape {}: the element count overflows int64", ir::toString(m.shape));
  }
  if (m.dimOrder.rank() != 0 && m.dimOrder.rank() != m.shape.rank())
    return fmt::format("dim order {} has {} entries, expected the shape's rank {}", dimOrderText(m.dimOrder),
                       m.dimOrder.rank(), m.shape.rank());
  if (!m.dimOrder.isValid())
    return fmt::format("dim order {} is not a permutation of 0..{}", dimOrderText(m.dimOrder), m.dimOrder.rank() - 1);
  if (m.quant) {
    const ir::QuantParams& q = *m.quant;
    if (q.scheme >= ir::QScheme::COUNT)
      return fmt::format("quantisation scheme enum value {} out of range (expected < {})", int(q.scheme),
                         int(ir::QScheme::COUNT));
    if (q.storage >= ir::DType::COUNT)
      return fmt::format("quantisation storage dtype enum value {} out of range (expected < {})", int(q.storage),
                         int(ir::DType::COUNT));
    if (q.zeroPoints.size() != q.scales.size())
      return fmt::format("quantisation has {} scales but {} zero points, expected the same number", q.scales.size(),
                         q.zeroPoints.size());
    if (q.scheme == ir::QScheme::PerTensor) {
      if (q.scales.size() != 1)
        return fmt::format("per-tensor quantisation has {} scales, expected exactly 1", q.scales.size());
    } else {
      if (q.axis < 0 || q.axis >= m.shape.rank())
        return fmt::format("per-channel quantisation axis {} out of range for rank {}", q.axis, m.shape.rank());
      int64_t channels = m.shape[q.axis];
      if (q.scales.empty() || (channels >= 0 && int64_t(q.scales.size()) != channels))
        return fmt::format("per-channel quantisation has {} scales, expected {} (size of dim {})", q.scales.size(),
                           channels, q.axis);
    }
  }
  return {};
}

// ------------------------------------------------------------------ blob tables

BlobTableWriter::BlobTableWriter(flatbuffers::FlatBufferBuilder& b) : b_(b) {
  // Blob 0: the empty sentinel.
  b_.ForceVectorAlignment(0, 1, 16);
  auto data = b_.CreateVector(static_cast<const uint8_t*>(nullptr), 0);
  offsets_.push_back(fb::CreateBlob(b_, data));
}

int32_t BlobTableWriter::add(const std::shared_ptr<const ir::Blob>& blob) {
  if (!blob || blob->bytes.empty()) return 0;
  auto found = index_.find(blob.get());
  if (found != index_.end()) return found->second;
  if (full_ || bytes_ + blob->bytes.size() > kMaxBlobBytes) {
    full_ = true;
    return -1;
  }
  bytes_ += blob->bytes.size();
  auto it = index_.emplace(blob.get(), int32_t(offsets_.size())).first;
  b_.ForceVectorAlignment(blob->bytes.size(), 1, 16);
  auto data = b_.CreateVector(blob->bytes.data(), blob->bytes.size());
  offsets_.push_back(fb::CreateBlob(b_, data));
  return it->second;
}

Result<BlobTableWriter::Derived> BlobTableWriter::addDerived(const ir::Constant& c) {
  const size_t size = size_t(c.numel()) * size_t(ir::dtypeSize(c.dtype));
  auto found = derived_.find(c.contentHash);
  if (found != derived_.end() && found->second.bytes == size) return found->second.blob;
  Derived d;
  if (size == 0) {
    d.index = 0;  // the empty sentinel
    d.bytesHash = hashBytes(nullptr, 0);
  } else if (full_ || bytes_ + size > kMaxBlobBytes) {
    full_ = true;
    return d;
  } else {
    // The values are made where the file holds them: the table's bytes are reserved (aligned
    // as add() aligns them) and the recipe's last step writes there.
    b_.ForceVectorAlignment(size, 1, 16);
    uint8_t* at = nullptr;
    const flatbuffers::uoffset_t vec = b_.CreateUninitializedVector(size, 1, &at);
    LS_RETURN_IF_ERROR(exec::materializeInto(c, std::span<uint8_t>(at, size)));
    d.bytesHash = hashBytes(at, size);  // before the builder moves: `at` is valid until then
    bytes_ += size;
    d.index = int32_t(offsets_.size());
    offsets_.push_back(fb::CreateBlob(b_, Offset<Vector<uint8_t>>(vec)));
  }
  derived_[c.contentHash] = DerivedEntry{d, size};
  return d;
}

Offset<Vector<Offset<fb::Blob>>> BlobTableWriter::finish() { return b_.CreateVector(offsets_); }

BlobTableReader::BlobTableReader(const Vector<Offset<fb::Blob>>* blobs, std::shared_ptr<ir::ConstantStore> store,
                                 std::shared_ptr<const void> bytesOwner)
    : blobs_(blobs), store_(std::move(store)), bytesOwner_(std::move(bytesOwner)) {
  if (!store_) store_ = std::make_shared<ir::ConstantStore>();
  cache_.resize(size());
  // Interning hashes every blob: done here for all of them at once, over the machine's
  // threads (largest first), when there is enough to share.
  hashes_.resize(size());
  std::vector<size_t> sizes(size());
  for (size_t i = 0; i < sizes.size(); ++i) sizes[i] = byteSize(i);
  exec::forEachLargestFirst(sizes, /*parallelFrom=*/4u << 20, [&](size_t i) {
    const fb::Blob* b = blobs_->Get(uint32_t(i));
    const Vector<uint8_t>* d = b ? b->data() : nullptr;
    hashes_[i] = d ? hashBytes(d->data(), d->size()) : hashBytes(nullptr, 0);
  });
}

size_t BlobTableReader::byteSize(size_t i) const {
  const fb::Blob* b = blobs_->Get(uint32_t(i));
  return b && b->data() ? b->data()->size() : 0;
}

const std::shared_ptr<const ir::Blob>& BlobTableReader::get(size_t i) {
  std::shared_ptr<const ir::Blob>& slot = cache_[i];
  if (!slot) {
    const fb::Blob* b = blobs_->Get(uint32_t(i));
    const Vector<uint8_t>* d = b ? b->data() : nullptr;
    if (bytesOwner_ && d && d->size()) {
      slot = store_->intern(std::span<const uint8_t>(d->data(), d->size()), bytesOwner_, hashes_[i]);
    } else {
      auto bytes = std::make_shared<const std::vector<uint8_t>>(d ? d->data() : nullptr, d ? d->data() + d->size() : nullptr);
      slot = store_->intern(std::span<const uint8_t>(*bytes), bytes, hashes_[i]);
    }
  }
  return slot;
}

// ------------------------------------------------------------------ writer

namespace {

struct MetaHash {
  size_t operator()(const ir::TensorMeta* m) const {
    uint64_t h = hashBytes(m->shape.begin(), sizeof(int64_t) * size_t(m->shape.rank()), uint64_t(m->dtype) + 1);
    uint64_t d = 0;
    for (int i = 0; i < m->dimOrder.rank(); ++i) d = d * 16 + uint64_t(m->dimOrder[i]) + 1;
    h = hashCombine(h, d);
    return size_t(hashCombine(h, uint64_t(reinterpret_cast<uintptr_t>(m->quant.get()))));
  }
};
struct MetaEq {
  bool operator()(const ir::TensorMeta* a, const ir::TensorMeta* b) const {
    return a->dtype == b->dtype && a->shape == b->shape && a->dimOrder == b->dimOrder && a->quant == b->quant;
  }
};

class GraphWriter {
 public:
  GraphWriter(flatbuffers::FlatBufferBuilder& b, const ir::Graph& g, BlobTableWriter& blobs, int depth)
      : b_(b), g_(g), blobs_(blobs), depth_(depth) {}

  Result<Offset<fb::Graph>> write() {
    if (depth_ > kMaxSubgraphNesting)
      return Status::error(fmt::format("subgraphs nested deeper than {}", kMaxSubgraphNesting));
    if (g_.nextId() > kMaxGraphNodeIds)
      return Status::error(fmt::format("graph '{}': next node id {} exceeds the .lsg limit of {}", g_.modelName,
                                       g_.nextId(), kMaxGraphNodeIds));
    // Children first: flatbuffers builds bottom-up.
    std::vector<Offset<fb::Subgraph>> subgraphs;
    subgraphs.reserve(g_.subgraphs().size());
    for (const auto& [name, sg] : g_.subgraphs()) {
      if (!sg) return Status::error(fmt::format("subgraph '{}' is null", name));
      GraphWriter sub(b_, *sg, blobs_, depth_ + 1);
      auto off = sub.write();
      if (!off) return off.status().withContext(fmt::format("subgraph '{}': ", name));
      auto nameOff = b_.CreateString(name);
      subgraphs.push_back(fb::CreateSubgraph(b_, nameOff, *off));
    }

    std::vector<Offset<fb::Node>> nodes;
    nodes.reserve(g_.size());
    for (size_t i = 0; i < g_.size(); ++i) {
      auto off = writeNode(i, g_.at(i));
      if (!off) return off.status();
      nodes.push_back(*off);
    }

    std::vector<Offset<fb::Constant>> constants;
    constants.reserve(g_.constants().size());
    for (const auto& [key, c] : g_.constants()) {
      if (c.dtype >= ir::DType::COUNT || c.kind >= ir::ConstantKind::COUNT)
        return Status::error(fmt::format("constant '{}': dtype or kind enum out of range", key));
      if (c.name != key)
        return Status::error(fmt::format("constant '{}': stored under the key '{}'", c.name, key));
      int64_t byteSize = 0;
      if (!constantByteSize(c.shape, c.dtype, byteSize))
        return Status::error(fmt::format("constant '{}': shape {}: expected non-negative sizes whose byte size "
                                         "fits int64", key, ir::toString(c.shape)));
      if (c.data && uint64_t(c.data->bytes.size()) != uint64_t(byteSize))
        return Status::error(fmt::format("constant '{}': has {} bytes of data, expected {}", key,
                                         c.data->bytes.size(), byteSize));
      // A derived constant is saved with its materialised bytes (and its recipe's description),
      // under the content hash of those bytes, as the loaded constant holds them.
      int32_t data = -1;
      uint64_t contentHash = c.contentHash;
      if (c.data || !c.recipe) {
        data = c.data ? blobs_.add(c.data) : -1;
      } else {
        auto derived = blobs_.addDerived(c);
        if (!derived) return derived.status().withContext(fmt::format("constant '{}': ", key));
        data = derived->index;
        if (data >= 0) {
          ir::Constant saved = c;
          auto hashOnly = std::make_shared<ir::Blob>();
          hashOnly->hash = derived->bytesHash;
          saved.data = std::move(hashOnly);
          contentHash = ir::constantContentHash(saved);
        }
      }
      if (blobs_.full())
        return Status::error(fmt::format("constant '{}': the graph has more than {} bytes of constant data, the "
                                         ".lsg limit", key, kMaxBlobBytes));
      auto name = b_.CreateString(c.name);
      auto fqn = c.fqn.empty() ? 0 : b_.CreateSharedString(c.fqn);
      auto shape = b_.CreateVector(c.shape.begin(), size_t(c.shape.rank()));
      auto recipe = c.recipe && c.recipe->derived() ? b_.CreateString(c.recipe->describe()) : 0;
      fb::ConstantBuilder cb(b_);
      cb.add_name(name);
      if (!fqn.IsNull()) cb.add_fqn(fqn);
      cb.add_kind(fb::ConstantKind(c.kind));
      cb.add_dtype(fb::DType(c.dtype));
      cb.add_shape(shape);
      cb.add_content_hash(contentHash);
      cb.add_data(data);
      if (!recipe.IsNull()) cb.add_recipe(recipe);
      constants.push_back(cb.Finish());
    }

    auto opNames = b_.CreateVector(opNames_);
    auto tensors = b_.CreateVector(tensors_);
    auto quants = b_.CreateVector(quants_);
    auto nodesOff = b_.CreateVector(nodes);
    auto constantsOff = b_.CreateVector(constants);
    auto subgraphsOff = subgraphs.empty() ? 0 : b_.CreateVector(subgraphs);
    auto modelName = g_.modelName.empty() ? 0 : b_.CreateString(g_.modelName);
    Offset<Vector<Offset<fb::Blob>>> blobsOff = ownBlobs_ ? ownBlobs_->finish() : 0;

    fb::GraphBuilder gb(b_);
    if (!modelName.IsNull()) gb.add_model_name(modelName);
    gb.add_next_id(g_.nextId());
    gb.add_op_names(opNames);
    gb.add_tensors(tensors);
    if (!quants_.empty()) gb.add_quant_params(quants);
    gb.add_nodes(nodesOff);
    gb.add_constants(constantsOff);
    if (!blobsOff.IsNull()) gb.add_blobs(blobsOff);
    if (!subgraphsOff.IsNull()) gb.add_subgraphs(subgraphsOff);
    return gb.Finish();
  }

  void setOwnBlobs(BlobTableWriter* own) { ownBlobs_ = own; }

 private:
  int32_t opIndex(ir::OpId op) {
    if (op == ir::kNoOp) return -1;
    if (op >= opIndex_.size()) {
      opIndex_.resize(op + 1, -1);
      opNamePtr_.resize(op + 1, nullptr);
    }
    if (opIndex_[op] < 0) {
      opIndex_[op] = int32_t(opNames_.size());
      opNamePtr_[op] = &ir::opName(op);
      opNames_.push_back(b_.CreateString(*opNamePtr_[op]));
    }
    return opIndex_[op];
  }

  int32_t quantIndex(const std::shared_ptr<const ir::QuantParams>& q) {
    auto [it, inserted] = quantIndex_.emplace(q.get(), int32_t(quants_.size()));
    if (inserted) {
      auto scales = b_.CreateVector(q->scales);
      auto zps = b_.CreateVector(q->zeroPoints);
      fb::QuantParamsBuilder qb(b_);
      qb.add_scheme(fb::QScheme(q->scheme));
      qb.add_storage(fb::DType(q->storage));
      qb.add_axis(q->axis);
      qb.add_qmin(q->qmin);
      qb.add_qmax(q->qmax);
      qb.add_scales(scales);
      qb.add_zero_points(zps);
      quants_.push_back(qb.Finish());
    }
    return it->second;
  }

  Result<int32_t> tensorIndex(const ir::TensorMeta& m) {
    auto it = tensorIndex_.find(&m);
    if (it != tensorIndex_.end()) return it->second;
    std::string problem = tensorMetaProblem(m);
    if (!problem.empty()) return Status::error(std::move(problem));
    int32_t q = m.quant ? quantIndex(m.quant) : -1;
    auto shape = b_.CreateVector(m.shape.begin(), size_t(m.shape.rank()));
    Offset<Vector<uint8_t>> order = 0;
    if (m.dimOrder != ir::DimOrder::identity(m.shape.rank())) {
      uint8_t perm[ir::kMaxRank];
      for (int i = 0; i < m.dimOrder.rank(); ++i) perm[i] = uint8_t(m.dimOrder[i]);
      order = b_.CreateVector(perm, size_t(m.dimOrder.rank()));
    }
    fb::TensorMetaBuilder tb(b_);
    if (m.dtype != ir::DType::Undefined) tb.add_dtype(fb::DType(m.dtype));
    tb.add_shape(shape);
    if (!order.IsNull()) tb.add_dim_order(order);
    if (q >= 0) tb.add_quant(q);
    int32_t idx = int32_t(tensors_.size());
    tensors_.push_back(tb.Finish());
    tensorIndex_.emplace(&m, idx);
    return idx;
  }

  Offset<fb::Arg> writeArg(const ir::Arg& a) {
    Offset<flatbuffers::String> s = 0;
    Offset<Vector<int64_t>> ints = 0;
    Offset<Vector<double>> floats = 0;
    Offset<Vector<uint8_t>> bools = 0;
    Offset<Vector<const fb::ValueRef*>> refs = 0;
    switch (a.kind()) {
      case ir::ArgKind::String: s = b_.CreateSharedString(std::get<std::string>(a.v)); break;
      case ir::ArgKind::IntList: {
        const auto& l = std::get<ir::IntList>(a.v);
        if (!l.empty()) ints = b_.CreateVector(l);
        break;
      }
      case ir::ArgKind::FloatList: {
        const auto& l = std::get<ir::FloatList>(a.v);
        if (!l.empty()) floats = b_.CreateVector(l);
        break;
      }
      case ir::ArgKind::BoolList: {
        const auto& l = std::get<ir::BoolList>(a.v);
        if (!l.empty()) bools = b_.CreateVector(l);
        break;
      }
      case ir::ArgKind::RefList: {
        const auto& l = std::get<ir::RefList>(a.v);
        if (!l.empty()) {
          refScratch_.clear();
          for (const ir::ValueRef& r : l) refScratch_.emplace_back(r.node, r.output);
          refs = b_.CreateVectorOfStructs(refScratch_);
        }
        break;
      }
      default: break;
    }
    fb::ArgBuilder ab(b_);
    ab.add_kind(fb::ArgKind(a.kind()));
    switch (a.kind()) {
      case ir::ArgKind::None: break;
      case ir::ArgKind::Bool: ab.add_i(std::get<bool>(a.v) ? 1 : 0); break;
      case ir::ArgKind::Int: ab.add_i(std::get<int64_t>(a.v)); break;
      case ir::ArgKind::Float: {
        double d = std::get<double>(a.v);
        // -0.0 compares equal to the default 0.0 and would be dropped: force it in.
        bool negZero = d == 0.0 && std::signbit(d);
        if (negZero) b_.ForceDefaults(true);
        ab.add_f(d);
        if (negZero) b_.ForceDefaults(false);
        break;
      }
      case ir::ArgKind::String: ab.add_s(s); break;
      case ir::ArgKind::Enum: {
        const auto& e = std::get<ir::EnumArg>(a.v);
        ab.add_enum_kind(fb::EnumKind(e.kind));
        ab.add_i(e.value);
        break;
      }
      case ir::ArgKind::Ref: {
        const auto& r = std::get<ir::ValueRef>(a.v);
        fb::ValueRef fr(r.node, r.output);
        ab.add_ref(&fr);
        break;
      }
      case ir::ArgKind::IntList:
        if (!ints.IsNull()) ab.add_ints(ints);
        break;
      case ir::ArgKind::FloatList:
        if (!floats.IsNull()) ab.add_floats(floats);
        break;
      case ir::ArgKind::BoolList:
        if (!bools.IsNull()) ab.add_bools(bools);
        break;
      case ir::ArgKind::RefList:
        if (!refs.IsNull()) ab.add_refs(refs);
        break;
      case ir::ArgKind::Slice: {
        const auto& sl = std::get<ir::SliceArg>(a.v);
        uint8_t present = (sl.start ? kSliceStart : 0) | (sl.stop ? kSliceStop : 0) | (sl.step ? kSliceStep : 0);
        fb::Slice fs(sl.start.value_or(0), sl.stop.value_or(0), sl.step.value_or(0), present);
        ab.add_slice(&fs);
        break;
      }
      default: break;
    }
    return ab.Finish();
  }

  Result<Offset<fb::Node>> writeNode(size_t index, const ir::Node& n) {
    auto fail = [&](const std::string& what) {
      return Status::error(fmt::format("node #{} '{}': {}", index, n.name, what));
    };
    if (n.kind >= ir::NodeKind::COUNT) return fail("node kind enum out of range");
    if (n.id >= g_.nextId()) return fail(fmt::format("id {} is not below the graph's next id {}", n.id, g_.nextId()));
    int32_t op = opIndex(n.op);
    outScratch_.clear();
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      auto t = tensorIndex(n.outputs[k]);
      if (!t) return fail(fmt::format("output {}: {}", k, t.message()));
      outScratch_.push_back(*t);
    }
    auto name = b_.CreateString(n.name);
    // The target is usually the op's name (calls) or the node's name (placeholders,
    // get_attr): then it is left out.
    Offset<flatbuffers::String> target = 0;
    if (op >= 0 ? n.target != *opNamePtr_[n.op] : n.target != n.name) target = b_.CreateSharedString(n.target);
    Offset<Vector<Offset<fb::Arg>>> args = 0;
    if (!n.args.empty()) {
      argScratch_.clear();
      for (const ir::Arg& a : n.args) argScratch_.push_back(writeArg(a));
      args = b_.CreateVector(argScratch_);
    }
    Offset<Vector<Offset<fb::Kwarg>>> kwargs = 0;
    if (!n.kwargs.empty()) {
      kwScratch_.clear();
      for (const ir::Kwarg& k : n.kwargs) {
        auto key = b_.CreateSharedString(k.name);
        auto value = writeArg(k.value);
        kwScratch_.push_back(fb::CreateKwarg(b_, key, value));
      }
      kwargs = b_.CreateVector(kwScratch_);
    }
    auto outputs = outScratch_.empty() ? 0 : b_.CreateVector(outScratch_);
    auto module = n.module.empty() ? 0 : b_.CreateSharedString(n.module);
    Offset<fb::Provenance> prov = 0;
    if (!n.provenance.empty()) {
      auto by = b_.CreateSharedString(n.provenance.createdBy);
      auto from = n.provenance.derivedFrom.empty() ? 0 : b_.CreateVector(n.provenance.derivedFrom);
      prov = fb::CreateProvenance(b_, by, from);
    }
    fb::NodeBuilder nb(b_);
    nb.add_id(n.id);
    nb.add_kind(fb::NodeKind(n.kind));
    if (n.flags) nb.add_flags(n.flags);
    nb.add_op(op);
    nb.add_name(name);
    if (!target.IsNull()) nb.add_target(target);
    if (!args.IsNull()) nb.add_args(args);
    if (!kwargs.IsNull()) nb.add_kwargs(kwargs);
    if (!outputs.IsNull()) nb.add_outputs(outputs);
    if (!module.IsNull()) nb.add_module_(module);
    if (!prov.IsNull()) nb.add_provenance(prov);
    return nb.Finish();
  }

  flatbuffers::FlatBufferBuilder& b_;
  const ir::Graph& g_;
  BlobTableWriter& blobs_;
  int depth_;
  BlobTableWriter* ownBlobs_ = nullptr;
  std::vector<int32_t> opIndex_;                  // by OpId
  std::vector<const std::string*> opNamePtr_;     // by OpId
  std::vector<Offset<flatbuffers::String>> opNames_;
  std::unordered_map<const ir::TensorMeta*, int32_t, MetaHash, MetaEq> tensorIndex_;
  std::vector<Offset<fb::TensorMeta>> tensors_;
  std::unordered_map<const ir::QuantParams*, int32_t> quantIndex_;
  std::vector<Offset<fb::QuantParams>> quants_;
  std::vector<Offset<fb::Arg>> argScratch_;
  std::vector<Offset<fb::Kwarg>> kwScratch_;
  std::vector<int32_t> outScratch_;
  std::vector<fb::ValueRef> refScratch_;
};

}  // namespace

size_t serializedSizeHint(const ir::Graph& g) {
  uint64_t bytes = uint64_t(g.size()) * 160 + 1024;
  for (const auto& [name, c] : g.constants()) {
    int64_t n = 0;
    if ((c.data || c.recipe) && constantByteSize(c.shape, c.dtype, n)) bytes += uint64_t(n) + 16;
  }
  for (const auto& [name, sg] : g.subgraphs())
    if (sg) bytes += serializedSizeHint(*sg);
  return size_t(std::min<uint64_t>(bytes, kMaxBlobBytes + (uint64_t(1) << 26)));
}

Result<Offset<fb::Graph>> writeGraph(flatbuffers::FlatBufferBuilder& b, const ir::Graph& g, BlobTableWriter* blobs) {
  if (blobs) return GraphWriter(b, g, *blobs, 0).write();
  BlobTableWriter own(b);
  GraphWriter w(b, g, own, 0);
  w.setOwnBlobs(&own);
  return w.write();
}

// ------------------------------------------------------------------ reader

namespace {

// Per-id state while loading: not seen yet, the output node, or the node's output count.
constexpr uint32_t kUnseen = UINT32_MAX;
constexpr uint32_t kIsOutputNode = UINT32_MAX - 1;

class GraphReader {
 public:
  GraphReader(const std::string& source, std::string where, BlobTableReader& blobs, bool validate, int depth)
      : source_(source), where_(std::move(where)), blobs_(blobs), validate_(validate), depth_(depth) {}

  Status read(const fb::Graph* fg, ir::Graph& g) {
    if (!fg) return err("missing graph table");
    if (depth_ > kMaxSubgraphNesting)
      return err(fmt::format("subgraphs nested deeper than {}", kMaxSubgraphNesting));
    nextId_ = fg->next_id();
    if (nextId_ > kMaxGraphNodeIds)
      return err(fmt::format("next_id {} exceeds the limit of {} node ids", nextId_, kMaxGraphNodeIds));
    readOpNames(fg);
    LS_RETURN_IF_ERROR(opStatus_);
    readQuantParams(fg);
    readTensors(fg);
    LS_RETURN_IF_ERROR(readNodes(fg, g));
    LS_RETURN_IF_ERROR(readConstants(fg, g));
    LS_RETURN_IF_ERROR(readSubgraphs(fg, g));
    g.modelName.assign(view(fg->model_name()));
    g.reserveIds(nextId_);
    if (validate_) {
      Status st = g.validate();
      if (!st.isOk()) return err(st.message());
    }
    return Status::ok();
  }

 private:
  Status err(std::string_view what) const { return Status::error(fmt::format("{}: {}{}", source_, where_, what)); }
  Status nodeErr(size_t index, std::string_view name, std::string_view what) const {
    return Status::error(fmt::format("{}: {}node #{} '{}': {}", source_, where_, index, name, what));
  }

  void readOpNames(const fb::Graph* fg) {
    const auto* ops = fg->op_names();
    size_t n = ops ? ops->size() : 0;
    opIds_.resize(n);
    opNames_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      std::string_view s = view(ops->Get(uint32_t(i)));
      if (s.empty()) {
        opStatus_ = err(fmt::format("op name #{} is empty, expected an op overload name", i));
        return;
      }
      opNames_[i] = s;
      opIds_[i] = ir::kNoOp;  // interned on first use (a corrupt file interns nothing it does not use)
    }
  }

  void readQuantParams(const fb::Graph* fg) {
    const auto* qs = fg->quant_params();
    size_t n = qs ? qs->size() : 0;
    quants_.resize(n);
    quantProblems_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const fb::QuantParams* fq = qs->Get(uint32_t(i));
      auto q = std::make_shared<ir::QuantParams>();
      uint8_t scheme = uint8_t(fq->scheme()), storage = uint8_t(fq->storage());
      if (scheme >= uint8_t(ir::QScheme::COUNT)) {
        quantProblems_[i] = fmt::format("quant params #{}: scheme enum value {} out of range (expected < {})", i,
                                        scheme, int(ir::QScheme::COUNT));
        continue;
      }
      if (storage >= uint8_t(ir::DType::COUNT)) {
        quantProblems_[i] = fmt::format("quant params #{}: storage dtype enum value {} out of range (expected < {})",
                                        i, storage, int(ir::DType::COUNT));
        continue;
      }
      q->scheme = ir::QScheme(scheme);
      q->storage = ir::DType(storage);
      q->axis = fq->axis();
      q->qmin = fq->qmin();
      q->qmax = fq->qmax();
      q->scales = toVector(fq->scales());
      q->zeroPoints = toVector(fq->zero_points());
      quants_[i] = std::move(q);
    }
  }

  void readTensors(const fb::Graph* fg) {
    const auto* ts = fg->tensors();
    size_t n = ts ? ts->size() : 0;
    tensors_.resize(n);
    tensorProblems_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      std::string& problem = tensorProblems_[i];
      const fb::TensorMeta* ft = ts->Get(uint32_t(i));
      ir::TensorMeta& m = tensors_[i];
      uint8_t dtype = uint8_t(ft->dtype());
      if (dtype >= uint8_t(ir::DType::COUNT)) {
        problem = fmt::format("dtype enum value {} out of range (expected < {})", dtype, int(ir::DType::COUNT));
        continue;
      }
      m.dtype = ir::DType(dtype);
      const auto* shape = ft->shape();
      uint32_t rank = shape ? shape->size() : 0;
      if (rank > uint32_t(ir::kMaxRank)) {
        problem = fmt::format("rank {} exceeds the maximum {}", rank, ir::kMaxRank);
        continue;
      }
      for (uint32_t d = 0; d < rank; ++d) m.shape.push(elementAt(shape, d));
      if (const auto* order = ft->dim_order()) {
        if (order->size() > uint32_t(ir::kMaxRank)) {
          problem = fmt::format("dim order has {} entries, expected the shape's rank {}", order->size(), rank);
          continue;
        }
        m.dimOrder.resize(int(order->size()));
        for (uint32_t d = 0; d < order->size(); ++d) m.dimOrder.set(int(d), order->Get(d));
      } else {
        m.dimOrder = ir::DimOrder::identity(int(rank));
      }
      int32_t q = ft->quant();
      if (q != -1) {
        if (q < 0 || size_t(q) >= quants_.size()) {
          problem = fmt::format("quant params index {} out of range ({} entries)", q, quants_.size());
          continue;
        }
        if (!quantProblems_[size_t(q)].empty()) {
          problem = quantProblems_[size_t(q)];
          continue;
        }
        m.quant = quants_[size_t(q)];
      }
      problem = tensorMetaProblem(m);
    }
  }

  // Checks a reference read by the node being loaded (mirrors ir::Graph::validate()).
  bool refOk(const ir::ValueRef& r, std::string& why) const {
    uint32_t st = r.node < nextId_ ? state_[r.node] : kUnseen;
    if (st == kUnseen) {
      why = r.node == ir::kInvalidNode
                ? std::string("reads None where a value reference is expected")
                : fmt::format("reads node id {}, which is not an earlier node (dangling reference or bad order)",
                              r.node);
      return false;
    }
    if (st == kIsOutputNode) {
      why = "reads the output node";
      return false;
    }
    if (r.output > 0 && r.output >= st) {
      why = fmt::format("reads output {} of node id {}, which has {} outputs", r.output, r.node, st);
      return false;
    }
    return true;
  }

  // Fills `out` from `fa`; returns "" or what is wrong.
  std::string readArg(const fb::Arg* fa, ir::Arg& out) const {
    if (!fa) return "missing arg table";
    uint8_t kind = uint8_t(fa->kind());
    std::string why;
    switch (kind) {
      case uint8_t(ir::ArgKind::None): break;
      case uint8_t(ir::ArgKind::Bool): out.v = fa->i() != 0; break;
      case uint8_t(ir::ArgKind::Int): out.v = int64_t(fa->i()); break;
      case uint8_t(ir::ArgKind::Float): out.v = fa->f(); break;
      case uint8_t(ir::ArgKind::String): out.v.emplace<std::string>(view(fa->s())); break;
      case uint8_t(ir::ArgKind::Enum): {
        uint8_t ek = uint8_t(fa->enum_kind());
        if (ek >= uint8_t(ir::EnumKind::COUNT))
          return fmt::format("enum kind {} out of range (expected < {})", ek, int(ir::EnumKind::COUNT));
        int64_t v = fa->i();
        ir::EnumArg e{ir::EnumKind(ek), int32_t(v)};
        bool ok = v >= 0 && v <= std::numeric_limits<int32_t>::max();
        if (ok && e.kind == ir::EnumKind::DType) ok = v < int64_t(ir::DType::COUNT);
        else if (ok) ok = ir::enumToString(e).front() != '?';
        if (!ok) return fmt::format("{} enum value {} out of range", ir::enumKindName(e.kind), v);
        out.v = e;
        break;
      }
      case uint8_t(ir::ArgKind::Ref): {
        const fb::ValueRef* r = fa->ref();
        if (!r) return "ref arg without a value reference";
        ir::ValueRef vr{r->node(), r->output()};
        if (!refOk(vr, why)) return why;
        out.v = vr;
        break;
      }
      case uint8_t(ir::ArgKind::IntList): out.v = toVector(fa->ints()); break;
      case uint8_t(ir::ArgKind::FloatList): out.v = toVector(fa->floats()); break;
      case uint8_t(ir::ArgKind::BoolList): out.v = toVector(fa->bools()); break;
      case uint8_t(ir::ArgKind::RefList): {
        ir::RefList& l = out.v.emplace<ir::RefList>();
        if (const auto* refs = fa->refs()) {
          l.reserve(refs->size());
          for (uint32_t k = 0; k < refs->size(); ++k) {
            const fb::ValueRef* r = refs->Get(k);
            ir::ValueRef vr{r->node(), r->output()};
            if (!vr.isNone() && !refOk(vr, why)) return fmt::format("element {}: {}", k, why);
            l.push_back(vr);
          }
        }
        break;
      }
      case uint8_t(ir::ArgKind::Slice): {
        const fb::Slice* s = fa->slice();
        if (!s) return "slice arg without slice bounds";
        ir::SliceArg sl;
        if (s->present() & kSliceStart) sl.start = s->start();
        if (s->present() & kSliceStop) sl.stop = s->stop();
        if (s->present() & kSliceStep) sl.step = s->step();
        out.v = sl;
        break;
      }
      default: return fmt::format("arg kind enum value {} out of range (expected < {})", kind, int(ir::ArgKind::COUNT));
    }
    return {};
  }

  Status readNodes(const fb::Graph* fg, ir::Graph& g) {
    const auto* nodes = fg->nodes();
    size_t n = nodes ? nodes->size() : 0;
    if (n > nextId_)
      return err(fmt::format("{} nodes but next_id is {}, expected next_id above every node id", n, nextId_));
    state_.assign(nextId_, kUnseen);
    // Open-addressing set of node names (views into the buffer) for the uniqueness check.
    size_t slots = 16;
    while (slots < 2 * n) slots <<= 1;
    nameSlots_.assign(slots, 0);
    nameViews_.resize(n);
    bool sawOutput = false;
    for (size_t i = 0; i < n; ++i) {
      const fb::Node* fn = nodes->Get(uint32_t(i));
      std::string_view name = view(fn->name());
      auto fail = [&](std::string_view what) { return nodeErr(i, name, what); };
      uint32_t id = fn->id();
      if (id >= nextId_) return fail(fmt::format("id {} is not below next_id {}", id, nextId_));
      if (state_[id] != kUnseen) return fail(fmt::format("duplicate node id {}", id));
      uint8_t kind = uint8_t(fn->kind());
      if (kind >= uint8_t(ir::NodeKind::COUNT))
        return fail(fmt::format("node kind enum value {} out of range (expected < {})", kind,
                                int(ir::NodeKind::COUNT)));
      if (sawOutput) return fail("comes after the output node, expected the output node to be last");
      nameViews_[i] = name;
      for (size_t h = size_t(hashString(name)) & (slots - 1);; h = (h + 1) & (slots - 1)) {
        uint32_t& slot = nameSlots_[h];
        if (slot == 0) {
          slot = uint32_t(i + 1);
          break;
        }
        if (nameViews_[slot - 1] == name)
          return fail(fmt::format("duplicate node name (also node #{}), expected unique names", slot - 1));
      }
      int32_t op = fn->op();
      if (op < -1 || op >= int32_t(opIds_.size()))
        return fail(fmt::format("op name index {} out of range ({} op names)", op, opIds_.size()));
      if (kind == uint8_t(ir::NodeKind::Call) && op < 0) return fail("call_function without an op");

      auto node = std::make_shared<ir::Node>();
      node->id = id;
      node->kind = ir::NodeKind(kind);
      node->flags = fn->flags();
      node->name.assign(name);
      if (op >= 0) {
        ir::OpId& opId = opIds_[size_t(op)];
        if (opId == ir::kNoOp) opId = ir::internOp(opNames_[size_t(op)]);
        node->op = opId;
      }
      if (const auto* t = fn->target()) node->target.assign(t->c_str(), t->size());
      else if (op >= 0) node->target.assign(opNames_[size_t(op)]);
      else node->target = node->name;

      if (const auto* args = fn->args()) {
        node->args.resize(args->size());
        for (uint32_t k = 0; k < args->size(); ++k) {
          std::string why = readArg(args->Get(k), node->args[k]);
          if (!why.empty()) return fail(fmt::format("arg {}: {}", k, why));
        }
      }
      if (const auto* kwargs = fn->kwargs()) {
        node->kwargs.resize(kwargs->size());
        for (uint32_t k = 0; k < kwargs->size(); ++k) {
          const fb::Kwarg* fk = kwargs->Get(k);
          ir::Kwarg& kw = node->kwargs[k];
          kw.name.assign(view(fk->name()));
          std::string why = readArg(fk->value(), kw.value);
          if (!why.empty()) return fail(fmt::format("kwarg '{}': {}", kw.name, why));
        }
      }
      if (const auto* outs = fn->outputs()) {
        node->outputs.reserve(outs->size());
        for (uint32_t k = 0; k < outs->size(); ++k) {
          int32_t t = outs->Get(k);
          if (t < 0 || size_t(t) >= tensors_.size())
            return fail(fmt::format("output {}: tensor index {} out of range ({} tensors)", k, t, tensors_.size()));
          if (!tensorProblems_[size_t(t)].empty())
            return fail(fmt::format("output {}: {}", k, tensorProblems_[size_t(t)]));
          node->outputs.push_back(tensors_[size_t(t)]);
        }
      }
      if (const auto* m = fn->module_()) node->module.assign(m->c_str(), m->size());
      if (const auto* p = fn->provenance()) {
        node->provenance.createdBy.assign(view(p->created_by()));
        node->provenance.derivedFrom = toVector(p->derived_from());
      }
      if (kind == uint8_t(ir::NodeKind::Output)) {
        sawOutput = true;
        state_[id] = kIsOutputNode;
      } else {
        state_[id] = uint32_t(node->outputs.size());
      }
      g.appendShared(std::move(node));
    }
    if (n > 0 && !sawOutput) return err("graph has no output node, expected exactly one (last)");
    return Status::ok();
  }

  Status readConstants(const fb::Graph* fg, ir::Graph& g) {
    const auto* cs = fg->constants();
    size_t n = cs ? cs->size() : 0;
    std::string_view prevName;
    for (size_t i = 0; i < n; ++i) {
      const fb::Constant* fc = cs->Get(uint32_t(i));
      std::string_view name = view(fc->name());
      auto fail = [&](std::string_view what) {
        return Status::error(fmt::format("{}: {}constant #{} '{}': {}", source_, where_, i, name, what));
      };
      ir::Constant c;
      c.name.assign(name);
      c.fqn.assign(view(fc->fqn()));
      uint8_t kind = uint8_t(fc->kind()), dtype = uint8_t(fc->dtype());
      if (kind >= uint8_t(ir::ConstantKind::COUNT))
        return fail(fmt::format("constant kind enum value {} out of range (expected < {})", kind,
                                int(ir::ConstantKind::COUNT)));
      if (dtype >= uint8_t(ir::DType::COUNT))
        return fail(fmt::format("dtype enum value {} out of range (expected < {})", dtype, int(ir::DType::COUNT)));
      c.kind = ir::ConstantKind(kind);
      c.dtype = ir::DType(dtype);
      const auto* shape = fc->shape();
      uint32_t rank = shape ? shape->size() : 0;
      if (rank > uint32_t(ir::kMaxRank)) return fail(fmt::format("rank {} exceeds the maximum {}", rank, ir::kMaxRank));
      for (uint32_t d = 0; d < rank; ++d) c.shape.push(elementAt(shape, d));
      int64_t expected = 0;
      if (!constantByteSize(c.shape, c.dtype, expected))
        return fail(fmt::format("shape {}: expected non-negative sizes whose byte size fits int64",
                                ir::toString(c.shape)));
      int32_t data = fc->data();
      if (data != -1) {
        if (data < 0 || size_t(data) >= blobs_.size())
          return fail(fmt::format("blob index {} out of range ({} blobs)", data, blobs_.size()));
        size_t have = blobs_.byteSize(size_t(data));
        if (uint64_t(have) != uint64_t(expected))
          return fail(fmt::format("blob #{} has {} bytes, expected {} ({} x {} of {} bytes)", data, have, expected,
                                  ir::toString(c.shape), ir::dtypeName(c.dtype), ir::dtypeSize(c.dtype)));
        c.data = blobs_.get(size_t(data));
      }
      c.contentHash = fc->content_hash();
      if (fc->recipe()) c.recipe = ir::describedRecipe(fc->recipe()->str(), c.dtype, c.shape);
      // The writer stores constants sorted by name: one comparison proves uniqueness.
      bool sorted = i > 0 && prevName < name;
      if (!sorted && i > 0 && g.constant(c.name)) return fail("duplicate constant name");
      prevName = name;
      g.setConstant(std::move(c));
    }
    return Status::ok();
  }

  Status readSubgraphs(const fb::Graph* fg, ir::Graph& g) {
    const auto* ss = fg->subgraphs();
    size_t n = ss ? ss->size() : 0;
    for (size_t i = 0; i < n; ++i) {
      const fb::Subgraph* fs = ss->Get(uint32_t(i));
      std::string name(view(fs->name()));
      if (g.subgraphs().count(name))
        return err(fmt::format("subgraph #{} '{}': duplicate subgraph name", i, name));
      auto sub = std::make_shared<ir::Graph>();
      sub->shareStore(blobs_.store());
      GraphReader reader(source_, fmt::format("{}subgraph '{}': ", where_, name), blobs_, validate_, depth_ + 1);
      LS_RETURN_IF_ERROR(reader.read(fs->graph(), *sub));
      g.subgraphs().emplace(std::move(name), std::move(sub));
    }
    return Status::ok();
  }

  const std::string& source_;
  std::string where_;
  BlobTableReader& blobs_;
  bool validate_;
  int depth_;
  uint32_t nextId_ = 0;
  Status opStatus_;
  std::vector<ir::OpId> opIds_;
  std::vector<std::string_view> opNames_;
  std::vector<std::shared_ptr<const ir::QuantParams>> quants_;
  std::vector<std::string> quantProblems_;
  std::vector<ir::TensorMeta> tensors_;
  std::vector<std::string> tensorProblems_;
  std::vector<uint32_t> state_;  // by node id
  std::vector<uint32_t> nameSlots_;  // node index + 1, 0 = empty
  std::vector<std::string_view> nameViews_;
};

}  // namespace

Result<ir::Graph> readGraph(const fb::Graph* fg, const std::string& sourceName, const ReadGraphOptions& options) {
  ir::Graph g;
  if (!fg) return Status::error(sourceName + ": missing graph table");
  std::optional<BlobTableReader> own;
  BlobTableReader* blobs = options.blobs;
  if (!blobs) {
    own.emplace(fg->blobs(), g.storePtr(), options.bytesOwner);
    blobs = &*own;
  } else {
    g.shareStore(blobs->store());
  }
  GraphReader reader(sourceName, "", *blobs, options.validate, 0);
  LS_RETURN_IF_ERROR(reader.read(fg, g));
  return g;
}

}  // namespace ls::io
