// Registry invariants checked over everything the composition root registers: pass names
// end in "Pass" and match the pass's own name, every declared target op exists in the op
// registry (a typo would make a pass "skipped: no-target-ops" forever), applicability is
// data, and a duplicate registration is an error.
#include <gtest/gtest.h>

#include <set>

#include "core/ops/registry.h"
#include "core/passes/backend.h"
#include "core/passes/pass_manager.h"
#include "core/exec/kernel.h"
#include "core/transforms/generic_passes.h"

namespace ls {
namespace {

using namespace passes;

TEST(PassRegistry, EveryPassNameEndsInPassAndMatchesTheRegistration) {
  const auto names = PassRegistry::instance().names();
  ASSERT_GT(names.size(), 60u);
  for (const std::string& n : names) {
    EXPECT_TRUE(n.ends_with("Pass")) << n;
    auto p = PassRegistry::instance().create(n);
    ASSERT_TRUE(p) << n;
    EXPECT_EQ(p->name(), n);
  }
}

TEST(PassRegistry, EveryTargetOpOfEveryPassIsARegisteredOp) {
  std::vector<std::string> missing;
  for (const std::string& n : PassRegistry::instance().names()) {
    auto p = PassRegistry::instance().create(n);
    for (ir::OpId op : p->targetOps())
      if (!ops::OpRegistry::instance().find(op)) missing.push_back(n + ": " + std::string(ir::opName(op)));
  }
  std::string all;
  for (const std::string& m : missing) all += "\n  " + m;
  EXPECT_TRUE(missing.empty()) << "target ops that no op registration knows:" << all;
}

TEST(PassRegistry, EveryPipelineNamesOnlyRegisteredPasses) {
  for (const std::string& name : PipelineRegistry::instance().names()) {
    auto pm = PassManager::fromPipeline(name);
    EXPECT_TRUE(pm.isOk()) << name << ": " << pm.message();
  }
  EXPECT_TRUE(PipelineRegistry::instance().find("tosa"));
  EXPECT_TRUE(PipelineRegistry::instance().find("xnnpack"));
  EXPECT_TRUE(PipelineRegistry::instance().find("generic"));
}

TEST(PassRegistry, ApplicabilityIsDataOnThePass) {
  std::set<std::string> intOnly;
  for (const std::string& n : PassRegistry::instance().names()) {
    auto p = PassRegistry::instance().create(n);
    if (!p->applicability().allows(Profile::FP) && p->applicability().allows(Profile::INT)) intOnly.insert(n);
  }
  // The Q/DQ fold, rescale and TABLE passes are INT-only; decompositions apply to both.
  for (const char* n : {"FoldAndAnnotateQParamsPass", "InsertRescalePass", "FuseConsecutiveRescalesPass",
                        "InsertTableOpsPass", "DecomposeQuantizeDequantizePass"})
    EXPECT_TRUE(intOnly.count(n)) << n;
  EXPECT_FALSE(intOnly.count("DecomposeSiluPass"));
  EXPECT_EQ(Applicability::intOnly().describe(), "int");
  EXPECT_EQ(Applicability::any().describe(), "all");
  PassContext fp;
  ShouldRun s = Applicability::intOnly().check(fp);
  EXPECT_FALSE(s.run);
  EXPECT_EQ(s.reason, SkipReason::Profile);
}

class NamedPass : public Pass {
 public:
  explicit NamedPass(std::string n) : Pass(std::move(n), "test") {}
  PassResult runImpl(ir::Graph&, PassContext&) override { return PassResult::unchanged(); }
};

TEST(RegisterBackend, DuplicatesAndBadNamesAreErrors) {
  // Private registries, so the process-wide ones stay as the composition root made them.
  PassRegistry passes;
  PipelineRegistry pipelines;
  const Registries into{ops::OpRegistry::instance(), exec::KernelRegistry::instance(), passes, pipelines};
  static const Backend first{"test-first", "one pass, one pipeline", [](const Registries& r) {
                               r.passes.add("TestOnePass", [] { return std::make_unique<NamedPass>("TestOnePass"); });
                               r.pipelines.add({"test", "one", {"TestOnePass"}});
                             }};
  ASSERT_TRUE(registerBackend(first, into).isOk());
  static const Backend dup{"test-dup", "the same names again", [](const Registries& r) {
                             r.passes.add("TestOnePass", [] { return std::make_unique<NamedPass>("Replacement"); });
                             r.pipelines.add({"test", "again", {}});
                           }};
  Status s = registerBackend(dup, into);
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("pass 'TestOnePass' registered twice"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("pipeline 'test' registered twice"), std::string::npos) << s.message();
  EXPECT_EQ(passes.create("TestOnePass")->name(), "TestOnePass") << "the duplicate replaced the original";
  EXPECT_EQ(pipelines.find("test")->description, "one");

  static const Backend bad{"test-bad", "bad names", [](const Registries& r) {
                             r.passes.add("TestNoSuffix", [] { return std::make_unique<NamedPass>("TestNoSuffix"); });
                             r.passes.add("TestMismatchPass", [] { return std::make_unique<NamedPass>("OtherPass"); });
                             r.passes.add("TestNullPass", [] { return std::unique_ptr<Pass>(); });
                           }};
  s = registerBackend(bad, into);
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("backend 'test-bad':"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("'TestNoSuffix': registry names end in 'Pass'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("registered as 'TestMismatchPass' calls itself 'OtherPass'"), std::string::npos);
  EXPECT_NE(s.message().find("'TestNullPass': the factory returned null"), std::string::npos);

  // The process-wide registration refuses a backend name it has already registered.
  s = registerBackend(transforms::genericBackend());
  EXPECT_NE(s.message().find("backend 'generic' registered twice"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace ls
