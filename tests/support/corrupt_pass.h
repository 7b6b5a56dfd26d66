// Test helper: a deliberately wrong pass that corrupts one named node (add becomes sub, same
// node id), for the numerics localisation tests and the GUI fixture of its overlay.
#pragma once

#include <string>

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

}  // namespace ls::test
