// Graph storage, copy-on-write nodes, lazy indices and structural validation.
#include "core/ir/graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cstring>
#include <utility>

#include "core/ir/users_index.h"
#include "core/util/hash.h"

namespace ls::ir {

std::string_view nodeKindName(NodeKind k) {
  switch (k) {
    case NodeKind::Placeholder: return "placeholder";
    case NodeKind::GetAttr: return "get_attr";
    case NodeKind::Call: return "call_function";
    case NodeKind::Output: return "output";
    default: return "?";
  }
}

std::string_view constantKindName(ConstantKind k) {
  switch (k) {
    case ConstantKind::Parameter: return "parameter";
    case ConstantKind::Buffer: return "buffer";
    case ConstantKind::Constant: return "constant";
    default: return "?";
  }
}

// ---------------------------------------------------------------- ConstantStore

std::shared_ptr<const Blob> ConstantStore::intern(std::vector<uint8_t> bytes) {
  auto owned = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
  return intern(std::span<const uint8_t>(*owned), owned);
}

std::shared_ptr<const Blob> ConstantStore::intern(std::span<const uint8_t> bytes, std::shared_ptr<const void> owner) {
  return intern(bytes, std::move(owner), hashBytes(bytes.data(), bytes.size()));
}

std::shared_ptr<const Blob> ConstantStore::intern(std::span<const uint8_t> bytes, std::shared_ptr<const void> owner,
                                                  uint64_t h) {
  assert(h == hashBytes(bytes.data(), bytes.size()));
  std::lock_guard lock(mu_);
  auto range = blobs_.equal_range(h);
  for (auto it = range.first; it != range.second; ++it)
    if (std::ranges::equal(it->second->bytes, bytes)) return it->second;
  auto blob = std::make_shared<Blob>();
  blob->bytes = bytes;
  blob->hash = h;
  blob->owner = std::move(owner);
  bytes_ += bytes.size();
  blobs_.emplace(h, blob);
  return blob;
}

size_t ConstantStore::size() const {
  std::lock_guard lock(mu_);
  return blobs_.size();
}
size_t ConstantStore::totalBytes() const {
  std::lock_guard lock(mu_);
  return bytes_;
}

uint64_t constantContentHash(const Constant& c) {
  uint64_t h = hashCombine(uint64_t(c.dtype) + 1, hashBytes(c.shape.begin(), sizeof(int64_t) * c.shape.rank()));
  if (c.data) return hashCombine(h, c.data->hash);
  if (c.recipe) return c.recipe->hash();
  return hashCombine(h, hashString(c.name, 0x5eed));
}

bool sameContent(const Constant& a, const Constant& b) {
  if (a.dtype != b.dtype || !(a.shape == b.shape)) return false;
  if (a.data || b.data) return a.data && b.data && (a.data == b.data || std::ranges::equal(a.data->bytes, b.data->bytes));
  return a.recipe && b.recipe && a.recipe->sameAs(*b.recipe);
}

// ---------------------------------------------------------------- ConstantRecipe

ConstantRecipe::ConstantRecipe(std::string op, std::string attrs, std::vector<Constant> inputs, DType dtype,
                               Shape shape, std::string label)
    : op_(std::move(op)),
      attrs_(std::move(attrs)),
      label_(label.empty() ? op_ : std::move(label)),
      inputs_(std::move(inputs)),
      dtype_(dtype),
      shape_(std::move(shape)) {
  uint64_t h = hashCombine(hashString(op_, 0x7ec1be), hashString(attrs_, 0xa77));
  h = hashCombine(h, hashCombine(uint64_t(dtype_) + 1, hashBytes(shape_.begin(), sizeof(int64_t) * shape_.rank())));
  valuesKnown_ = true;
  for (Constant& c : inputs_) {
    if (c.contentHash == 0) c.contentHash = constantContentHash(c);
    h = hashCombine(h, c.contentHash);
    valuesKnown_ = valuesKnown_ && c.valuesKnown();
  }
  hash_ = h == 0 ? 1 : h;  // 0 means "not computed" in Constant::contentHash
}

std::string ConstantRecipe::describeInput(const Constant& c) {
  if (c.recipe) return c.recipe->describe();
  return c.fqn.empty() ? c.name : c.fqn;
}

std::string ConstantRecipe::describe() const {
  if (inputs_.size() == 1) return describeInput(inputs_[0]) + " -> " + label_;
  std::string s = label_ + "(";
  for (size_t i = 0; i < inputs_.size(); ++i) s += (i ? ", " : "") + describeInput(inputs_[i]);
  return s + ")";
}

namespace {
class DescribedRecipe : public ConstantRecipe {
 public:
  DescribedRecipe(std::string description, DType dtype, Shape shape)
      : ConstantRecipe("described", description, {}, dtype, std::move(shape)), description_(std::move(description)) {}
  std::string describe() const override { return description_; }

 private:
  std::string description_;
};
}  // namespace

std::shared_ptr<const ConstantRecipe> describedRecipe(std::string description, DType dtype, Shape shape) {
  return std::make_shared<DescribedRecipe>(std::move(description), dtype, std::move(shape));
}

bool ConstantRecipe::sameAs(const ConstantRecipe& o) const {
  if (hash_ != o.hash_ || op_ != o.op_ || attrs_ != o.attrs_ || dtype_ != o.dtype_ || !(shape_ == o.shape_) ||
      inputs_.size() != o.inputs_.size())
    return false;
  for (size_t i = 0; i < inputs_.size(); ++i)
    if (inputs_[i].contentHash != o.inputs_[i].contentHash) return false;
  return true;
}

// ---------------------------------------------------------------- ConstantTable

size_t ConstantTable::lowerBound(std::string_view name) const {
  auto it = std::lower_bound(sorted_.begin(), sorted_.end(), name,
                             [](const std::shared_ptr<const value_type>& e, std::string_view n) { return e->first < n; });
  return size_t(it - sorted_.begin());
}

void ConstantTable::set(Constant c) {
  std::string key = c.name;
  std::shared_ptr<const value_type> entry = std::make_shared<value_type>(std::move(key), std::move(c));
  const std::string_view name = entry->first;
  if (byName_.find(name)) {
    const size_t pos = lowerBound(name);
    assert(pos < sorted_.size() && sorted_[pos]->first == name);
    // The key views the replaced entry's name: re-key it at the new entry before that goes.
    byName_.erase(name);
    byName_.insert(name, entry.get());
    sorted_[pos] = std::move(entry);
    return;
  }
  byName_.insert(name, entry.get());
  sorted_.insert(sorted_.begin() + std::ptrdiff_t(lowerBound(name)), std::move(entry));
}

bool ConstantTable::erase(std::string_view name) {
  if (!byName_.find(name)) return false;
  const size_t pos = lowerBound(name);
  byName_.erase(name);  // before the entry (whose name the key views) is released
  sorted_.erase(sorted_.begin() + std::ptrdiff_t(pos));
  return true;
}

size_t ConstantTable::erase(std::span<const std::string> names) {
  std::vector<const value_type*> gone;
  for (const std::string& n : names)
    if (const value_type* const* e = byName_.find(n)) {
      gone.push_back(*e);
      byName_.erase(n);  // before the entry (whose name the key views) is released
    }
  if (gone.empty()) return 0;
  std::sort(gone.begin(), gone.end());
  std::erase_if(sorted_, [&](const std::shared_ptr<const value_type>& e) {
    return std::binary_search(gone.begin(), gone.end(), e.get());
  });
  return gone.size();
}

// ---------------------------------------------------------------- Graph

namespace {
// The storage of every empty graph (and of a moved-from one): shared, so it is never edited
// in place (the first edit copies it, as for any shared storage).
template <typename T>
const std::shared_ptr<T>& sharedEmpty() {
  static const std::shared_ptr<T> kEmpty = std::make_shared<T>();
  return kEmpty;
}
// An unshared version of `p` (a copy of what it holds when another owner shares it).
template <typename T>
T& unshare(std::shared_ptr<T>& p) {
  if (p.use_count() > 1) p = std::make_shared<T>(*p);
  return *p;
}
}  // namespace

Graph::Graph()
    : nodes_(sharedEmpty<NodeVector>()),
      opIndex_(sharedEmpty<OpIndex>()),
      constants_(std::make_shared<ConstantMap>()),
      store_(std::make_shared<ConstantStore>()) {}
Graph::Graph(Shell) : nodes_(sharedEmpty<NodeVector>()), opIndex_(sharedEmpty<OpIndex>()) {}
Graph::~Graph() = default;

Graph::Graph(const Graph& o)
    : modelName(o.modelName),
      nodes_(o.nodes_),
      nextId_(o.nextId_),
      opIndex_(o.opIndex_),
      byName_(o.byName_),
      pos_(o.posValid_ ? o.pos_ : nullptr),
      posValid_(o.posValid_),
      users_(o.usersValid_ ? o.users_ : nullptr),
      usersValid_(o.usersValid_ && o.users_),
      constants_(o.constants_),
      store_(o.store_) {
  for (const auto& [name, sg] : o.subgraphs_) subgraphs_.emplace(name, std::make_shared<Graph>(*sg));
}

Graph::Graph(Graph&& o) noexcept
    : modelName(std::move(o.modelName)),
      nodes_(std::exchange(o.nodes_, sharedEmpty<NodeVector>())),
      nextId_(o.nextId_),
      opIndex_(std::exchange(o.opIndex_, sharedEmpty<OpIndex>())),
      byName_(std::move(o.byName_)),
      nameSuffixHint_(std::move(o.nameSuffixHint_)),
      pos_(std::move(o.pos_)),
      posValid_(std::exchange(o.posValid_, false)),
      users_(std::move(o.users_)),
      usersValid_(std::exchange(o.usersValid_, false)),
      constants_(std::move(o.constants_)),
      store_(std::move(o.store_)),
      subgraphs_(std::move(o.subgraphs_)) {}

Graph& Graph::operator=(Graph&& o) noexcept {
  if (this == &o) return *this;
  modelName = std::move(o.modelName);
  nodes_ = std::exchange(o.nodes_, sharedEmpty<NodeVector>());
  nextId_ = o.nextId_;
  opIndex_ = std::exchange(o.opIndex_, sharedEmpty<OpIndex>());
  byName_ = std::move(o.byName_);
  nameSuffixHint_ = std::move(o.nameSuffixHint_);
  pos_ = std::move(o.pos_);
  posValid_ = std::exchange(o.posValid_, false);
  users_ = std::move(o.users_);
  usersValid_ = std::exchange(o.usersValid_, false);
  constants_ = std::move(o.constants_);
  store_ = std::move(o.store_);
  subgraphs_ = std::move(o.subgraphs_);
  return *this;
}

Graph& Graph::operator=(const Graph& o) {
  if (this == &o) return *this;
  Graph tmp(o);
  *this = std::move(tmp);
  return *this;
}

Graph::NodeVector& Graph::nodesForUpdate() { return unshare(nodes_); }
OpIndex& Graph::opsForUpdate() { return unshare(opIndex_); }
std::vector<int32_t>& Graph::positionsForUpdate() const { return unshare(pos_); }
Graph::NameIndex* Graph::namesForUpdate() const {
  // A shared index is dropped, not cloned: a clone costs what a rebuild costs, and the rebuild
  // happens only if this graph looks a name up again.
  if (byName_ && byName_.use_count() > 1) byName_.reset();
  return byName_.get();
}

void Graph::indexAdd(const Node& n) {
  if (n.kind != NodeKind::Call) return;
  opsForUpdate().add(n.op, n.id);
}

void Graph::indexRemove(const Node& n) {
  if (n.kind != NodeKind::Call || opIndex_->nodes(n.op).empty()) return;
  opsForUpdate().remove(n.op, n.id);
}

NodeId Graph::append(Node node) {
  if (node.id == kInvalidNode) node.id = nextId_++;
  else nextId_ = std::max(nextId_, node.id + 1);
  auto p = std::make_shared<Node>(std::move(node));
  NodeId id = p->id;
  appendShared(std::move(p));
  return id;
}

void Graph::appendShared(NodePtr p) {
  const Node& n = *p;
  nextId_ = std::max(nextId_, n.id + 1);
  indexAdd(n);
  NodeVector& nodes = nodesForUpdate();
  if (posValid_) {
    std::vector<int32_t>& pos = positionsForUpdate();
    if (pos.size() <= n.id) pos.resize(n.id + 1, -1);
    pos[n.id] = int32_t(nodes.size());
  }
  if (NameIndex* names = namesForUpdate()) names->insert(n.name, n.id);
  if (UsersIndex* u = usersForUpdate()) u->addNode(n, true);
  nodes.push_back(std::move(p));
}

NodeId Graph::insertAt(size_t pos, Node node) {
  if (node.id == kInvalidNode) node.id = nextId_++;
  else nextId_ = std::max(nextId_, node.id + 1);
  auto p = std::make_shared<Node>(std::move(node));
  indexAdd(*p);
  if (NameIndex* names = namesForUpdate()) names->insert(p->name, p->id);
  if (UsersIndex* u = usersForUpdate()) u->addNode(*p, false);
  NodeId id = p->id;
  NodeVector& nodes = nodesForUpdate();
  pos = std::min(pos, nodes.size());
  nodes.insert(nodes.begin() + std::ptrdiff_t(pos), std::move(p));
  repositionFrom(pos);
  return id;
}

NodeId Graph::insertBefore(NodeId before, Node node) { return insertAt(position(before), std::move(node)); }
NodeId Graph::insertAfter(NodeId after, Node node) { return insertAt(position(after) + 1, std::move(node)); }

bool Graph::erase(NodeId id) {
  if (!contains(id)) return false;
  size_t p = position(id);
  const Node& n = *(*nodes_)[p];
  indexRemove(n);
  if (NameIndex* names = namesForUpdate()) names->erase(std::string_view(n.name));
  if (usersValid_) ensureUsers();  // pending edits first: the node is registered where they say
  if (UsersIndex* u = usersForUpdate()) u->removeNode(n);
  NodeVector& nodes = nodesForUpdate();
  nodes.erase(nodes.begin() + std::ptrdiff_t(p));
  positionsForUpdate()[id] = -1;
  repositionFrom(p);
  return true;
}

size_t Graph::eraseNodes(const std::unordered_set<NodeId>& ids) {
  const std::vector<NodeId> v(ids.begin(), ids.end());
  return eraseNodes(std::span<const NodeId>(v));
}

size_t Graph::eraseNodes(std::span<const NodeId> ids) {
  if (ids.empty()) return 0;
  std::vector<uint8_t> byId(nextId_, 0);
  for (NodeId id : ids)
    if (id < byId.size()) byId[id] = 1;
  return eraseMarked(byId);
}

size_t Graph::eraseMarked(const std::vector<uint8_t>& byId) {
  auto marked = [&](const NodePtr& p) { return p->id < byId.size() && byId[p->id]; };
  const size_t before = nodes_->size();
  if (usersValid_) ensureUsers();
  UsersIndex* users = usersForUpdate();
  NameIndex* names = namesForUpdate();
  NodeVector& nodes = nodesForUpdate();
  for (const NodePtr& p : nodes)
    if (marked(p)) {
      indexRemove(*p);
      if (names) names->erase(std::string_view(p->name));
      if (users) users->removeNode(*p);
    }
  nodes.erase(std::remove_if(nodes.begin(), nodes.end(), marked), nodes.end());
  invalidateOrder();
  return before - nodes.size();
}

void Graph::clear() {
  nodes_ = sharedEmpty<NodeVector>();
  opIndex_ = sharedEmpty<OpIndex>();
  byName_.reset();
  invalidateOrder();
  users_.reset();
  usersValid_ = false;
  constants_ = std::make_shared<ConstantMap>();
  subgraphs_.clear();
}

Graph Graph::shellCopy() const {
  Graph g{Shell{}};
  g.modelName = modelName;
  g.nextId_ = nextId_;
  g.constants_ = constants_;
  g.store_ = store_;
  for (const auto& [name, sg] : subgraphs_) g.subgraphs_.emplace(name, std::make_shared<Graph>(*sg));
  return g;
}

void Graph::reserveLike(const Graph& like) {
  nodesForUpdate().reserve(like.size() + 16);
  opsForUpdate().reserveLike(*like.opIndex_);
}

void Graph::repositionFrom(size_t from) {
  if (!posValid_) return;
  std::vector<int32_t>& pos = positionsForUpdate();
  if (pos.size() < nextId_) pos.resize(nextId_, -1);
  const NodeVector& nodes = *nodes_;
  for (size_t i = from; i < nodes.size(); ++i) pos[nodes[i]->id] = int32_t(i);
}

void Graph::ensurePositions() const {
  if (posValid_) return;
  if (!pos_ || pos_.use_count() > 1) pos_ = std::make_shared<std::vector<int32_t>>();
  pos_->assign(nextId_, -1);
  const NodeVector& nodes = *nodes_;
  for (size_t i = 0; i < nodes.size(); ++i) (*pos_)[nodes[i]->id] = int32_t(i);
  posValid_ = true;
}

bool Graph::contains(NodeId id) const {
  ensurePositions();
  return id < pos_->size() && (*pos_)[id] >= 0;
}

const NodePtr* Graph::findPtr(NodeId id) const {
  ensurePositions();
  if (id >= pos_->size() || (*pos_)[id] < 0) return nullptr;
  return &(*nodes_)[size_t((*pos_)[id])];
}

const Node* Graph::find(NodeId id) const {
  const NodePtr* p = findPtr(id);
  return p ? p->get() : nullptr;
}

const Node& Graph::node(NodeId id) const {
  const Node* n = find(id);
  assert(n && "Graph::node: unknown id");
  return *n;
}

size_t Graph::position(NodeId id) const {
  ensurePositions();
  assert(id < pos_->size() && (*pos_)[id] >= 0);
  return size_t((*pos_)[id]);
}

NodeId Graph::findByName(std::string_view name) const {
  if (!byName_) {
    auto names = std::make_shared<NameIndex>();
    names->reserve(nodes_->size());
    for (const NodePtr& n : *nodes_) names->insert(n->name, n->id);
    byName_ = std::move(names);
  }
  const NodeId* id = byName_->find(name);
  return id ? *id : kInvalidNode;
}

Node& Graph::cow(size_t pos) {
  NodePtr& p = nodesForUpdate()[pos];
  if (p.use_count() > 1) {
    NodePtr copy = std::make_shared<Node>(*p);
    // The name index holds views into the names of the nodes this graph owns: re-point the
    // key at the copy before the shared version (which another graph may free) is released.
    if (NameIndex* names = namesForUpdate()) {
      names->erase(std::string_view(p->name));
      names->insert(copy->name, copy->id);
    }
    p = std::move(copy);
  }
  return const_cast<Node&>(*p);  // every Node is created non-const by make_shared<Node>
}

Node& Graph::mutableNode(NodeId id) {
  const size_t p = position(id);
  // The caller may rewire the node: the users index diffs its inputs at the next read.
  if (UsersIndex* u = usersForUpdate()) u->beginEdit(*(*nodes_)[p]);
  return cow(p);
}

void Graph::setOp(NodeId id, OpId op, std::string target) {
  size_t p = position(id);
  indexRemove(*(*nodes_)[p]);
  Node& n = cow(p);
  n.op = op;
  n.target = std::move(target);
  indexAdd(n);
}

void Graph::rename(NodeId id, std::string name) {
  // Copy first: cow re-points the key at the copy's name, which is then the one replaced
  // (a key erased before the copy would be re-added by cow, viewing the old string).
  Node& n = cow(position(id));
  NameIndex* names = namesForUpdate();
  if (names) names->erase(std::string_view(n.name));
  n.name = std::move(name);
  if (names) names->insert(n.name, n.id);
}

const TensorMeta& Graph::meta(ValueRef r) const {
  static const TensorMeta kNone;
  const Node* n = find(r.node);
  if (!n) return kNone;
  return n->meta(r.output);
}

std::span<const NodeId> Graph::nodesOfOp(OpId op) const {
  return opIndex_->nodes(op);
}

std::vector<OpId> Graph::opsPresent() const {
  return opIndex_->present();
}

UsersIndex* Graph::usersForUpdate() const {
  if (!usersValid_ || !users_) return nullptr;
  if (users_.use_count() > 1) users_ = std::make_shared<UsersIndex>(*users_);
  users_->setIdLimit(nextId_);
  return users_.get();
}

void Graph::ensureUsers() const {
  if (usersValid_ && users_) {
    if (users_->hasPending()) usersForUpdate()->flush([&](NodeId id) { return find(id); });
    return;
  }
  auto fresh = std::make_shared<UsersIndex>();
  fresh->build(*nodes_, nextId_);
  users_ = std::move(fresh);
  usersValid_ = true;
}

std::span<const NodeId> Graph::users(NodeId id) const {
  ensureUsers();
  if (users_->sorted(id)) return users_->rawUsers(id);
  ensurePositions();
  return usersForUpdate()->sortedUsers(id, *pos_);
}

const Node* Graph::outputNode() const {
  for (auto it = nodes_->rbegin(); it != nodes_->rend(); ++it)
    if ((*it)->kind == NodeKind::Output) return it->get();
  return nullptr;
}

const Graph::ConstantMap& Graph::constants() const {
  static const ConstantMap kEmpty;
  return constants_ ? *constants_ : kEmpty;  // a moved-from graph has no map
}

const Constant* Graph::constant(std::string_view name) const { return constants_ ? constants_->find(name) : nullptr; }

void Graph::setConstant(Constant c) {
  if (c.contentHash == 0) c.contentHash = constantContentHash(c);
  if (!constants_) constants_ = std::make_shared<ConstantMap>();
  unshare(constants_).set(std::move(c));
}

bool Graph::eraseConstant(std::string_view name) {
  if (!constants_ || !constants_->find(name)) return false;
  return unshare(constants_).erase(name);
}

size_t Graph::eraseConstants(std::span<const std::string> names) {
  if (!constants_ || std::ranges::none_of(names, [&](const std::string& n) { return constants_->find(n); })) return 0;
  return unshare(constants_).erase(names);
}

GraphSignature Graph::signature() const {
  GraphSignature s;
  for (const NodePtr& p : *nodes_) {
    const Node& n = *p;
    if (n.kind == NodeKind::Placeholder) {
      s.userInputs.push_back(n.id);
    } else if (n.kind == NodeKind::GetAttr) {
      const Constant* c = constant(n.target);
      ConstantKind k = c ? c->kind : ConstantKind::Constant;
      (k == ConstantKind::Parameter ? s.parameters : k == ConstantKind::Buffer ? s.buffers : s.constants)
          .push_back(n.id);
    } else if (n.kind == NodeKind::Output && !n.args.empty()) {
      if (auto* l = n.args[0].asRefList()) s.outputs = *l;
      else if (auto* r = n.args[0].ref()) s.outputs.push_back(*r);
    }
  }
  return s;
}

void suffixedName(std::string_view base, size_t i, std::string& out) {
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, i);
  (void)ec;
  out.assign(base);
  out += '_';
  out.append(digits, end);
}

std::string Graph::uniqueName(std::string_view base) const {
  if (findByName(base) == kInvalidNode) return std::string(base);
  // Suffixes are tried from the last one handed out for this base, so a pass that creates
  // thousands of nodes from one base name stays linear (names are never reused anyway).
  auto hint = nameSuffixHint_.find(base);
  if (hint == nameSuffixHint_.end()) hint = nameSuffixHint_.emplace(std::string(base), size_t(1)).first;
  std::string cand;
  for (size_t i = std::max<size_t>(hint->second, 1);; ++i) {
    suffixedName(base, i, cand);
    if (findByName(cand) == kInvalidNode) {
      hint->second = i + 1;
      return cand;
    }
  }
}

void Graph::buildIndices() const {
  ensurePositions();
  ensureUsers();
  usersForUpdate()->sortAll(*pos_);
  findByName("");
}

Status Graph::validate() const {
  std::vector<uint8_t> seen(nextId_, 0);
  std::unordered_map<std::string_view, NodeId> names;
  const NodeVector& nodes = *nodes_;
  names.reserve(nodes.size());
  size_t outputs = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = *nodes[i];
    if (n.id >= nextId_) return Status::error(fmt::format("node '{}': id {} out of range", n.name, n.id));
    if (seen[n.id]) return Status::error(fmt::format("node '{}': duplicate id {}", n.name, n.id));
    if (!names.emplace(n.name, n.id).second)
      return Status::error(fmt::format("node '{}': duplicate node name", n.name));
    Status st;
    n.forEachInput([&](const ValueRef& r) {
      if (!st.isOk()) return;
      const Node* src = find(r.node);
      if (!src) {
        st = Status::error(fmt::format("node '{}': reads value of node id {} which does not exist", n.name, r.node));
        return;
      }
      if (!seen[r.node]) {
        st = Status::error(fmt::format("node '{}': reads '{}' which does not come before it (cycle or bad order)",
                                       n.name, src->name));
        return;
      }
      if (src->kind == NodeKind::Output) {
        st = Status::error(fmt::format("node '{}': reads the output node", n.name));
        return;
      }
      if (r.output > 0 && r.output >= src->outputs.size())
        st = Status::error(fmt::format("node '{}': reads output {} of '{}' which has {} outputs", n.name, r.output,
                                       src->name, src->outputs.size()));
    });
    LS_RETURN_IF_ERROR(st);
    if (n.kind == NodeKind::Output) {
      ++outputs;
      if (i + 1 != nodes.size()) return Status::error(fmt::format("node '{}': output node is not last", n.name));
    }
    if (n.kind == NodeKind::Call && n.op == kNoOp)
      return Status::error(fmt::format("node '{}': call_function without an op", n.name));
    seen[n.id] = 1;
  }
  if (outputs != 1 && !nodes.empty())
    return Status::error(fmt::format("graph has {} output nodes, expected exactly 1", outputs));
  return Status::ok();
}

}  // namespace ls::ir
