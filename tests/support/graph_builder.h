// Test helper: builds small graphs by hand (placeholders, constants, calls, output).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/exec/tensor.h"
#include "core/ir/graph.h"
#include "core/ir/printer.h"
#include "core/ops/registry.h"

namespace ls::test {

class GraphBuilder {
 public:
  ir::Graph g;

  ir::ValueRef input(const std::string& name, ir::DType t, ir::Shape s) {
    ir::Node n;
    n.kind = ir::NodeKind::Placeholder;
    n.name = name;
    n.target = name;
    n.outputs.push_back(ir::TensorMeta(t, s));
    return {g.append(std::move(n)), 0};
  }
  ir::ValueRef input(const std::string& name, ir::Shape s) { return input(name, ir::DType::Float32, s); }

  /// Adds a call node and infers its metadata with the registry; fails the test on error.
  ir::ValueRef call(const std::string& op, std::vector<ir::Arg> args, std::vector<ir::Kwarg> kwargs = {},
                    std::string name = "") {
    ir::Node n = makeCall(op, std::move(args), std::move(kwargs), std::move(name));
    Status st = ops::inferNode(g, n, n.outputs);
    EXPECT_TRUE(st.isOk()) << st.message();
    return {g.append(std::move(n)), 0};
  }

  /// Infers a call without adding it; returns the Status and fills `out`.
  Status tryInfer(const std::string& op, std::vector<ir::Arg> args, std::vector<ir::TensorMeta>& out,
                  std::vector<ir::Kwarg> kwargs = {}) {
    ir::Node n = makeCall(op, std::move(args), std::move(kwargs), "probe");
    const ops::OpSchema* s = ops::OpRegistry::instance().find(n.op);
    if (!s) return Status::error("unknown op " + op);
    LS_RETURN_IF_ERROR(ops::checkArgs(*s, n, g));
    return ops::inferNode(g, n, out);
  }

  /// Infers and returns the printed metadata ("f32[1,2]" or "(f32[..], ...)"), or "error: ...".
  std::string meta(const std::string& op, std::vector<ir::Arg> args, std::vector<ir::Kwarg> kwargs = {}) {
    std::vector<ir::TensorMeta> out;
    Status st = tryInfer(op, std::move(args), out, std::move(kwargs));
    if (!st.isOk()) return "error: " + st.message();
    if (out.size() == 1) return ir::toString(out[0]);
    std::string s = "(";
    for (size_t i = 0; i < out.size(); ++i) s += (i ? ", " : "") + ir::toString(out[i]);
    return s + ")";
  }

  /// A constant holding `values` (converted to `t`) and its get_attr node.
  ir::ValueRef constant(const std::string& name, ir::DType t, ir::Shape s, const std::vector<double>& values) {
    exec::Tensor x = exec::Tensor::fromDoubles(t, s, values);
    ir::Constant c;
    c.name = name;
    c.dtype = t;
    c.shape = s;
    c.data = g.store().intern(std::vector<uint8_t>(x.bytes(), x.bytes() + x.nbytes()));
    g.setConstant(c);
    return getAttr(name, t, s);
  }

  /// A float parameter without data (the executor synthesises its values from the name).
  ir::ValueRef parameter(const std::string& name, ir::Shape s, const std::string& fqn = "") {
    ir::Constant c;
    c.name = name;
    c.fqn = fqn.empty() ? name : fqn;
    c.kind = ir::ConstantKind::Parameter;
    c.dtype = ir::DType::Float32;
    c.shape = s;
    c.contentHash = ir::constantContentHash(c);
    g.setConstant(c);
    return getAttr(name, ir::DType::Float32, s);
  }

  ir::ValueRef getAttr(const std::string& name, ir::DType t, ir::Shape s) {
    ir::Node n;
    n.kind = ir::NodeKind::GetAttr;
    n.name = name;
    n.target = name;
    n.outputs.push_back(ir::TensorMeta(t, s));
    return {g.append(std::move(n)), 0};
  }

  void output(std::vector<ir::ValueRef> refs) {
    ir::Node n;
    n.kind = ir::NodeKind::Output;
    n.name = "output";
    n.target = "output";
    n.args.push_back(ir::Arg(ir::RefList(refs.begin(), refs.end())));
    for (auto& r : refs) n.outputs.push_back(g.meta(r));
    n.flags |= ir::kFlagOutputsAsList;
    g.append(std::move(n));
  }

  ir::Node makeCall(const std::string& op, std::vector<ir::Arg> args, std::vector<ir::Kwarg> kwargs, std::string name) {
    ir::Node n;
    n.kind = ir::NodeKind::Call;
    n.op = ir::internOp(op);
    n.target = op;
    n.name = name.empty() ? g.uniqueName("n") : name;
    n.args = std::move(args);
    n.kwargs = std::move(kwargs);
    return n;
  }
};

}  // namespace ls::test
