// Node: one operation (or placeholder / constant / output) of a graph, with its metadata.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/ir/arg.h"
#include "core/ir/symbol.h"
#include "core/ir/tensor_meta.h"

namespace ls::ir {

enum class NodeKind : uint8_t { Placeholder, GetAttr, Call, Output, COUNT };
std::string_view nodeKindName(NodeKind k);  // "placeholder", "get_attr", "call_function", "output"

/// Node flags (bit set).
enum NodeFlag : uint32_t {
  kFlagNone = 0,
  /// A quantizer annotation forbids transform-for-annotation passes to touch this node.
  kFlagDisallowTransform = 1u << 0,
  /// The op is unknown to the registry: recorded metadata is kept, passes never match it.
  kFlagOpaque = 1u << 1,
  /// fxjson recorded the outputs as a list ("shapes"/"dtypes"), even for one output.
  kFlagOutputsAsList = 1u << 2,
};

/// Where a node came from: the pass that created it and the nodes it replaces/derives from.
/// Empty for nodes imported from a file.
struct Provenance {
  std::string createdBy;          ///< pass name
  std::vector<NodeId> derivedFrom;  ///< ids of the source nodes (fusion N->1, split 1->N)
  bool empty() const { return createdBy.empty() && derivedFrom.empty(); }
  bool operator==(const Provenance&) const = default;
};

/// One node. Nodes are immutable once shared between graph versions (see Graph's
/// copy-on-write); mutate through Graph::mutableNode.
struct Node {
  NodeId id = kInvalidNode;
  NodeKind kind = NodeKind::Call;
  uint32_t flags = 0;
  OpId op = kNoOp;            ///< for Call; kNoOp otherwise
  std::string name;           ///< unique within the graph
  std::string target;         ///< Placeholder: input name; GetAttr: constant key; Call: op name
  std::vector<Arg> args;
  std::vector<Kwarg> kwargs;
  std::vector<TensorMeta> outputs;  ///< one per output value (non-tensor outputs: dtype Undefined)
  std::string module;         ///< optional module path ("features.4.conv.1")
  Provenance provenance;

  bool isCall() const { return kind == NodeKind::Call; }
  bool hasFlag(NodeFlag f) const { return (flags & f) != 0; }
  /// Keyword arg by name, or null.
  const Arg* kwarg(std::string_view key) const {
    for (const Kwarg& k : kwargs)
      if (k.name == key) return &k.value;
    return nullptr;
  }
  const TensorMeta& meta(uint32_t output = 0) const {
    static const TensorMeta kNone;
    return output < outputs.size() ? outputs[output] : kNone;
  }
  /// Calls `fn(const ValueRef&)` for every value this node reads, in argument order.
  template <typename Fn>
  void forEachInput(Fn&& fn) const {
    auto visit = [&](const Arg& a) {
      if (auto* r = a.ref()) {
        fn(*r);
      } else if (auto* l = a.asRefList()) {
        for (const ValueRef& x : *l)
          if (!x.isNone()) fn(x);
      }
    };
    for (const Arg& a : args) visit(a);
    for (const Kwarg& k : kwargs) visit(k.value);
  }
  /// Calls `fn(ValueRef&)` for every value reference, allowing rewiring.
  template <typename Fn>
  void forEachInputMutable(Fn&& fn) {
    auto visit = [&](Arg& a) {
      if (auto* r = std::get_if<ValueRef>(&a.v)) {
        fn(*r);
      } else if (auto* l = std::get_if<RefList>(&a.v)) {
        for (ValueRef& x : *l)
          if (!x.isNone()) fn(x);
      }
    };
    for (Arg& a : args) visit(a);
    for (Kwarg& k : kwargs) visit(k.value);
  }
};

using NodePtr = std::shared_ptr<const Node>;

}  // namespace ls::ir
