// TOSA flatbuffer -> graph of tosa.* nodes (see tosa_import.h).
#include "core/backends/arm/tosa/tosa_import.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>
#include <map>

#include "core/backends/arm/tosa/tosa_ops.h"
#include "core/exec/executor.h"
#include "core/ops/registry.h"

namespace ls::arm {

namespace {

std::optional<ir::DType> dtypeOf(const std::string& t) {
  static const std::map<std::string, ir::DType> m = {
      {"BOOL", ir::DType::Bool},   {"INT8", ir::DType::Int8},       {"INT16", ir::DType::Int16},
      {"INT32", ir::DType::Int32}, {"FP16", ir::DType::Float16},    {"BF16", ir::DType::BFloat16},
      {"FP32", ir::DType::Float32}, {"SHAPE", ir::DType::Int64}};
  auto it = m.find(t);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

/// A float attribute (CLAMP bounds, PAD value) stored as bytes of the output's element type.
std::optional<double> scalarFromBytes(const std::vector<uint8_t>& b, ir::DType t) {
  switch (t) {
    case ir::DType::Float32:
      if (b.size() >= 4) { float f; std::memcpy(&f, b.data(), 4); return f; }
      break;
    case ir::DType::Int8: if (!b.empty()) return double(int8_t(b[0])); break;
    case ir::DType::Int16:
      if (b.size() >= 2) { int16_t v; std::memcpy(&v, b.data(), 2); return v; }
      break;
    case ir::DType::Int32:
      if (b.size() >= 4) { int32_t v; std::memcpy(&v, b.data(), 4); return v; }
      break;
    default: break;
  }
  return std::nullopt;
}

}  // namespace

Result<ir::Graph> tosaFileToGraph(const io::TosaFileInfo& f, const std::string& sourceName, io::ImportReport* report) {
  if (report)
    for (const std::string& w : f.warnings) report->warnings.push_back(sourceName + ": " + w);
  const io::TosaBlockInfo* block = f.mainBlock();
  if (!block) return Status::error(sourceName + ": the file has no block to open");
  ir::Graph g;
  g.modelName = sourceName;
  std::map<std::string, ir::ValueRef> values;
  auto meta = [&](const io::TosaTensorInfo& t) -> Result<ir::TensorMeta> {
    auto dt = dtypeOf(t.dtype);
    if (!dt) return Status::error(fmt::format("{}: tensor '{}': element type {} is not supported here", sourceName,
                                              t.name, t.dtype));
    if (t.shape.size() > size_t(ir::kMaxRank))
      return Status::error(fmt::format("{}: tensor '{}' has rank {}; at most {} is supported", sourceName, t.name,
                                       t.shape.size(), ir::kMaxRank));
    int64_t numel = 1;
    for (int64_t d : t.shape)
      if (d < 0 || __builtin_mul_overflow(numel, d, &numel) || numel > (int64_t(1) << 48))
        return Status::error(fmt::format("{}: tensor '{}' has shape [{}]: expected non-negative dims and at most 2^48 "
                                         "elements", sourceName, t.name, fmt::join(t.shape, ", ")));
    return ir::TensorMeta(*dt, ir::Shape(t.shape));
  };
  auto constantNode = [&](const io::TosaTensorInfo& t) -> Result<ir::ValueRef> {
    LS_ASSIGN_OR_RETURN(m, meta(t));
    ir::Constant c;
    c.name = t.name;
    c.kind = ir::ConstantKind::Constant;
    c.dtype = m.dtype;
    c.shape = m.shape;
    c.data = g.store().intern(t.data);
    c.contentHash = ir::constantContentHash(c);
    g.setConstant(c);
    ir::Node n;
    n.kind = ir::NodeKind::GetAttr;
    n.name = t.name;
    n.target = c.name;
    n.outputs.push_back(m);
    return ir::ValueRef{g.append(std::move(n)), 0};
  };
  // An operator's input: a value produced before it, or a constant tensor with data and no
  // CONST operator (as some tools write them).
  auto inputValue = [&](const std::string& in, const std::string& where) -> Result<ir::ValueRef> {
    auto it = values.find(in);
    if (it != values.end()) return it->second;
    const io::TosaTensorInfo* t = block->tensor(in);
    if (!t || !t->hasData) return Status::error(fmt::format("{}: input '{}' is not produced before it", where, in));
    LS_ASSIGN_OR_RETURN(v, constantNode(*t));
    values.emplace(in, v);
    return v;
  };
  for (const std::string& in : block->inputs) {
    const io::TosaTensorInfo* t = block->tensor(in);
    if (!t) return Status::error(fmt::format("{}: block input '{}' names no tensor", sourceName, in));
    LS_ASSIGN_OR_RETURN(m, meta(*t));
    ir::Node n;
    n.kind = ir::NodeKind::Placeholder;
    n.name = in;
    n.target = in;
    n.outputs.push_back(m);
    values[in] = ir::ValueRef{g.append(std::move(n)), 0};
  }
  for (size_t i = 0; i < block->operators.size(); ++i) {
    const io::TosaOperatorInfo& op = block->operators[i];
    const std::string where = fmt::format("{}: operator #{} ({})", sourceName, i, op.op);
    if (op.outputs.size() != 1) return Status::error(where + ": expected one output");
    const io::TosaTensorInfo* out = block->tensor(op.outputs[0]);
    if (!out) return Status::error(where + ": its output names no tensor");
    LS_ASSIGN_OR_RETURN(om, meta(*out));
    ir::Node n;
    n.name = out->name;
    n.outputs.push_back(om);
    if (op.op == "CONST") {
      if (!out->hasData) return Status::error(where + ": a CONST without data");
      LS_ASSIGN_OR_RETURN(v, constantNode(*out));
      values[out->name] = v;
      continue;
    } else {
      n.kind = ir::NodeKind::Call;
      n.target = tosaOp(op.op);
      n.op = ir::internOp(n.target);
      const ops::OpSchema* schema = ops::OpRegistry::instance().find(n.op);
      const TosaSerialization* ser = tosaSerialization(n.op);
      if (!schema || !ser) {
        // An operator of a newer TOSA (or one this build does not implement): kept with its inputs
        // and the file's output type, flagged opaque (shown, not run or written), as fxjson does.
        for (const std::string& in : op.inputs) {
          LS_ASSIGN_OR_RETURN(v, inputValue(in, where));
          n.args.push_back(v);
        }
        n.flags |= ir::kFlagOpaque;
        if (report) {
          ++report->opaqueNodes;
          report->warnings.push_back(where + ": not an operator this build knows; imported as opaque (shown, not run)");
        }
        values[out->name] = ir::ValueRef{g.append(std::move(n)), 0};
        continue;
      }
      if (op.op == "CONST_SHAPE") {
        if (!out->hasData) return Status::error(where + ": a CONST_SHAPE without data");
        n.kwargs.push_back({"values", ir::Arg(ir::IntList(out->ints()))});
      } else {
        // Inputs are the schema's positional args in order; a tensor-list arg takes the run of
        // inputs the other args leave.
        const size_t npos = size_t(schema->positionalCount());
        size_t listAt = npos;
        for (size_t a = 0; a < npos; ++a)
          if (schema->args[a].type == ops::ArgType::TensorList) listAt = a;
        if (listAt == npos ? op.inputs.size() != npos : op.inputs.size() < npos)
          return Status::error(fmt::format("{}: {} input(s), expected {}{}", where, op.inputs.size(),
                                           listAt == npos ? "" : "at least ", npos));
        const size_t listLen = listAt == npos ? 0 : op.inputs.size() - (npos - 1);
        std::vector<ir::ValueRef> ins;
        for (const std::string& in : op.inputs) {
          LS_ASSIGN_OR_RETURN(v, inputValue(in, where));
          ins.push_back(v);
        }
        for (size_t a = 0, k = 0; a < npos; ++a) {
          if (a == listAt) {
            n.args.push_back(ir::Arg(ir::RefList(ins.begin() + long(k), ins.begin() + long(k + listLen))));
            k += listLen;
          } else {
            n.args.push_back(ins[k++]);
          }
        }
        for (const std::string& k : ser->fields) {
          const int ai = schema->argIndex(k);
          const io::TosaAttrValue* a = op.attr(k);
          if (ai < 0 || !a) continue;  // absent: the schema's default
          const ops::ArgType type = schema->args[size_t(ai)].type;
          if (type == ops::ArgType::IntList) {
            if (const auto* v = std::get_if<std::vector<int64_t>>(a)) n.kwargs.push_back({k, ir::Arg(ir::IntList(*v))});
          } else if (type == ops::ArgType::Int) {
            if (const auto* v = std::get_if<int64_t>(a)) n.kwargs.push_back({k, ir::Arg(*v)});
          } else if (type == ops::ArgType::Bool) {
            if (const auto* v = std::get_if<bool>(a)) n.kwargs.push_back({k, ir::Arg(*v)});
          } else if (type == ops::ArgType::String) {
            // The schema's ResizeMode calls nearest-neighbour NEAREST; the specification and
            // tosa.RESIZE here call it NEAREST_NEIGHBOR (the writer maps it back).
            if (const auto* v = std::get_if<std::string>(a))
              n.kwargs.push_back({k, ir::Arg(k == "mode" && *v == "NEAREST" ? std::string("NEAREST_NEIGHBOR") : *v)});
          } else if (type == ops::ArgType::Float) {
            const auto* v = std::get_if<std::vector<uint8_t>>(a);
            auto x = v ? scalarFromBytes(*v, om.dtype) : std::nullopt;
            if (!x) return Status::error(fmt::format("{}: attribute '{}' cannot be read as {}", where, k,
                                                     ir::dtypeName(om.dtype)));
            n.kwargs.push_back({k, ir::Arg(*x)});
          }
        }
        for (const std::string& k : ser->metadataCopies)
          if (k == "dtype") n.kwargs.push_back({k, ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(om.dtype)})});
      }
      std::vector<ir::TensorMeta> inferred;
      Status st = ops::inferNode(g, n, inferred);
      if (!st.isOk()) return Status::error(fmt::format("{}: {}", where, st.message()));
      if (inferred.size() != 1 || inferred[0].dtype != om.dtype || inferred[0].shape != om.shape)
        return Status::error(fmt::format("{}: the file says {} but the operator's shape rule gives {}", where,
                                         ir::toString(om), inferred.empty() ? "nothing" : ir::toString(inferred[0])));
    }
    values[out->name] = ir::ValueRef{g.append(std::move(n)), 0};
  }
  ir::RefList outs;
  for (const std::string& o : block->outputs) {
    auto it = values.find(o);
    if (it == values.end()) return Status::error(fmt::format("{}: block output '{}' is never produced", sourceName, o));
    outs.push_back(it->second);
  }
  ir::Node out;
  out.kind = ir::NodeKind::Output;
  out.name = "output";
  out.target = "output";
  out.args.push_back(ir::Arg(outs));
  for (const ir::ValueRef& r : outs) out.outputs.push_back(g.meta(r));
  g.append(std::move(out));
  return g;
}

Result<ir::Graph> loadTosaGraphBytes(std::string_view bytes, const std::string& sourceName, io::ImportReport* report) {
  LS_ASSIGN_OR_RETURN(info, io::readTosaBytes(bytes, sourceName));
  return tosaFileToGraph(info, sourceName, report);
}

Result<TosaFileRun> runTosaFileAgainst(const ir::Graph& lowered, std::string_view bytes, const std::string& sourceName,
                                       const std::vector<exec::Tensor>& inputs) {
  LS_ASSIGN_OR_RETURN(file, loadTosaGraphBytes(bytes, sourceName));
  exec::Executor ex;
  auto ran = ex.run(lowered, inputs);
  if (!ran) return Status::error("the lowered graph does not run: " + ran.message());
  // The file has no output for a returned None (the writer omits it).
  std::vector<exec::Tensor> wanted;
  for (exec::Tensor& t : *ran)
    if (t.defined()) wanted.push_back(std::move(t));
  const std::vector<exec::Tensor>* want = &wanted;
  auto got = ex.run(file, inputs);
  if (!got) return Status::error(sourceName + " does not run: " + got.message());
  TosaFileRun r;
  r.outputs = want->size();
  if (got->size() != want->size()) {
    r.message = fmt::format("{} returns {} outputs, the lowered graph {}", sourceName, got->size(), want->size());
    return r;
  }
  for (size_t i = 0; i < want->size(); ++i) {
    const exec::Tensor &a = (*want)[i], &b = (*got)[i];
    if (a.meta() != b.meta()) {
      r.message = fmt::format("output {}: {} in {}, {} in the lowered graph", i, ir::toString(b.meta()), sourceName,
                              ir::toString(a.meta()));
      return r;
    }
    const size_t es = size_t(a.elementSize());
    for (int64_t e = 0; e < a.numel(); ++e)
      if (std::memcmp(a.bytes() + size_t(e) * es, b.bytes() + size_t(e) * es, es) != 0) {
        r.message = fmt::format("output {} element {}: {} in {}, {} in the lowered graph", i, e, b.getDouble(e),
                                sourceName, a.getDouble(e));
        return r;
      }
  }
  r.identical = true;
  r.message = fmt::format("{} output(s) bit-identical", r.outputs);
  return r;
}

}  // namespace ls::arm
