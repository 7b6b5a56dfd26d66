// `lowerscope-cli run`: runs a graph (fxjson, .lsg, .tosa, or the graph after pass N of a
// pipeline) with the reference executor on NumPy .npy inputs and writes every output as .npy.
// Without --input the inputs are the seeded ones `verify` uses (written out too), so `run`
// reproduces verify's evaluation bit for bit.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <map>

#include "app/cli/commands.h"
#include "core/exec/executor.h"
#include "core/exec/synth.h"
#include "core/io/npy.h"
#include "core/passes/pass_manager.h"

namespace ls::cli {

struct RunCommand {
  CLI::App* sub = nullptr;
  std::string input, pipeline, afterPass, profile = "fp", target = "generic", outDir = ".";
  std::vector<std::string> inputs;  ///< NAME=path.npy, or path.npy for a one-input graph
  uint64_t seed = 1;
  bool noQuantize = false, quiet = false;
  SessionCli quant;
};

RunCommand* addRunCommand(CLI::App& app) {
  static RunCommand cmd;
  auto* s = app.add_subcommand("run", "Run a graph with the reference executor on .npy inputs and write its outputs "
                                      "as .npy (exit 0 ran, 1 the graph failed, 2 usage/input error)");
  cmd.sub = s;
  s->add_option("graph", cmd.input, graphFileHelp())->required();
  s->add_option("--pipeline", cmd.pipeline, pipelineHelp() + "; run it first (see --after-pass)");
  s->add_option("--after-pass", cmd.afterPass,
                "with --pipeline: stop after this pass (its index as `lower` prints it, or its name: the first "
                "pass of that name); default: the whole pipeline");
  s->add_option("--profile", cmd.profile, "TOSA profile: fp or int (int: a float graph is quantized first, as verify does)")
      ->check(CLI::IsMember({"fp", "int"}))
      ->capture_default_str();
  s->add_option("--target", cmd.target, "hardware target: generic, u55 or u85")->check(CLI::IsMember({"generic", "u55", "u85"}))
      ->capture_default_str();
  s->add_option("--input", cmd.inputs,
                "NAME=path.npy for graph input NAME (repeatable), or just path.npy when the graph has one input; "
                "inputs not given are the seeded ones verify uses");
  s->add_option("--seed", cmd.seed, "seed of the synthesised inputs (and of the INT calibration)")->capture_default_str();
  s->add_option("--out", cmd.outDir, "directory for the .npy files (created)")->capture_default_str();
  s->add_flag("--no-quantize", cmd.noQuantize, "with --profile int: run a float graph as it is");
  addSessionOptions(s, cmd.quant);
  addQuietFlag(s, cmd.quiet, "");
  return &cmd;
}

bool selected(const RunCommand& cmd) { return cmd.sub && cmd.sub->parsed(); }

namespace {

int runError(const std::string& msg) {
  fmt::print(stderr, "error: {}\n", msg);
  return 2;
}

/// A file name from a node name ("layer1.0/conv" -> "layer1.0_conv").
std::string fileStem(std::string name) {
  for (char& c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) c = '_';
  return name.empty() ? std::string("value") : name;
}

/// The pass count of `pipeline` that stops after `afterPass` (an index or a name).
Result<size_t> passLimit(const std::string& pipeline, const std::string& afterPass) {
  const passes::PipelineDef* def = passes::PipelineRegistry::instance().find(pipeline);
  if (!def) return Status::error(fmt::format("unknown pipeline '{}'", pipeline));
  if (afterPass.empty()) return def->passes.size();
  if (std::all_of(afterPass.begin(), afterPass.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    const size_t n = std::stoul(afterPass);
    if (n >= def->passes.size())
      return Status::error(fmt::format("--after-pass {}: pipeline '{}' has passes #0-#{}", n, pipeline,
                                       def->passes.size() - 1));
    return n + 1;
  }
  for (size_t i = 0; i < def->passes.size(); ++i)
    if (def->passes[i] == afterPass) return i + 1;
  return Status::error(fmt::format("--after-pass {}: no pass of that name in pipeline '{}'", afterPass, pipeline));
}

}  // namespace

int runRun(const RunCommand& cmd) {
  if (!cmd.afterPass.empty() && cmd.pipeline.empty()) return runError("--after-pass needs --pipeline");
  auto loaded = load(cmd.input, cmd.quiet);
  if (!loaded) return runError(loaded.message());
  ir::Graph g = std::move(loaded).value();
  const std::string model = g.modelName.empty() ? cmd.input : g.modelName;

  session::SessionConfig cfg;
  cfg.pipeline = cmd.pipeline.empty() ? "generic" : cmd.pipeline;
  cfg.profile = *passes::parseProfile(cmd.profile);
  cfg.target = *passes::parseTarget(cmd.target);
  cfg.quantize = !cmd.noQuantize;
  cfg.seed = cmd.seed;
  applySessionOptions(cmd.quant, cfg);
  cfg.materializeConstants = true;  // as verify: every version of the graph sees the same weights
  cfg.recordTrace = false;
  if (!cmd.pipeline.empty()) {
    auto limit = passLimit(cmd.pipeline, cmd.afterPass);
    if (!limit) return runError(limit.message());
    cfg.passLimit = *limit;
  }
  session::LoweringSession session(cfg);
  if (Status v = session.validate(); !v) return runError(v.message());
  auto prepared = session.prepare(std::move(g));
  if (!prepared) return runError(prepared.message());
  if (!cmd.quiet) reportQuantize(*prepared);
  const ir::Graph source = prepared->graph;

  // Inputs, in placeholder order of the source graph: given .npy files or verify's seeded values.
  std::vector<exec::Tensor> inputs = exec::synthesizeInputs(source, cmd.seed);
  std::vector<const ir::Node*> placeholders;  // in graph order, as synthesizeInputs and the executor take them
  for (const ir::NodePtr& p : source.nodes())
    if (p->kind == ir::NodeKind::Placeholder) placeholders.push_back(p.get());
  std::map<std::string, size_t> byName;
  for (size_t i = 0; i < placeholders.size(); ++i) byName[placeholders[i]->name] = i;
  // "a f32[2,3], b f32[3]": the inputs as a user has to name them.
  auto inputList = [&] {
    std::string list;
    for (const ir::Node* p : placeholders) list += fmt::format("{}{} {}", list.empty() ? "" : ", ", p->name, ir::toString(p->meta()));
    return list.empty() ? std::string("none") : list;
  };
  std::vector<bool> given(inputs.size(), false);
  for (const std::string& spec : cmd.inputs) {
    // NAME=path.npy; a bare path (no '=') is the graph's only input.
    const size_t eq = spec.find('=');
    size_t index = 0;
    std::string name, path;
    if (eq == std::string::npos) {
      if (placeholders.size() != 1)
        return runError(fmt::format("--input {}: the graph has {} inputs, so say which one the file is for: "
                                    "--input NAME=path.npy with NAME one of: {}",
                                    spec, placeholders.size(), inputList()));
      name = placeholders[0]->name, path = spec;
    } else {
      name = spec.substr(0, eq), path = spec.substr(eq + 1);
      if (name.empty() || path.empty())
        return runError(fmt::format("--input {}: expected NAME=path.npy (the graph's inputs: {})", spec, inputList()));
      auto it = byName.find(name);
      if (it == byName.end())
        return runError(fmt::format("--input {}: the graph has no input '{}' (its inputs: {})", spec, name, inputList()));
      index = it->second;
    }
    if (given[index]) return runError(fmt::format("--input {}: input '{}' is given twice", spec, name));
    auto t = io::readNpyFile(path);
    if (!t) return runError(t.message());
    const ir::TensorMeta& want = placeholders[index]->meta();
    if (t->dtype() != want.dtype || t->shape() != want.shape)
      return runError(fmt::format("--input {}: {} holds {}[{}], input '{}' expects {}", spec, path,
                                  ir::dtypeName(t->dtype()), fmt::join(t->shape().dims(), ","), name,
                                  ir::toString(want)));
    inputs[index] = std::move(t).value();
    given[index] = true;
  }

  ir::Graph graph = source;
  if (!cmd.pipeline.empty()) {
    session::Prepared p;
    p.graph = std::move(prepared->graph);
    auto outcome = session.run(std::move(p), model);
    if (!outcome) return runError(outcome.message());
    if (outcome->failed()) {
      fmt::print(stderr, "error: {}\n", outcome->result.failure);
      return 1;
    }
    graph = std::move(outcome->finalGraph);
  }

  std::error_code ec;
  std::filesystem::create_directories(cmd.outDir, ec);
  if (ec) return runError(fmt::format("--out {}: {}", cmd.outDir, ec.message()));
  auto write = [&](const std::string& stem, const exec::Tensor& t) -> Status {
    const std::string path = (std::filesystem::path(cmd.outDir) / (fileStem(stem) + ".npy")).string();
    LS_RETURN_IF_ERROR(io::writeNpyFile(path, t));
    if (!cmd.quiet) fmt::print("  wrote {} ({})\n", path, ir::toString(t.meta()));
    return Status::ok();
  };
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!given[i]) {
      if (Status st = write("input_" + placeholders[i]->name, inputs[i]); !st)
        return runError(st.message());
    }

  // The same executor settings as verify's reference (exact accumulation under INT).
  exec::Executor ex(exec::ExecOptions{.exactAccumulation = cfg.profile == passes::Profile::INT},
                    std::make_shared<exec::ConstantCache>());
  auto out = ex.run(graph, exec::adaptInputs(graph, inputs));
  if (!out) {
    fmt::print(stderr, "error: {}: {}\n", model, out.message());
    return 1;
  }
  if (!cmd.quiet)
    fmt::print("ran {} ({}{}) on {} input(s), {} given\n", model,
               cmd.pipeline.empty() ? std::string("source graph") : fmt::format("pipeline '{}'", cmd.pipeline),
               cmd.afterPass.empty() ? std::string() : fmt::format(" after pass {}", cmd.afterPass), inputs.size(),
               std::count(given.begin(), given.end(), true));
  const ir::Node* outNode = graph.outputNode();
  const ir::RefList* refs = outNode && !outNode->args.empty() ? outNode->args[0].asRefList() : nullptr;
  for (size_t k = 0; k < out->size(); ++k) {
    if (!(*out)[k].defined()) continue;  // an empty (None) output slot
    std::string stem = fmt::format("output_{}", k);
    if (refs && k < refs->size() && !(*refs)[k].isNone()) {
      const ir::ValueRef r = (*refs)[k];
      stem = fmt::format("output_{}_{}", k, graph.node(r.node).name);
    }
    if (Status st = write(stem, (*out)[k]); !st) return runError(st.message());
  }
  return 0;
}

}  // namespace ls::cli
