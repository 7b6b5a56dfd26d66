// Writing and reading one ir::Graph as a flatbuffers `Graph` table (graph.fbs); shared by the
// native graph file (.lsg) and the trace file (.lstrace).
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/io/schema/graph_generated.h"
#include "core/ir/graph.h"
#include "core/util/status.h"

namespace ls::io {

/// Largest `next_id` a Graph table may declare (loading allocates per-id tables; 16M ids is
/// far beyond any lineage in scope). Saving a graph with a larger next id is an error.
inline constexpr uint32_t kMaxGraphNodeIds = 1u << 24;

/// Deepest nesting of subgraphs (a subgraph of a subgraph ...) a Graph table may have.
inline constexpr int kMaxSubgraphNesting = 16;
/// Most constant bytes one flatbuffer can hold with room to spare (the format limit is 2 GB).
inline constexpr uint64_t kMaxBlobBytes = uint64_t(1) << 30;

/// Returns "" when `m` can be stored in and loaded from a Graph table, else what is wrong:
/// dtype in range, dim order empty or a permutation of the shape's rank, quantisation with
/// consistent lengths (per tensor: one scale; per channel: axis < rank and one scale per
/// channel). The same rules the loader enforces.
std::string tensorMetaProblem(const ir::TensorMeta& m);

/// Collects constant bytes into one blob table, deduplicated by blob identity. Blob 0 is an
/// empty sentinel (also used for constants whose data is zero bytes). Several graphs may share
/// one writer (e.g. trace snapshots); the container then stores `finish()` once.
class BlobTableWriter {
 public:
  explicit BlobTableWriter(flatbuffers::FlatBufferBuilder& b);
  /// Index of `blob` in the table, writing its bytes on first use; -1 (nothing written, and
  /// full() turns true) once the table would exceed kMaxBlobBytes. Must not be called while a
  /// table is being built in `b`.
  int32_t add(const std::shared_ptr<const ir::Blob>& blob);
  /// A derived constant written into the table: a recipe without data materialised straight
  /// into the table's bytes (exec::materializeInto: no buffer of its own, no copy), once per
  /// recipe hash for this table (a trace's snapshots share it).
  struct Derived {
    int32_t index = -1;      ///< as add(): -1 once the table would exceed kMaxBlobBytes
    uint64_t bytesHash = 0;  ///< hashBytes() of the values written
  };
  Result<Derived> addDerived(const ir::Constant& c);
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::Blob>>> finish();
  size_t size() const { return offsets_.size(); }
  bool full() const { return full_; }

 private:
  flatbuffers::FlatBufferBuilder& b_;
  std::vector<flatbuffers::Offset<fb::Blob>> offsets_;
  std::unordered_map<const ir::Blob*, int32_t> index_;
  struct DerivedEntry {
    Derived blob;
    size_t bytes = 0;
  };
  std::unordered_map<uint64_t, DerivedEntry> derived_;  // by recipe hash
  uint64_t bytes_ = 0;
  bool full_ = false;
};

/// Resolves blob indices of a (verified) blob table into interned ir::Blobs, each index
/// interned at most once. Not thread-safe.
class BlobTableReader {
 public:
  /// `blobs` may be null (an empty table). `store` receives the bytes: copied out of the
  /// table, or with `bytesOwner` (which keeps the buffer holding the table alive) viewed in
  /// place, no copy.
  BlobTableReader(const flatbuffers::Vector<flatbuffers::Offset<fb::Blob>>* blobs,
                  std::shared_ptr<ir::ConstantStore> store, std::shared_ptr<const void> bytesOwner = nullptr);
  size_t size() const { return blobs_ ? blobs_->size() : 0; }
  /// Byte size of blob `i` (i < size()).
  size_t byteSize(size_t i) const;
  /// The interned blob for index `i` (i < size()).
  const std::shared_ptr<const ir::Blob>& get(size_t i);
  const std::shared_ptr<ir::ConstantStore>& store() const { return store_; }

 private:
  const flatbuffers::Vector<flatbuffers::Offset<fb::Blob>>* blobs_;
  std::shared_ptr<ir::ConstantStore> store_;
  std::shared_ptr<const void> bytesOwner_;
  std::vector<std::shared_ptr<const ir::Blob>> cache_;
  std::vector<uint64_t> hashes_;  ///< hashBytes of each blob, computed up front over threads
};

/// Writes `g` (with its subgraphs, recursively) as a Graph table. With `blobs` == null the
/// constant bytes go into this Graph's own `blobs` table; otherwise into `blobs` (the caller
/// stores that table elsewhere and this Graph's `blobs` stays empty). Fails, naming the node or
/// constant, when something cannot be stored: metadata (see tensorMetaProblem), a constant
/// whose bytes do not match its shape, a next id above kMaxGraphNodeIds, subgraphs nested
/// deeper than kMaxSubgraphNesting or more than kMaxBlobBytes of constant data.
Result<flatbuffers::Offset<fb::Graph>> writeGraph(flatbuffers::FlatBufferBuilder& b, const ir::Graph& g,
                                                  BlobTableWriter* blobs = nullptr);

/// About the bytes writeGraph() makes of `g` (subgraphs included): its nodes at ~160 bytes
/// each plus every constant's values (held or derived; an upper bound when values are shared).
/// A builder sized by it never regrows (each regrowth copies everything written so far).
size_t serializedSizeHint(const ir::Graph& g);

struct ReadGraphOptions {
  /// Where constants' `data` indices point; null = the Graph table's own `blobs` table (with
  /// a fresh ConstantStore shared by the graph and its subgraphs).
  BlobTableReader* blobs = nullptr;
  /// With `blobs` null: keeps the buffer the Graph table lies in alive, so constants view
  /// their bytes in it instead of copying them (null = copy).
  std::shared_ptr<const void> bytesOwner;
  /// Also run ir::Graph::validate() on every rebuilt graph. Redundant: the loader checks the
  /// same rules itself while reading (with node indices in the messages), so it is off by
  /// default for speed; the lsg fuzz target asserts that every loaded graph validates.
  bool validate = false;
};

/// Rebuilds an ir::Graph from a Graph table. `fg` MUST come from a buffer that passed the
/// flatbuffers Verifier; everything else (indices, enum ranges, ranks, dim orders, blob sizes,
/// references to earlier nodes) is checked here. Errors start with `sourceName` and name the
/// subgraph, node (index and name) and what was expected. Never asserts or crashes.
Result<ir::Graph> readGraph(const fb::Graph* fg, const std::string& sourceName,
                            const ReadGraphOptions& options = {});

}  // namespace ls::io
