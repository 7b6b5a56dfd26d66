// Graph: ordered (topological) nodes with stable ids, constants, signature, nested graphs.
#pragma once

#include <cstdint>
#include <iterator>
#include <map>
#include <mutex>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/ir/node.h"
#include "core/ir/op_index.h"
#include "core/util/flat_view_map.h"
#include "core/util/status.h"

namespace ls::ir {

enum class ConstantKind : uint8_t { Parameter, Buffer, Constant, COUNT };
std::string_view constantKindName(ConstantKind k);

/// Immutable bytes of a constant (little endian, element type of the constant). `bytes` points
/// into memory `owner` keeps alive: the blob's own vector, or a loaded file's buffer (an .lsg's
/// constants are read in place, not copied out of the file).
struct Blob {
  std::span<const uint8_t> bytes;
  uint64_t hash = 0;
  std::shared_ptr<const void> owner;
};

class ConstantRecipe;
class UsersIndex;

/// A named constant: a value in a content-addressed DAG. A source carries bytes (`data`) or
/// nothing (shape-only: weights not in the file, whose values the executor synthesises seeded
/// by name; their content hash is derived from (name, dtype, shape), so two shape-only
/// constants never count as equal data). A derived constant carries a `recipe` (an operation
/// over input constants) instead of bytes: its hash is the recipe's, and its bytes are made on
/// demand by exec::materialize (one bounded cache). When both are set, `data` holds the
/// recipe's values (materialised) and is what readers use.
struct Constant {
  std::string name;
  std::string fqn;
  ConstantKind kind = ConstantKind::Parameter;
  DType dtype = DType::Float32;
  Shape shape;
  uint64_t contentHash = 0;
  std::shared_ptr<const Blob> data;
  std::shared_ptr<const ConstantRecipe> recipe;

  /// Bytes are held (the file's, or materialised).
  bool hasData() const { return data != nullptr; }
  /// The values are the file's: bytes are held, or a recipe over sources that all hold bytes
  /// (or whose synthesised values are fixed, exec::freezeConstants). False for shape-only
  /// constants and recipes over any of them (values synthesised from the current name).
  bool valuesKnown() const;
  int64_t numel() const { return shape.numel(); }
};

/// How a derived constant is computed: an operation (`op`, with canonical attributes `attrs`)
/// over input constants, giving a `dtype`/`shape` value. Immutable and shared between graph
/// versions. Its hash comes from (op, attrs, the inputs' content hashes, dtype, shape), never
/// from bytes, so equal recipes are equal constants without computing anything. The ir layer
/// only describes recipes; exec::TensorRecipe adds the evaluation and exec::materialize makes
/// the bytes.
class ConstantRecipe {
 public:
  virtual ~ConstantRecipe() = default;
  const std::string& op() const { return op_; }
  const std::string& attrs() const { return attrs_; }
  const std::vector<Constant>& inputs() const { return inputs_; }
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  uint64_t hash() const { return hash_; }
  /// Every source under this recipe holds bytes (Constant::valuesKnown).
  bool valuesKnown() const { return valuesKnown_; }
  /// Human-readable derivation, e.g. "fold_bn(conv1.weight, bn1.*) -> permute OHWI": a
  /// one-input recipe as "<input> -> <label>", others as "<label>(<inputs>)", where an input
  /// is its own recipe's description or its fqn (name when it has none).
  virtual std::string describe() const;
  /// The values derive from other values (an operation, or a file's record of one). False for
  /// a source that only fixes how values are made (exec's synthesised-values recipe): a file
  /// then records no derivation for it.
  virtual bool derived() const { return true; }
  /// Same operation over inputs with the same content hashes (what equal hashes promise).
  bool sameAs(const ConstantRecipe& o) const;
  /// How an input constant reads in a description.
  static std::string describeInput(const Constant& c);

 protected:
  /// `label`: the operation as shown (defaults to `op`).
  ConstantRecipe(std::string op, std::string attrs, std::vector<Constant> inputs, DType dtype, Shape shape,
                 std::string label = {});
  const std::string& label() const { return label_; }

 private:
  std::string op_, attrs_, label_;
  std::vector<Constant> inputs_;
  DType dtype_;
  Shape shape_;
  uint64_t hash_ = 0;
  bool valuesKnown_ = false;
};

/// A recipe that only describes (`description` as describe(), no inputs): what a file records
/// of a derived constant saved with its bytes.
std::shared_ptr<const ConstantRecipe> describedRecipe(std::string description, DType dtype, Shape shape);

inline bool Constant::valuesKnown() const { return data != nullptr || (recipe && recipe->valuesKnown()); }

/// Content-addressed storage of constant bytes, shared by every graph version that uses it.
/// Thread-safe.
class ConstantStore {
 public:
  /// Returns the shared blob for these bytes (deduplicated by hash + byte equality).
  std::shared_ptr<const Blob> intern(std::vector<uint8_t> bytes);
  /// The same for bytes owned by `owner` (kept alive by the blob, not copied), e.g. a file's
  /// buffer the bytes lie in.
  std::shared_ptr<const Blob> intern(std::span<const uint8_t> bytes, std::shared_ptr<const void> owner);
  /// The same with the bytes' hashBytes() already computed by the caller (e.g. for many blobs
  /// at once, in parallel). `hash` must be hashBytes(bytes.data(), bytes.size()).
  std::shared_ptr<const Blob> intern(std::span<const uint8_t> bytes, std::shared_ptr<const void> owner, uint64_t hash);
  size_t size() const;
  size_t totalBytes() const;

 private:
  mutable std::mutex mu_;
  std::unordered_multimap<uint64_t, std::shared_ptr<const Blob>> blobs_;
  size_t bytes_ = 0;
};

/// Content hash for a constant: hash of its bytes, else its recipe's hash, else of (name, dtype,
/// shape) when shape-only.
uint64_t constantContentHash(const Constant& c);

/// Same values for sure, without computing any: both hold bytes and they are equal, or both
/// are recipes (without bytes) of the same operation over the same inputs
/// (ConstantRecipe::sameAs). Shape-only constants are never the same (seeded by name).
bool sameContent(const Constant& a, const Constant& b);

/// A graph's constants by name, iterated in name order (as the `std::map<std::string,
/// Constant>` it replaces; `for (const auto& [name, c] : table)` reads the same). Entries are
/// immutable and shared by pointer: copying the table (a graph's first constant edit after the
/// graph was copied) copies one vector of pointers and the flat name index, not the constants;
/// a lookup is one hash probe, not a walk of string comparisons.
class ConstantTable {
 public:
  using value_type = std::pair<const std::string, Constant>;
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = ConstantTable::value_type;
    using difference_type = std::ptrdiff_t;
    using pointer = const value_type*;
    using reference = const value_type&;
    const_iterator() = default;
    reference operator*() const { return **it_; }
    pointer operator->() const { return it_->get(); }
    const_iterator& operator++() {
      ++it_;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator t = *this;
      ++it_;
      return t;
    }
    bool operator==(const const_iterator&) const = default;

   private:
    friend class ConstantTable;
    using Base = std::vector<std::shared_ptr<const value_type>>::const_iterator;
    explicit const_iterator(Base it) : it_(it) {}
    Base it_;
  };

  size_t size() const { return sorted_.size(); }
  bool empty() const { return sorted_.empty(); }
  const_iterator begin() const { return const_iterator(sorted_.begin()); }
  const_iterator end() const { return const_iterator(sorted_.end()); }
  /// The constant named `name`, or null.
  const Constant* find(std::string_view name) const {
    const value_type* const* e = byName_.find(name);
    return e ? &(*e)->second : nullptr;
  }
  /// Inserts `c` under `c.name`, replacing a constant of that name.
  void set(Constant c);
  /// Removes the constant named `name`. Returns whether it was present.
  bool erase(std::string_view name);
  /// Removes the constants named in `names` (absent ones are ignored) in one sweep. Returns
  /// how many were removed.
  size_t erase(std::span<const std::string> names);

 private:
  /// Position of the first entry whose name is not less than `name`.
  size_t lowerBound(std::string_view name) const;
  std::vector<std::shared_ptr<const value_type>> sorted_;  ///< by name
  FlatViewMap<const value_type*> byName_;  ///< keys view the entries' names (they never change)
};

/// out = "<base>_<i>" (what fmt "{}_{}" gives), reusing out's buffer: the candidate names
/// Graph::uniqueName and the retrace's fresh names try.
void suffixedName(std::string_view base, size_t i, std::string& out);

/// Who is who among the graph's boundary values.
struct GraphSignature {
  std::vector<NodeId> userInputs;  ///< placeholders in order
  std::vector<NodeId> parameters;  ///< get_attr of parameter constants
  std::vector<NodeId> buffers;
  std::vector<NodeId> constants;
  std::vector<ValueRef> outputs;   ///< the output node's returned values, in slot order
};

/// A graph: nodes in topological order. Node ids are stable for the node's lifetime and are
/// never reused within one graph lineage (copies share the id counter's value).
///
/// Nodes are held by shared pointer and are copy-on-write, and so is the storage around
/// them: a copy of a Graph shares the node vector, the op index, the positions and the name
/// index with the original (a few reference counts, whatever the size), and the first edit of
/// either one copies what it changes (the vector, then the node). Later mutation of one copy
/// never changes the other.
/// Not thread-safe for mutation; concurrent const access is safe once the lazy indices are
/// built (call buildIndices() before sharing across threads).
class Graph {
 public:
  Graph();
  Graph(const Graph&);
  Graph& operator=(const Graph&);
  Graph(Graph&&) noexcept;
  Graph& operator=(Graph&&) noexcept;
  ~Graph();

  // ---- nodes ----
  size_t size() const { return nodes_->size(); }
  const Node& at(size_t pos) const { return *(*nodes_)[pos]; }
  const NodePtr& ptrAt(size_t pos) const { return (*nodes_)[pos]; }
  std::span<const NodePtr> nodes() const { return *nodes_; }

  /// Appends a node. Assigns a fresh id when node.id == kInvalidNode. Returns the id.
  NodeId append(Node node);
  /// Appends an existing (shared) node version without copying it (fast-copy path).
  void appendShared(NodePtr node);
  /// Inserts a node before position `pos`.
  NodeId insertAt(size_t pos, Node node);
  NodeId insertBefore(NodeId before, Node node);
  NodeId insertAfter(NodeId after, Node node);
  /// Removes a node (its users must have been rewired). Returns false if absent.
  bool erase(NodeId id);
  /// Erases every node of `ids` in one sweep (linear in the graph, unlike repeated erase()).
  size_t eraseNodes(const std::unordered_set<NodeId>& ids);
  size_t eraseNodes(std::span<const NodeId> ids);
  /// Removes all nodes, constants and subgraphs.
  void clear();
  /// A graph with this graph's constants, store, subgraphs (deep), name and id counter, but no
  /// nodes: the starting point of a rebuild.
  Graph shellCopy() const;
  void reserveNodes(size_t n) { nodesForUpdate().reserve(n); }
  /// Makes room for about `like`'s nodes: the node vector, and the op index's list of each op
  /// for as many nodes of that op as `like` has (a rebuild of `like` then appends without
  /// growing those lists one reallocation at a time).
  void reserveLike(const Graph& like);

  bool contains(NodeId id) const;
  const Node& node(NodeId id) const;      ///< id must exist
  const Node* find(NodeId id) const;      ///< null if absent
  const NodePtr* findPtr(NodeId id) const;
  size_t position(NodeId id) const;       ///< index in order; id must exist
  NodeId findByName(std::string_view name) const;  ///< kInvalidNode if absent
  /// Mutable access with copy-on-write. Do not change id or name here; change the op with
  /// setOp so the op index stays right.
  Node& mutableNode(NodeId id);
  void setOp(NodeId id, OpId op, std::string target);
  void rename(NodeId id, std::string name);

  /// Metadata of a value; a none meta if the ref is dangling.
  const TensorMeta& meta(ValueRef r) const;

  /// All nodes with op `op`, in no particular order (no scan).
  std::span<const NodeId> nodesOfOp(OpId op) const;
  /// Distinct ops present (with count > 0).
  std::vector<OpId> opsPresent() const;
  /// Nodes that read any output of `id` (each user once, in graph order).
  std::span<const NodeId> users(NodeId id) const;
  /// The output node, or null.
  const Node* outputNode() const;

  NodeId nextId() const { return nextId_; }
  void reserveIds(NodeId next) { nextId_ = std::max(nextId_, next); }
  NodeId newId() { return nextId_++; }

  // ---- constants ----
  using ConstantMap = ConstantTable;
  const ConstantMap& constants() const;
  const Constant* constant(std::string_view name) const;
  void setConstant(Constant c);
  bool eraseConstant(std::string_view name);
  /// Removes the constants named in `names` (absent ones are ignored) in one sweep, unlike
  /// repeated eraseConstant(). Returns how many were removed.
  size_t eraseConstants(std::span<const std::string> names);
  ConstantStore& store() { return *store_; }
  const std::shared_ptr<ConstantStore>& storePtr() const { return store_; }
  void shareStore(std::shared_ptr<ConstantStore> s) { store_ = std::move(s); }

  // ---- signature, subgraphs, naming ----
  GraphSignature signature() const;
  std::map<std::string, std::shared_ptr<Graph>, std::less<>>& subgraphs() { return subgraphs_; }
  const std::map<std::string, std::shared_ptr<Graph>, std::less<>>& subgraphs() const { return subgraphs_; }
  std::string modelName;

  /// A name not yet used in this graph, derived from `base` ("add" -> "add_3").
  std::string uniqueName(std::string_view base) const;

  /// Builds the lazy indices (positions, names, users) so concurrent readers never race.
  void buildIndices() const;

  /// Structural checks: ids unique, names unique, every ref points to an earlier node and a
  /// valid output index, exactly one output node and it is last. The message names the node.
  Status validate() const;

 private:
  struct Shell {};
  explicit Graph(Shell);  // no nodes, constants or store: shellCopy fills them in
  using NodeVector = std::vector<NodePtr>;
  using NameIndex = FlatViewMap<NodeId>;
  /// The storage for an edit, copied first when another graph shares it.
  NodeVector& nodesForUpdate();
  OpIndex& opsForUpdate();
  std::vector<int32_t>& positionsForUpdate() const;
  /// The name index for an edit, or null when it is not being maintained (a shared index is
  /// dropped here: this graph rebuilds its own at its next lookup).
  NameIndex* namesForUpdate() const;

  /// eraseNodes over a mark per node id (1: erase).
  size_t eraseMarked(const std::vector<uint8_t>& byId);
  void indexAdd(const Node& n);
  void indexRemove(const Node& n);
  void invalidateOrder() { posValid_ = false; }
  /// Positions of nodes_[from..] after an insert or erase there (keeps the index valid).
  void repositionFrom(size_t from);
  void ensurePositions() const;
  void ensureUsers() const;
  /// The users index for an update, unshared first (null when it is not being maintained).
  UsersIndex* usersForUpdate() const;
  Node& cow(size_t pos);

  /// Never null (a moved-from graph holds the shared empty vector); shared between copies
  /// until one of them edits it.
  std::shared_ptr<NodeVector> nodes_;
  NodeId nextId_ = 0;
  std::shared_ptr<OpIndex> opIndex_;  // never null, shared like nodes_
  /// Views into the names of nodes this graph holds; cow() re-points a key when it copies a
  /// node, erase/rename/insert keep it in step, so a key never outlives its string. Null
  /// until first use. Shared by copies of this graph (which hold the same node versions) until
  /// one of them changes its nodes (that one drops it then: namesForUpdate).
  mutable std::shared_ptr<NameIndex> byName_;
  /// A string-keyed map looked up by string_view, without building a key string.
  struct KeyHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return size_t(hashKey(s)); }
  };
  mutable std::unordered_map<std::string, size_t, KeyHash, std::equal_to<>> nameSuffixHint_;  // uniqueName: next suffix to try per base
  mutable std::shared_ptr<std::vector<int32_t>> pos_;  // by NodeId; shared like nodes_ while valid
  mutable bool posValid_ = false;
  /// Built on first use, then kept up to date by every edit; shared by copies of this graph
  /// until one of them changes it (usersForUpdate clones it then).
  mutable std::shared_ptr<UsersIndex> users_;
  mutable bool usersValid_ = false;
  std::shared_ptr<ConstantMap> constants_;  // copy-on-write: graph copies share it until one writes
  std::shared_ptr<ConstantStore> store_;
  std::map<std::string, std::shared_ptr<Graph>, std::less<>> subgraphs_;
};

}  // namespace ls::ir
