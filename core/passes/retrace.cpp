// Retrace engine: rebuild in order, hot nodes through the rewrite hook, cold nodes fast-copied
// (shared, same id), downstream re-inference wherever a value's metadata changed.
#include "core/passes/retrace.h"

#include "core/passes/editor.h"
#include "core/ops/registry.h"

#include <fmt/format.h>

#include <deque>

#include "core/util/flat_view_map.h"

namespace ls::passes {

namespace {
enum State : uint8_t { kSame = 0, kMetaChanged = 1, kReplaced = 2, kReplacedMetaChanged = 3 };

std::string defaultHint(std::string_view op) {
  // "aten.add.Tensor" -> "add"; "tosa.TRANSPOSE.default" -> "transpose"
  auto a = op.find('.');
  std::string_view mid = op.substr(a == std::string_view::npos ? 0 : a + 1);
  mid = mid.substr(0, mid.find('.'));
  std::string s(mid);
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s.empty() ? "node" : s;
}
}  // namespace

class RetraceEngine {
 public:
  RetraceEngine(RetracePass* pass, const ir::Graph& src, PassContext& ctx)
      : pass_(pass), src_(src), ctx_(ctx), out_(src.shellCopy()), getitem_(ir::internOp("operator.getitem")) {}

  Result<bool> run() {
    state_.assign(src_.nextId(), kSame);
    const bool fast = ctx_.engine.fastCopy;
    ops::InferenceCache* cache = ctx_.inferenceCache();
    std::vector<ir::TensorMeta> metas;
    for (const ir::NodePtr& p : src_.nodes()) {
      const ir::Node& n = *p;
      if (ctx_.cancel && ctx_.cancel->load(std::memory_order_relaxed)) return Status::error("cancelled");
      int inState = 0;  // 0 untouched inputs, 1 rewire only, 2 re-infer
      // Until something changed every state is kSame: no input to look at.
      if (changed_)
        n.forEachInput([&](const ir::ValueRef& r) {
          uint8_t s = r.node < state_.size() ? state_[r.node] : uint8_t(kSame);
          if (s == kMetaChanged || s == kReplacedMetaChanged) inState = 2;
          else if (s == kReplaced && inState < 1) inState = 1;
        });
      const bool hot = pass_ && n.kind == ir::NodeKind::Call && pass_->isTargeted(n.op) &&
                       !n.hasFlag(ir::kFlagOpaque) && pass_->allowedToTransform(n);
      if (!hot) {
        if (changed_ && n.kind == ir::NodeKind::Call && n.op == getitem_ && !n.args.empty() && n.args[0].ref()) {
          ir::NodeId prod = n.args[0].ref()->node;
          if (prod < state_.size() && (state_[prod] == kReplaced || state_[prod] == kReplacedMetaChanged)) {
            materializePrefix();
            LS_RETURN_IF_ERROR(foldGetitem(n, prod));
            continue;
          }
        }
        if (inState == 0) {
          if (fast) {
            // The same node version, in the same place: while nothing has changed, the output
            // is the source's prefix and is not built (materializePrefix does it on a change).
            if (sharingPrefix_) ++prefix_;
            else out_.appendShared(p);
            ++ctx_.counters.fastCopied;
            continue;
          }
          materializePrefix();
          if (n.kind == ir::NodeKind::Call) {
            // Baseline mode: every node re-inferred; an unchanged result keeps the node version.
            Status st = ops::inferNode(out_, n, metas, cache);
            if (!st.isOk()) return st;
            keepQuantAnnotations(n.outputs, metas);
            ++ctx_.counters.reinferred;
            if (metas == n.outputs) {
              out_.appendShared(p);
              continue;
            }
          }
        }
        materializePrefix();
        // Copied once, into the node's final place (no temporary to move from and destroy).
        auto owned = std::make_shared<ir::Node>(n);
        ir::Node& copy = *owned;
        LS_RETURN_IF_ERROR(rewire(copy));
        if (copy.kind == ir::NodeKind::Call && (inState == 2 || !fast)) {
          Status st = ops::inferNode(out_, copy, metas, cache);
          if (!st.isOk()) return st;
          keepQuantAnnotations(copy.outputs, metas);
          ++ctx_.counters.reinferred;
          if (metas != copy.outputs) {
            state_[n.id] = kMetaChanged;
            changed_ = true;
            copy.outputs = metas;
          }
        } else if (copy.kind == ir::NodeKind::Output) {
          refreshOutputMeta(copy);
          ++ctx_.counters.fastCopied;
        } else {
          ++ctx_.counters.fastCopied;
        }
        out_.appendShared(std::move(owned));
        continue;
      }
      // Hot node: the pass decides.
      materializePrefix();
      ++ctx_.counters.hot;
      ir::Node copy = n;
      LS_RETURN_IF_ERROR(rewire(copy));
      const ir::NodeId firstNew = out_.nextId();
      Rewriter rw(*this, copy, ctx_, firstNew);
      Status st = pass_->rewrite(rw);
      if (!st.isOk()) return Status::error(fmt::format("node '{}': {}", n.name, st.message()));
      if (rw.replaced_) {
        if (rw.replacement_.size() < std::max<size_t>(1, n.outputs.size()))
          rw.replacement_.resize(std::max<size_t>(1, n.outputs.size()));
        bool metaChanged = false;
        for (size_t i = 0; i < n.outputs.size(); ++i) {
          if (rw.replacement_[i].isNone()) continue;
          inheritQuant(out_, n.outputs[i], rw.replacement_[i]);
          // ... and so do the values it was moved from in this rewrite (select -> SLICE + RESHAPE).
          for (ir::ValueRef v = rw.replacement_[i]; v.node >= firstNew && out_.meta(v).quant;) {
            const ir::Node& e = out_.node(v.node);
            if (!ops::movesValuesOnly(e.op) || e.args.empty() || !e.args[0].ref()) break;
            v = *e.args[0].ref();
            if (v.node < firstNew) break;
            inheritQuant(out_, n.outputs[i], v);
          }
          if (out_.meta(rw.replacement_[i]) != n.outputs[i]) metaChanged = true;
        }
        repl_[n.id] = std::move(rw.replacement_);
        state_[n.id] = metaChanged ? kReplacedMetaChanged : kReplaced;
        changed_ = true;
        continue;
      }
      if (!rw.modified_ && inState == 0 && fast) {
        // Hot but untouched: still dispatched through inference, as upstream does.
        Status inf = ops::inferNode(out_, n, metas, cache);
        if (!inf.isOk()) return inf;
        keepQuantAnnotations(n.outputs, metas);
        if (metas == n.outputs) {
          out_.appendShared(p);
          continue;
        }
      }
      Status inf = ops::inferNode(out_, copy, metas, cache);
      if (!inf.isOk()) return inf;
      keepQuantAnnotations(n.outputs, metas);
      if (metas != n.outputs) {
        state_[n.id] = kMetaChanged;
        changed_ = true;
      }
      if (rw.modified_) changed_ = true;
      copy.outputs = metas;
      out_.append(std::move(copy));
    }
    // Nested graphs (control-flow bodies, delegate subgraphs) go through the same engine.
    for (auto& [name, sg] : out_.subgraphs()) {
      RetraceEngine sub(pass_, *sg, ctx_);
      auto r = sub.run();
      if (!r) return Status::error(fmt::format("subgraph '{}': {}", name, r.message()));
      if (r.value()) {
        materializePrefix();
        *sg = std::move(sub.out_);
        changed_ = true;
      }
    }
    if (changed_) materializePrefix();
    return changed_;
  }

  ir::Graph& out() { return out_; }
  const ir::Graph& source() const { return src_; }

  /// A name no node of the new graph has. Its names are the source's (kept and copied nodes
  /// keep theirs) and the ones handed out here, so those two are checked: the graph being
  /// built needs no name index of its own.
  bool nameTaken(std::string_view name) const {
    return src_.findByName(name) != ir::kInvalidNode || emittedNames_.contains(name);
  }
  std::string freshName(std::string_view base) {
    if (!nameTaken(base)) return remember(std::string(base));
    // Resume from the last suffix handed out for this base: a pass emitting thousands of
    // nodes with one hint stays linear.
    size_t* next = nextSuffix_.find(base);
    if (!next) next = &nextSuffix_.findOrInsert(keep(std::string(base)), 1);
    std::string c;
    for (size_t i = std::max<size_t>(*next, 1);; ++i) {
      ir::suffixedName(base, i, c);
      if (!nameTaken(c)) {
        *next = i + 1;
        return remember(std::move(c));
      }
    }
  }

  Result<ir::ValueRef> emit(const ir::Node& origin, std::string_view op, std::vector<ir::Arg> args,
                            std::vector<ir::Kwarg> kwargs, std::string_view hint) {
    ir::Node n;
    n.kind = ir::NodeKind::Call;
    n.op = ir::internOp(op);
    n.target = std::string(op);
    n.name = freshName(hint.empty() ? defaultHint(op) : hint);
    n.args = std::move(args);
    n.kwargs = std::move(kwargs);
    n.module = origin.module;
    n.provenance.createdBy = pass_ ? pass_->name() : "";
    n.provenance.derivedFrom = {origin.id};
    Status st = ops::inferNode(out_, n, n.outputs, ctx_.inferenceCache());
    if (!st.isOk()) return st;
    changed_ = true;
    return ir::ValueRef{out_.append(std::move(n)), 0};
  }

  ir::ValueRef addConstant(const ir::Node& origin, ir::Constant c, std::string_view hint) {
    std::string name = freshName(hint.empty() ? "const" : hint);
    // A constant of either graph (one map while no constant was added yet) takes the name.
    auto constantTaken = [&](std::string_view n) {
      return out_.constant(n) || (&out_.constants() != &src_.constants() && src_.constant(n));
    };
    if (constantTaken(name)) {
      for (size_t i = 1;; ++i) {
        std::string cand = fmt::format("{}_c{}", name, i);
        if (!constantTaken(cand) && !nameTaken(cand)) {
          name = remember(std::move(cand));
          break;
        }
      }
    }
    c.name = name;
    c.contentHash = 0;
    ir::Node n;
    n.kind = ir::NodeKind::GetAttr;
    n.name = name;
    n.target = name;
    n.outputs.push_back(ir::TensorMeta(c.dtype, c.shape));
    n.module = origin.module;  // a constant a rewrite makes belongs to the module it rewrites
    n.provenance.createdBy = pass_ ? pass_->name() : "";
    n.provenance.derivedFrom = {origin.id};
    out_.setConstant(std::move(c));
    changed_ = true;
    return ir::ValueRef{out_.append(std::move(n)), 0};
  }

 private:
  /// Stores `s` for the lifetime of the engine and returns a view of it.
  std::string_view keep(std::string s) { return nameStore_.emplace_back(std::move(s)); }
  /// Records `name` as handed out and returns it.
  std::string remember(std::string name) {
    emittedNames_.insert(keep(name), 1);
    return name;
  }

  Status mapRef(ir::ValueRef& r, const ir::Node& user) {
    if (r.node >= state_.size()) return Status::ok();  // refers to a node created in this retrace
    uint8_t s = state_[r.node];
    if (s != kReplaced && s != kReplacedMetaChanged) return Status::ok();
    const auto& rep = repl_[r.node];
    ir::ValueRef to = r.output < rep.size() ? rep[r.output] : ir::ValueRef{};
    if (to.isNone()) {
      const ir::Node* old = src_.find(r.node);
      return Status::error(fmt::format("node '{}' reads output {} of '{}', which pass '{}' removed without a replacement",
                                       user.name, r.output, old ? old->name : "?", pass_ ? pass_->name() : "?"));
    }
    r = to;
    return Status::ok();
  }

  /// Appends the source nodes fast-copied so far without being built (see the fast path).
  void materializePrefix() {
    if (!sharingPrefix_) return;
    sharingPrefix_ = false;
    out_.reserveLike(src_);
    for (size_t i = 0; i < prefix_; ++i) out_.appendShared(src_.ptrAt(i));
  }

  Status rewire(ir::Node& n) {
    Status st;
    n.forEachInputMutable([&](ir::ValueRef& r) {
      if (st.isOk()) st = mapRef(r, n);
    });
    return st;
  }

  void refreshOutputMeta(ir::Node& outNode) {
    if (outNode.args.empty()) return;
    if (auto* l = outNode.args[0].asRefList()) {
      outNode.outputs.clear();
      for (const ir::ValueRef& r : *l) outNode.outputs.push_back(out_.meta(r));
    }
  }

  Status foldGetitem(const ir::Node& n, ir::NodeId prod) {
    const ir::Arg& idxArg = n.args.size() > 1 ? n.args[1] : ir::Arg();
    const int64_t* idx = idxArg.asInt();
    const auto& rep = repl_[prod];
    if (!idx || *idx < 0 || size_t(*idx) >= rep.size() || rep[size_t(*idx)].isNone())
      return Status::error(fmt::format("node '{}' takes an output of '{}', which pass '{}' removed without a replacement",
                                       n.name, src_.node(prod).name, pass_ ? pass_->name() : "?"));
    ir::ValueRef to = rep[size_t(*idx)];
    repl_[n.id] = {to};
    state_[n.id] = out_.meta(to) != n.meta(0) ? kReplacedMetaChanged : kReplaced;
    changed_ = true;
    return Status::ok();
  }

  RetracePass* pass_;
  const ir::Graph& src_;
  PassContext& ctx_;
  ir::Graph out_;
  ir::OpId getitem_;
  std::vector<uint8_t> state_;
  std::unordered_map<ir::NodeId, std::vector<ir::ValueRef>> repl_;
  /// Owns the characters of emittedNames_'s and nextSuffix_'s keys (a deque never moves them).
  std::deque<std::string> nameStore_;
  /// Next suffix to try per base name (freshName).
  FlatViewMap<size_t> nextSuffix_;
  /// Names given to nodes of this retrace (freshName).
  FlatViewMap<uint8_t> emittedNames_;
  bool changed_ = false;
  bool sharingPrefix_ = true;  // out_ is src_'s first prefix_ nodes, not yet appended
  size_t prefix_ = 0;
};

const ir::Graph& Rewriter::graph() const { return engine_.out(); }
const ir::Graph& Rewriter::sourceGraph() const { return engine_.source(); }
void Rewriter::setQuant(ir::ValueRef v, std::shared_ptr<const ir::QuantParams> q) {
  if (v.node < firstNew_ || !engine_.out().contains(v.node)) return;
  engine_.out().mutableNode(v.node).outputs[v.output].quant = std::move(q);
}
const ir::TensorMeta& Rewriter::meta(ir::ValueRef r) const { return engine_.out().meta(r); }
const ir::TensorMeta& Rewriter::inputMeta(size_t i) const {
  static const ir::TensorMeta kNone;
  if (i >= node_.args.size() || !node_.args[i].ref()) return kNone;
  return meta(*node_.args[i].ref());
}

Result<ir::ValueRef> Rewriter::emit(std::string_view op, std::vector<ir::Arg> args, std::vector<ir::Kwarg> kwargs,
                                    std::string_view nameHint) {
  return engine_.emit(node_, op, std::move(args), std::move(kwargs), nameHint);
}

ir::ValueRef Rewriter::addConstant(ir::Constant c, std::string_view nameHint) {
  return engine_.addConstant(node_, std::move(c), nameHint);
}

void Rewriter::rewriteInPlace(std::string_view op, std::vector<ir::Arg> args, std::vector<ir::Kwarg> kwargs) {
  node_.op = ir::internOp(op);
  node_.target = std::string(op);
  node_.args = std::move(args);
  node_.kwargs = std::move(kwargs);
  modified_ = true;
}

void Rewriter::replaceWith(std::vector<ir::ValueRef> values) {
  replacement_ = std::move(values);
  replaced_ = true;
}

Result<bool> retrace(RetracePass* pass, ir::Graph& g, PassContext& ctx) {
  RetraceEngine e(pass, g, ctx);
  auto r = e.run();
  if (!r) return r.status();
  if (r.value()) g = std::move(e.out());
  return r.value();
}

PassResult RetracePass::runImpl(ir::Graph& g, PassContext& ctx) {
  auto r = retrace(this, g, ctx);
  if (!r) return PassResult::failed(r.message());
  return PassResult::of(r.value());
}

}  // namespace ls::passes
