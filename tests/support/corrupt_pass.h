// Test helper: a deliberately wrong pass that corrupts one named node (add becomes sub, same
// node id) and the real model it is aimed at, for the numerics localisation tests and the GUI
// fixture of its overlay.
#pragma once

#include <string>
#include <vector>

#include "core/exec/synth.h"
#include "core/io/load.h"
#include "core/passes/retrace.h"

namespace ls::test {

/// WRONG on purpose: the aten.add.Tensor node named `victim` becomes a sub (same node id).
class CorruptOneAddPass : public passes::RetracePass {
 public:
  explicit CorruptOneAddPass(std::string victim)
      : RetracePass("CorruptOneAddPass", "test only: one add becomes sub (wrong)"), victim_(std::move(victim)) {
    targets({"aten.add.Tensor"});
  }

 protected:
  Status rewrite(passes::Rewriter& rw) override {
    if (rw.node().name == victim_) rw.rewriteInPlace("aten.sub.Tensor", rw.node().args, rw.node().kwargs);
    return Status::ok();
  }

 private:
  std::string victim_;
};

/// A bundled model (assets/graphs/`file`) with its weights materialised, and the names of its
/// aten.add.Tensor nodes in graph order (resnet18: the 8 residual adds).
struct ModelWithAdds {
  ir::Graph graph;
  std::vector<std::string> adds;
};
inline Result<ModelWithAdds> modelWithAdds(const std::string& file) {
  auto loaded = io::loadGraphFile(std::string(LS_ASSETS_DIR) + "/graphs/" + file);
  if (!loaded) return loaded.status();
  ModelWithAdds m{std::move(loaded).value(), {}};
  exec::materializeConstants(m.graph);
  for (const ir::NodePtr& p : m.graph.nodes())
    if (p->target == "aten.add.Tensor") m.adds.push_back(p->name);
  return m;
}

}  // namespace ls::test
