// --script parsing.
#include "viewers/model/script.h"

#include <gtest/gtest.h>

namespace ls::viewmodel {
namespace {

TEST(Script, ParsesEveryCommand) {
  const char* text = R"(# comment
open "my dir/model.fxjson.json"
pipeline generic
profile int
target u55
run --no-skip
wait
select pass 3
select pass FuseTosaTransposes
select pass -1
next pass
prev changed   # trailing comment
first pass
select node conv 1
pin pass 2
unpin
view timing
filter hide-skipped on
filter search fuse tosa
search addmm
search next
compare --no-skip --no-fast-copy --profile int --pipeline generic --disable DeadCodeEliminationPass
fit
zoom 0.5
export comparison md out.md
export chart chart.png
frames 3
next change
expect pass-status skipped
expect min drawn-nodes 10
expect error
key down shift
key f
export run dot out.dot
compare-trace "runs/base line.lstrace"
enter delegate_0
leave
compare --no-skip --repeat 7 --no-fast-copy
export chart out/chart.svg
timing-option aggregate on
timing-option baseline B
expect ab-verdict total A
expect ab-verdict DecomposeLayerNormPass saved-A
expect min timing-bars 1x visible-passes
expect max op-diffs 0
timing-option zoom 4
expect max timeline-visible 10
)";
  auto r = parseScript(text, "t.lsscript");
  ASSERT_TRUE(r.isOk()) << r.message();
  const auto& c = r.value();
  ASSERT_EQ(c.size(), 46u);
  EXPECT_EQ(c[44].op, ScriptOp::TimingOption);
  EXPECT_EQ(c[44].arg, "zoom");
  EXPECT_EQ(c[44].arg2, "4");
  EXPECT_EQ(c[45].arg2, "timeline-visible");
  EXPECT_EQ(c[36].op, ScriptOp::Compare);
  EXPECT_EQ(c[36].number, 7);
  EXPECT_EQ(c[36].overrides.skip, false);
  EXPECT_EQ(c[36].overrides.fastCopy, false);
  EXPECT_EQ(c[37].op, ScriptOp::ExportChart);
  EXPECT_EQ(c[37].arg2, "out/chart.svg");
  EXPECT_EQ(c[38].op, ScriptOp::TimingOption);
  EXPECT_EQ(c[39].arg2, "B");
  EXPECT_EQ(c[41].arg2, "DecomposeLayerNormPass");
  EXPECT_EQ(c[41].arg3, "saved-A");
  EXPECT_EQ(c[42].arg3, "visible-passes");
  EXPECT_EQ(c[21].number, 0);  // compare without --repeat keeps the count
  EXPECT_EQ(c[0].op, ScriptOp::Open);
  EXPECT_EQ(c[0].arg, "my dir/model.fxjson.json");
  EXPECT_EQ(c[0].line, 2);
  EXPECT_EQ(c[3].op, ScriptOp::Target);
  EXPECT_EQ(c[4].op, ScriptOp::Run);
  EXPECT_EQ(c[4].overrides.skip, false);
  EXPECT_FALSE(c[4].overrides.fastCopy.has_value());
  EXPECT_EQ(c[6].op, ScriptOp::SelectPass);
  EXPECT_TRUE(c[6].numeric);
  EXPECT_EQ(c[6].number, 3);
  EXPECT_FALSE(c[7].numeric);
  EXPECT_EQ(c[7].arg, "FuseTosaTransposes");
  EXPECT_TRUE(c[8].numeric);
  EXPECT_EQ(c[8].number, -1);
  EXPECT_EQ(c[10].op, ScriptOp::PrevChanged);
  EXPECT_EQ(c[12].op, ScriptOp::SelectNode);
  EXPECT_EQ(c[12].arg, "conv 1");
  EXPECT_EQ(c[13].op, ScriptOp::Pin);
  EXPECT_EQ(c[13].number, 2);
  EXPECT_EQ(c[16].arg, "hide-skipped");
  EXPECT_EQ(c[16].arg2, "on");
  EXPECT_EQ(c[17].arg2, "fuse tosa");
  EXPECT_EQ(c[19].op, ScriptOp::SearchNext);
  const RunOverrides& o = c[20].overrides;
  EXPECT_EQ(o.profile, passes::Profile::INT);
  EXPECT_EQ(o.pipeline, "generic");
  EXPECT_EQ(o.disable, std::vector<std::string>{"DeadCodeEliminationPass"});
  EXPECT_DOUBLE_EQ(c[22].factor, 0.5);
  EXPECT_EQ(c[23].op, ScriptOp::ExportComparison);
  EXPECT_EQ(c[23].arg, "md");
  EXPECT_EQ(c[23].arg2, "out.md");
  EXPECT_EQ(c[25].number, 3);
  EXPECT_EQ(c[26].op, ScriptOp::NextChange);
  EXPECT_EQ(c[27].op, ScriptOp::Expect);
  EXPECT_EQ(c[28].arg2, "drawn-nodes");
  EXPECT_EQ(c[28].number, 10);
  EXPECT_EQ(c[30].op, ScriptOp::Key);
  EXPECT_EQ(c[30].arg, "down");
  EXPECT_TRUE(c[30].shift);
  EXPECT_FALSE(c[31].shift);
  EXPECT_EQ(c[32].op, ScriptOp::ExportRun);
  EXPECT_EQ(c[32].arg, "dot");
  EXPECT_EQ(c[33].op, ScriptOp::CompareTrace);
  EXPECT_EQ(c[33].arg, "runs/base line.lstrace");
  EXPECT_EQ(c[34].op, ScriptOp::Enter);
  EXPECT_EQ(c[34].arg, "delegate_0");
  EXPECT_EQ(c[35].op, ScriptOp::Leave);
  EXPECT_EQ(scriptOpName(ScriptOp::NextChanged), "next changed");
}

TEST(Script, ErrorsNameTheLine) {
  struct Case {
    const char* text;
    const char* needle;
  } cases[] = {
      {"open\n", ":1:"},
      {"wait\nprofile bf16\n", ":2:"},
      {"view nowhere\n", "view pipeline|graph|inspector|timing"},
      {"filter hide-skipped maybe\n", "on|off"},
      {"compare --warp\n", "unknown run option '--warp'"},
      {"compare --profile\n", "--profile expects fp or int"},
      {"zoom -1\n", "zoom FACTOR"},
      {"export comparison xml a.xml\n", "csv|json|md|chrome"},
      {"frobnicate\n", "unknown command"},
      {"expect pass-status sleepy\n", "expect pass-status"},
      {"expect min widgets 3\n", "expect"},
      {"key ctrl\n", "key up|down"},
      {"export run png x.png\n", "lstrace|csv|md|chrome|dot"},
      {"key down alt\n", "key up|down"},
      {"compare --repeat 0\n", "--repeat expects a count >= 1"},
      {"compare --repeat\n", "--repeat expects a count >= 1"},
      {"export chart chart.jpg\n", "PATH.svg|PATH.png"},
      {"timing-option baseline C\n", "timing-option aggregate on|off"},
      {"timing-option zoom -2\n", "timing-option zoom FACTOR"},
      {"expect ab-verdict total faster\n", "ab-verdict PASS|total"},
  };
  for (const Case& k : cases) {
    auto r = parseScript(k.text, "s.txt");
    ASSERT_FALSE(r.isOk()) << k.text;
    EXPECT_NE(r.message().find(k.needle), std::string::npos) << r.message();
    EXPECT_EQ(r.message().rfind("s.txt:", 0), 0u) << r.message();
  }
}

TEST(Script, ParsesLocalisationExpectations) {
  auto r = parseScript("expect culprit add_4\nexpect culprit none\nexpect min drawn-errors 3\n", "s.txt");
  ASSERT_TRUE(r.isOk()) << r.message();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].arg, "culprit");
  EXPECT_EQ((*r)[0].arg2, "add_4");
  EXPECT_EQ((*r)[1].arg2, "none");
  EXPECT_EQ((*r)[2].arg2, "drawn-errors");
  EXPECT_EQ((*r)[2].number, 3);
  auto bad = parseScript("expect culprit\n", "s.txt");
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.message().find("culprit NAME|none"), std::string::npos) << bad.message();
}

TEST(Script, ParsesFoldingAndInspectorCommands) {
  auto r = parseScript(
      "graph-option folds on\nexpand encoder.layers.encoder_layer_3\ncollapse encoder\nexpect min drawn-folds 200\n"
      "expect max folds 400\nfollow lineage 2\nexpect lineage replaced by %conv2d\nexpect changed out 0: f32\n"
      "expect min changed-fields 1\nexpect min lineage-entries 3\n",
      "s.txt");
  ASSERT_TRUE(r.isOk()) << r.message();
  ASSERT_EQ(r->size(), 10u);
  EXPECT_EQ((*r)[0].op, ScriptOp::GraphOption);
  EXPECT_EQ((*r)[0].arg, "folds");
  EXPECT_EQ((*r)[1].op, ScriptOp::Expand);
  EXPECT_EQ((*r)[1].arg, "encoder.layers.encoder_layer_3");
  EXPECT_EQ((*r)[2].op, ScriptOp::Collapse);
  EXPECT_EQ((*r)[3].arg2, "drawn-folds");
  EXPECT_EQ((*r)[4].arg2, "folds");
  EXPECT_EQ((*r)[5].op, ScriptOp::FollowLineage);
  EXPECT_EQ((*r)[5].number, 2);
  EXPECT_EQ((*r)[6].arg, "lineage");
  EXPECT_EQ((*r)[6].arg2, "replaced by %conv2d");
  EXPECT_EQ((*r)[7].arg2, "out 0: f32");
  EXPECT_EQ((*r)[8].arg2, "changed-fields");
  EXPECT_EQ((*r)[9].arg2, "lineage-entries");
  for (const char* bad : {"expand\n", "follow lineage\n", "follow lineage -1\n", "graph-option folds maybe\n"})
    EXPECT_FALSE(parseScript(bad, "s.txt").isOk()) << bad;
}

TEST(Script, OverridesApplyOnlyWhatWasGiven) {
  RunConfig base;
  base.pipeline = "generic";
  base.profile = passes::Profile::FP;
  base.target = passes::Target::U85;
  RunOverrides o;
  o.fastCopy = false;
  o.profile = passes::Profile::INT;
  RunConfig c = o.apply(base);
  EXPECT_EQ(c.pipeline, "generic");
  EXPECT_EQ(c.target, passes::Target::U85);
  EXPECT_EQ(c.profile, passes::Profile::INT);
  EXPECT_TRUE(c.engine.skip);
  EXPECT_FALSE(c.engine.fastCopy);
  EXPECT_EQ(describe(c), "generic int/u85 no-fast-copy");
}

}  // namespace
}  // namespace ls::viewmodel
