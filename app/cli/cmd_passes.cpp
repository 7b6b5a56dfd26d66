// `lowerscope-cli passes`: every registered pass with its description, declared target ops,
// profile/target applicability and the pipelines that run it (read from the registries, so
// it is what the engine runs, not a list kept by hand).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <set>

#include "app/cli/commands.h"
#include "core/passes/pass_manager.h"
#include "core/session/op_coverage.h"
#include "core/util/json_writer.h"

namespace ls::cli {

int cmdPasses(bool json, bool namesOnly) {
  const auto& reg = passes::PassRegistry::instance();
  std::map<std::string, std::set<std::string>> pipelinesOf;
  for (const std::string& p : passes::PipelineRegistry::instance().names())
    if (const passes::PipelineDef* def = passes::PipelineRegistry::instance().find(p))
      for (const std::string& n : def->passes) pipelinesOf[n].insert(p);
  JsonWriter w;
  if (json) w.beginArray();
  for (const std::string& name : reg.names()) {
    if (namesOnly) {
      fmt::print("{}\n", name);
      continue;
    }
    std::unique_ptr<passes::Pass> p = reg.create(name);
    if (!p) return fail(fmt::format("pass '{}' is registered but its factory made nothing", name));
    std::vector<std::string> targets;
    for (ir::OpId op : p->targetOps()) targets.emplace_back(ir::opName(op));
    const std::set<std::string>& in = pipelinesOf[name];
    if (json) {
      w.beginObject();
      w.field("name", name).field("description", p->description());
      w.field("applies_to", p->applicability().describe());
      w.key("target_ops").beginArray();
      for (const std::string& t : targets) w.value(t);
      w.endArray();
      w.key("pipelines").beginArray();
      for (const std::string& pl : in) w.value(pl);
      w.endArray();
      w.key("origins").beginArray();
      for (const std::string& o : reg.origins(name)) w.value(o);
      w.endArray();
      w.endObject();
    } else {
      fmt::print("{}  [{}]{}\n    {}\n", name, p->applicability().describe(),
                 in.empty() ? std::string() : fmt::format("  in: {}", fmt::join(in, ", ")), p->description());
      if (!targets.empty()) fmt::print("    targets: {}\n", fmt::join(targets, ", "));
      for (const std::string& o : reg.origins(name)) fmt::print("    {}\n", o);
    }
  }
  if (json) {
    w.endArray();
    fmt::print("{}\n", w.str());
  }
  return 0;
}

int cmdOps(const std::string& pipeline, bool markdown) {
  auto rows = session::opCoverage(pipeline);
  if (!rows) return fail(rows.message());
  if (markdown) {
    fmt::print("{}", session::opCoverageMarkdown(*rows, pipeline));
    return 0;
  }
  for (const session::OpCoverage& r : *rows)
    fmt::print("{:<48} kernel {:<3}  fp: {}\n{:<48} {:<10}  int: {}\n", r.op, r.referenceKernel ? "yes" : "no",
               r.fpPasses.empty() ? std::string("-") : fmt::format("{}", fmt::join(r.fpPasses, ", ")), "", "",
               !r.intPasses.empty() ? fmt::format("{}", fmt::join(r.intPasses, ", "))
               : r.intFloatIsland() ? std::string("float island")
                                    : std::string("-"));
  return 0;
}

}  // namespace ls::cli
