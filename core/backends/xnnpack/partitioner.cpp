// XNNPACK partitioner: support table, cycle-free grouping, delegate subgraph construction.
#include "core/backends/xnnpack/partitioner.h"

#include <fmt/format.h>

#include <algorithm>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "core/backends/xnnpack/xnnpack_ops.h"
#include "core/backends/xnnpack/xnnpack_util.h"
#include "core/exec/kernel.h"
#include "core/ops/registry.h"
#include "core/ir/op_ref.h"

namespace ls::xnnpack {

namespace {

constexpr std::string_view kDelegatePrefix = "xnnpack_delegate";

/// Upstream's op configs (backends/xnnpack/partition/config), by edge-dialect op name, plus
/// the ops this pipeline creates (sdpa, clamp-fused ops) and transpose_copy, which the edge
/// dialect would have turned into permute_copy.
const std::unordered_set<std::string>& supportedOps() {
  static const std::unordered_set<std::string> kOps = {
      "aten.abs.default", "aten.add.Tensor", "aten.avg_pool2d.default", "aten.bmm.default", "aten.cat.default",
      "aten.ceil.default", "aten.clone.default", "aten.constant_pad_nd.default", "aten.clamp.default",
      "aten.div.Tensor", "aten.exp.default", "aten.floor.default", "aten.gelu.default", "aten.hardtanh.default",
      "aten.hardswish.default", "aten.leaky_relu.default", "aten.log.default", "aten.maximum.default",
      "aten.max_pool2d.default", "aten.mean.dim", "aten.minimum.default", "aten.mul.Tensor", "aten.neg.default",
      "aten.permute_copy.default", "aten.transpose_copy.int", "aten.pow.Tensor_Scalar", "aten.rsqrt.default",
      "aten.relu.default", "aten.tanh.default", "aten.sigmoid.default", "aten.sin.default", "aten.cos.default",
      "aten.slice_copy.Tensor", "aten._softmax.default", "aten.sqrt.default", "aten.sub.Tensor",
      "aten.unsqueeze_copy.default", "aten.upsample_bilinear2d.vec", "aten.view_copy.default",
      "aten.linear.default", "aten.convolution.default", "aten.addmm.default", "aten.mm.default",
      "aten._native_batch_norm_legit_no_training.default", "aten.max.dim", "aten.amax.default",
      "aten.prelu.default", "quantized_decomposed.quantize_per_tensor.default",
      "quantized_decomposed.dequantize_per_tensor.default", "quantized_decomposed.quantize_per_tensor.tensor",
      "quantized_decomposed.dequantize_per_tensor.tensor", "quantized_decomposed.quantize_per_channel.default",
      "quantized_decomposed.dequantize_per_channel.default", "aten.scaled_dot_product_attention.default",
      "xnnpack.convolution_clamp.default", "xnnpack.linear_clamp.default", "xnnpack.add_clamp.Tensor",
      "xnnpack.sub_clamp.Tensor", "xnnpack.mul_clamp.Tensor",
  };
  return kOps;
}

bool isQuantOp(const std::string& op) { return op.rfind("quantized_decomposed.", 0) == 0; }

bool dtypeOk(ir::DType t) { return t == ir::DType::Float32 || t == ir::DType::Float16; }

}  // namespace

std::optional<std::string> unsupportedReason(const ir::Graph& g, const ir::Node& n) {
  if (!n.isCall()) return std::string("not an op");
  const std::string& op = ir::opName(n.op);
  if (op == "operator.getitem") return std::string("getitem of an undelegated multi-output op");
  if (n.hasFlag(ir::kFlagOpaque)) return std::string("op unknown to the registry");
  if (!supportedOps().count(op)) {
    if (op.size() > 7 && op.compare(op.size() - 7, 7, ".Scalar") == 0) {
      std::string tensorForm = op.substr(0, op.size() - 7) + ".Tensor";
      if (supportedOps().count(tensorForm))
        return fmt::format("{} is not in the XNNPACK table (only {}; LiftConstantScalarOperandsPass converts it)",
                           op, tensorForm);
    }
    return std::string("not in the XNNPACK supported-op table");
  }
  // Python numbers where the schema expects a tensor (torch 1.13's `x * 0.5`).
  if (const ops::OpSchema* s = ops::OpRegistry::instance().find(n.op)) {
    for (size_t i = 0; i < s->args.size() && i < n.args.size(); ++i)
      if (s->args[i].type == ops::ArgType::Tensor && n.args[i].isNumber())
        return std::string("Python-scalar operand (LiftConstantScalarOperandsPass lifts it into a constant)");
  }
  if (!isQuantOp(op)) {
    std::optional<std::string> bad;
    n.forEachInput([&](const ir::ValueRef& r) {
      const ir::DType t = g.meta(r).dtype;
      if (!bad && g.meta(r).isTensor() && !dtypeOk(t)) bad = fmt::format("input dtype {} (float32/float16 only)", ir::dtypeName(t));
    });
    if (bad) return bad;
    for (const ir::TensorMeta& m : n.outputs)
      if (m.isTensor() && !dtypeOk(m.dtype) && !(n.op == LS_OP("aten.max.dim") && m.dtype == ir::DType::Int64))
        return fmt::format("output dtype {} (float32/float16 only)", ir::dtypeName(m.dtype));
  }
  const ir::TensorMeta& in0 = n.args.empty() || !n.args[0].ref() ? n.meta(0) : g.meta(*n.args[0].ref());
  if (n.op == LS_OP("aten._softmax.default")) {
    const int64_t d = n.args.size() > 1 && n.args[1].asInt() ? *n.args[1].asInt() : 0;
    if ((d < 0 ? d + in0.rank() : d) != in0.rank() - 1) return std::string("softmax over a dim other than the last");
  } else if (n.op == LS_OP("aten.mean.dim")) {
    const ir::Arg* dims = argOr(n, 1, "dim");
    const ir::Arg* keep = argOr(n, 2, "keepdim");
    bool ok = in0.rank() == 4 && dims && dims->asIntList() && dims->asIntList()->size() == 2 && keep &&
              keep->asBool() && *keep->asBool();
    if (ok)
      for (int64_t d : *dims->asIntList()) ok = ok && (d < 0 ? d + 4 : d) >= 2;
    if (!ok) return std::string("mean.dim only over H and W of a 4-D input with keepdim");
  } else if (n.op == LS_OP("aten.cat.default")) {
    const ir::Arg* l = argOr(n, 0, "tensors");
    if (l && l->asRefList() && l->asRefList()->size() > 5) return std::string("cat with more than 5 inputs");
  } else if (n.op == LS_OP("aten.convolution.default") || n.op == LS_OP("xnnpack.convolution_clamp.default")) {
    if (in0.rank() != 3 && in0.rank() != 4) return std::string("only 1-D and 2-D convolutions");
  } else if (n.op == LS_OP("aten.scaled_dot_product_attention.default")) {
    if (in0.rank() < 3 || in0.rank() > 4) return std::string("sdpa only on 3-D/4-D inputs");
  }
  return std::nullopt;
}

PartitionReport partitionReport(const ir::Graph& g) {
  PartitionReport r;
  const ir::OpId delegate = ir::internOp(ops::kCallDelegateOp);
  for (const ir::NodePtr& p : g.nodes()) {
    if (!p->isCall()) continue;
    if (p->op == delegate) {
      const std::string* name = p->args.empty() ? nullptr : p->args[0].asString();
      if (!name || name->rfind(kDelegatePrefix, 0) != 0) continue;
      auto it = g.subgraphs().find(*name);
      if (it == g.subgraphs().end()) continue;
      ++r.delegates;
      for (const ir::NodePtr& q : it->second->nodes()) r.delegatedNodes += q->isCall();
      continue;
    }
    const std::string& op = ir::opName(p->op);
    ++r.undelegated[op];
    if (!r.reasons.count(op)) r.reasons[op] = unsupportedReason(g, *p).value_or("supported, but not partitioned");
  }
  return r;
}

// ---------------------------------------------------------------- partition pass

namespace {

/// Growable bit set over raw partition ids.
struct Bits {
  std::vector<uint64_t> w;
  void set(size_t i) {
    if (w.size() <= i / 64) w.resize(i / 64 + 1, 0);
    w[i / 64] |= uint64_t(1) << (i % 64);
  }
  void unite(const Bits& o) {
    if (w.size() < o.w.size()) w.resize(o.w.size(), 0);
    for (size_t i = 0; i < o.w.size(); ++i) w[i] |= o.w[i];
  }
  bool intersects(const Bits& o) const {
    const size_t n = std::min(w.size(), o.w.size());
    for (size_t i = 0; i < n; ++i)
      if (w[i] & o.w[i]) return true;
    return false;
  }
};

struct Assignment {
  std::vector<int> part;  ///< by NodeId: root partition id, -1 when not delegated
  int count = 0;          ///< raw ids used
};

/// Assigns supported call nodes to partitions (see XnnpackPartitionPass).
Assignment assign(const ir::Graph& g) {
  const size_t N = g.nextId();
  std::vector<int> raw(N, -1);
  std::vector<Bits> anc(N);
  std::vector<int> parent;          // union-find over raw ids
  std::vector<Bits> rawBits, ancP;  // by root
  auto find = [&](int x) {
    while (parent[size_t(x)] != x) x = parent[size_t(x)] = parent[size_t(parent[size_t(x)])];
    return x;
  };
  for (const ir::NodePtr& p : g.nodes()) {
    const ir::Node& n = *p;
    if (n.kind == ir::NodeKind::Placeholder || n.kind == ir::NodeKind::GetAttr || n.kind == ir::NodeKind::Output)
      continue;
    Bits a;
    std::vector<int> cands;
    n.forEachInput([&](const ir::ValueRef& r) {
      if (r.node >= N) return;
      a.unite(anc[r.node]);
      if (raw[r.node] >= 0) {
        a.set(size_t(raw[r.node]));
        const int root = find(raw[r.node]);
        if (std::find(cands.begin(), cands.end(), root) == cands.end()) cands.push_back(root);
      }
    });
    if (unsupportedReason(g, n)) {
      anc[n.id] = std::move(a);
      continue;
    }
    std::vector<int> S;
    Bits sRaw;
    for (int c : cands) {
      bool ok = true;
      for (int s : S) ok = ok && !ancP[size_t(c)].intersects(rawBits[size_t(s)]) && !ancP[size_t(s)].intersects(rawBits[size_t(c)]);
      if (!ok) continue;
      Bits tRaw = sRaw;
      tRaw.unite(rawBits[size_t(c)]);
      n.forEachInput([&](const ir::ValueRef& r) {
        if (!ok || r.node >= N) return;
        if (raw[r.node] >= 0) {
          const int root = find(raw[r.node]);
          if (root == c || std::find(S.begin(), S.end(), root) != S.end()) return;
        }
        Bits incl = anc[r.node];
        if (raw[r.node] >= 0) incl.set(size_t(raw[r.node]));
        if (incl.intersects(tRaw)) ok = false;
      });
      if (!ok) continue;
      S.push_back(c);
      sRaw = std::move(tRaw);
    }
    int root;
    if (S.empty()) {
      root = int(parent.size());
      parent.push_back(root);
      rawBits.emplace_back();
      rawBits.back().set(size_t(root));
      ancP.emplace_back();
    } else {
      root = S[0];
      for (size_t i = 1; i < S.size(); ++i) {
        parent[size_t(S[i])] = root;
        rawBits[size_t(root)].unite(rawBits[size_t(S[i])]);
        ancP[size_t(root)].unite(ancP[size_t(S[i])]);
      }
    }
    ancP[size_t(root)].unite(a);
    raw[n.id] = root;
    anc[n.id] = std::move(a);
  }
  Assignment out;
  out.part.assign(N, -1);
  for (size_t i = 0; i < N; ++i)
    if (raw[i] >= 0) out.part[i] = find(raw[i]);
  out.count = int(parent.size());
  return out;
}

uint64_t refKey(ir::ValueRef r) { return (uint64_t(r.node) << 32) | r.output; }

}  // namespace

XnnpackPartitionPass::XnnpackPartitionPass()
    : Pass("XnnpackPartitionPass", "Groups XNNPACK-supported nodes into delegate subgraphs (call_delegate nodes)") {
  delegates_ = stat("delegates", "delegate subgraphs created");
  delegated_ = stat("delegated_nodes", "call nodes moved into delegate subgraphs");
  undelegated_ = stat("undelegated_nodes", "call nodes left outside delegates");
}

ShouldRun XnnpackPartitionPass::shouldRunImpl(const ir::Graph& g, const passes::PassContext&) const {
  const ir::OpId delegate = ir::internOp(ops::kCallDelegateOp);
  for (const ir::NodePtr& p : g.nodes())
    if (p->isCall() && p->op != delegate && !unsupportedReason(g, *p)) return ShouldRun::yes();
  return ShouldRun::no(passes::SkipReason::Precondition, "no XNNPACK-supported node outside a delegate");
}

passes::PassResult XnnpackPartitionPass::runImpl(ir::Graph& g, passes::PassContext&) {
  Assignment as = assign(g);
  // Partitions in order of their first member; members in graph order.
  std::unordered_map<int, int> index;  // root -> partition index
  struct Part {
    std::vector<ir::NodeId> members;
    std::vector<ir::ValueRef> inputs, outputs;
    std::vector<ir::NodeId> constants;  // get_attr nodes read
    std::unordered_set<uint64_t> inSeen, outSeen;
    std::unordered_set<ir::NodeId> constSeen;
    ir::NodeId callId = ir::kInvalidNode;
    std::string name;
    size_t lastPos = 0;
  };
  std::vector<Part> parts;
  auto partOf = [&](ir::NodeId id) -> int {
    if (id >= as.part.size() || as.part[id] < 0) return -1;
    return index.at(as.part[id]);
  };
  for (size_t pos = 0; pos < g.size(); ++pos) {
    const ir::Node& n = g.at(pos);
    if (n.id < as.part.size() && as.part[n.id] >= 0) {
      auto [it, fresh] = index.emplace(as.part[n.id], int(parts.size()));
      if (fresh) parts.emplace_back();
      parts[size_t(it->second)].members.push_back(n.id);
      parts[size_t(it->second)].lastPos = pos;
    }
  }
  if (parts.empty()) return passes::PassResult::unchanged();
  // Boundary values.
  for (const ir::NodePtr& p : g.nodes()) {
    const int pu = partOf(p->id);
    p->forEachInput([&](const ir::ValueRef& r) {
      const int pr = partOf(r.node);
      if (pr >= 0 && pr != pu) {
        Part& P = parts[size_t(pr)];
        if (P.outSeen.insert(refKey(r)).second) P.outputs.push_back(r);
      }
      if (pu >= 0 && pr != pu) {
        Part& U = parts[size_t(pu)];
        const ir::Node& src = g.node(r.node);
        if (src.kind == ir::NodeKind::GetAttr) {
          if (U.constSeen.insert(src.id).second) U.constants.push_back(src.id);
        } else if (U.inSeen.insert(refKey(r)).second) {
          U.inputs.push_back(r);
        }
      }
    });
  }
  // Subgraphs and call nodes.
  ir::Graph out = g.shellCopy();
  const ir::OpId callOp = ir::internOp(ops::kCallDelegateOp);
  std::unordered_map<uint64_t, ir::ValueRef> mapped;  // member value -> call output
  std::vector<ir::Node> calls;
  int64_t delegatedNodes = 0;
  for (size_t pi = 0; pi < parts.size(); ++pi) {
    Part& P = parts[pi];
    P.name = fmt::format("{}_{}", kDelegatePrefix, pi);
    while (out.subgraphs().count(P.name) || g.findByName(P.name) != ir::kInvalidNode) P.name += "_";
    auto sub = std::make_shared<ir::Graph>();
    sub->shareStore(g.storePtr());
    sub->modelName = P.name;
    std::unordered_map<uint64_t, ir::ValueRef> local;
    for (ir::ValueRef r : P.inputs) {
      ir::Node ph;
      ph.kind = ir::NodeKind::Placeholder;
      ph.name = sub->uniqueName(g.node(r.node).name + (r.output ? fmt::format("_{}", r.output) : ""));
      ph.target = ph.name;
      ph.outputs.push_back(g.meta(r));
      local[refKey(r)] = {sub->append(std::move(ph)), 0};
    }
    for (ir::NodeId cid : P.constants) {
      const ir::Node& src = g.node(cid);
      if (const ir::Constant* c = g.constant(src.target)) sub->setConstant(*c);
      ir::Node ga = src;
      ga.id = ir::kInvalidNode;
      ga.name = sub->uniqueName(src.name);
      local[refKey({cid, 0})] = {sub->append(std::move(ga)), 0};
    }
    for (ir::NodeId mid : P.members) {
      ir::Node m = g.node(mid);
      m.id = ir::kInvalidNode;
      m.forEachInputMutable([&](ir::ValueRef& r) { r = local.at(refKey(r)); });
      const size_t nOut = m.outputs.size();
      const ir::NodeId nid = sub->append(std::move(m));
      for (size_t k = 0; k < nOut; ++k) local[refKey({mid, uint32_t(k)})] = {nid, uint32_t(k)};
      ++delegatedNodes;
    }
    ir::Node o;
    o.kind = ir::NodeKind::Output;
    o.name = sub->uniqueName("output");
    o.target = "output";
    o.flags |= ir::kFlagOutputsAsList;
    ir::RefList outs;
    for (ir::ValueRef r : P.outputs) {
      outs.push_back(local.at(refKey(r)));
      o.outputs.push_back(g.meta(r));
    }
    o.args.push_back(ir::Arg(std::move(outs)));
    sub->append(std::move(o));
    Status valid = sub->validate();
    if (!valid) return passes::PassResult::failed(fmt::format("delegate '{}' is malformed: {}", P.name, valid.message()));

    ir::Node call;
    call.id = out.newId();
    call.kind = ir::NodeKind::Call;
    call.op = callOp;
    call.target = std::string(ops::kCallDelegateOp);
    call.name = P.name;
    call.flags |= ir::kFlagOutputsAsList;
    call.args.push_back(ir::Arg(P.name));
    call.args.push_back(ir::Arg(ir::RefList(P.inputs.begin(), P.inputs.end())));
    for (ir::ValueRef r : P.outputs) call.outputs.push_back(g.meta(r));
    call.provenance.createdBy = name();
    call.provenance.derivedFrom = P.members;
    P.callId = call.id;
    for (size_t k = 0; k < P.outputs.size(); ++k) mapped[refKey(P.outputs[k])] = {call.id, uint32_t(k)};
    out.subgraphs()[P.name] = std::move(sub);
    calls.push_back(std::move(call));
  }
  // Topological order of the remaining nodes and the calls, as close to the original as
  // possible (a call sits where its last member was).
  struct Item {
    size_t key;
    const ir::NodePtr* ptr;  // original node, or null for calls[callIdx]
    int callIdx;
  };
  std::vector<Item> items;
  std::unordered_map<ir::NodeId, size_t> itemOf;
  for (size_t pos = 0; pos < g.size(); ++pos) {
    const ir::NodePtr& p = g.ptrAt(pos);
    if (partOf(p->id) >= 0) continue;
    const size_t key = p->kind == ir::NodeKind::Output ? SIZE_MAX : pos;
    itemOf[p->id] = items.size();
    items.push_back({key, &p, -1});
  }
  for (size_t pi = 0; pi < parts.size(); ++pi) {
    itemOf[parts[pi].callId] = items.size();
    items.push_back({parts[pi].lastPos, nullptr, int(pi)});
  }
  auto depsOf = [&](size_t i, auto&& fn) {
    const ir::Node& n = items[i].ptr ? **items[i].ptr : calls[size_t(items[i].callIdx)];
    n.forEachInput([&](const ir::ValueRef& r) {
      const int pr = partOf(r.node);
      fn(pr >= 0 ? parts[size_t(pr)].callId : r.node);
    });
  };
  std::vector<std::vector<size_t>> usersOf(items.size());
  std::vector<size_t> indeg(items.size(), 0);
  for (size_t i = 0; i < items.size(); ++i) {
    std::unordered_set<size_t> seen;
    depsOf(i, [&](ir::NodeId d) {
      auto it = itemOf.find(d);
      if (it != itemOf.end() && seen.insert(it->second).second) {
        usersOf[it->second].push_back(i);
        ++indeg[i];
      }
    });
  }
  using QE = std::pair<size_t, size_t>;  // (key, item)
  std::priority_queue<QE, std::vector<QE>, std::greater<>> ready;
  for (size_t i = 0; i < items.size(); ++i)
    if (!indeg[i]) ready.push({items[i].key, i});
  size_t emitted = 0;
  while (!ready.empty()) {
    const size_t i = ready.top().second;
    ready.pop();
    ++emitted;
    if (!items[i].ptr) {
      ir::Node c = calls[size_t(items[i].callIdx)];
      c.forEachInputMutable([&](ir::ValueRef& r) {
        if (auto it = mapped.find(refKey(r)); it != mapped.end()) r = it->second;
      });
      out.append(std::move(c));
    } else {
      const ir::NodePtr& p = *items[i].ptr;
      bool touches = false;
      p->forEachInput([&](const ir::ValueRef& r) { touches = touches || mapped.count(refKey(r)); });
      if (!touches) {
        out.appendShared(p);
      } else {
        ir::Node c = *p;
        c.forEachInputMutable([&](ir::ValueRef& r) {
          if (auto it = mapped.find(refKey(r)); it != mapped.end()) r = it->second;
        });
        out.append(std::move(c));
      }
    }
    for (size_t u : usersOf[i])
      if (--indeg[u] == 0) ready.push({items[u].key, u});
  }
  if (emitted != items.size())
    return passes::PassResult::failed("partitioning produced a cycle between delegates (a partitioner bug)");
  // Constants now read only inside delegates leave the parent graph.
  std::vector<ir::NodeId> deadConsts;
  for (const ir::NodePtr& p : out.nodes())
    if (p->kind == ir::NodeKind::GetAttr && out.users(p->id).empty()) deadConsts.push_back(p->id);
  std::unordered_set<std::string> stillUsed;
  for (ir::NodeId id : deadConsts) out.erase(id);
  for (const ir::NodePtr& p : out.nodes())
    if (p->kind == ir::NodeKind::GetAttr) stillUsed.insert(p->target);
  std::vector<std::string> drop;
  for (const auto& [name, c] : out.constants())
    if (!stillUsed.count(name)) drop.push_back(name);
  for (const std::string& name : drop) out.eraseConstant(name);
  Status valid = out.validate();
  if (!valid) return passes::PassResult::failed(fmt::format("partitioned graph is malformed: {}", valid.message()));
  int64_t left = 0;
  for (const ir::NodePtr& p : out.nodes()) left += p->isCall() && p->op != callOp;
  bump(delegates_, int64_t(parts.size()));
  bump(delegated_, delegatedNodes);
  bump(undelegated_, left);
  g = std::move(out);
  return passes::PassResult::changed();
}

}  // namespace ls::xnnpack
