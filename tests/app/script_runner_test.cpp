// The --script runner against a fake ScriptHost (no window): the calls a script makes, in
// order; waiting for the host to be idle and frame counting; error messages with the
// script's line for parse errors, bad arguments and failed expectations; paths relative to the
// script's directory.
#include "app/lowerscope/script_runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <fmt/format.h>

#include "tests/support/graph_builder.h"
#include "tests/viewers/fixtures.h"

namespace ls::app {
namespace {

/// Records every call as one line; `busy` makes idle() false (a run in flight).
class FakeHost : public ScriptHost {
 public:
  std::vector<std::string> calls;
  bool busy = false;
  viewmodel::TracePtr run;  ///< what trace() returns
  viewmodel::TracePtr runB;  ///< what compareTrace() returns
  viewmodel::TracePtr next = std::make_shared<const trace::Trace>(test::syntheticTrace("cusc"));  ///< what a run/open produces
  viewmodel::RunConfig config;
  int selected = -1;
  std::optional<int> pin;
  viewmodel::PassFilter filter;
  std::vector<std::string> path;
  bool help = false, error = false;
  size_t diff = 0;

  void log(std::string s) { calls.push_back(std::move(s)); }
  /// The background work finishes: the run's trace becomes current.
  void finish() {
    busy = false;
    if (next) run = next;
  }

  bool idle() const override { return !busy; }
  void openFile(const std::string& p) override { log("open " + p), busy = true; }
  void openCompareTrace(const std::string& p) override { log("compare-trace " + p), busy = true; }
  viewmodel::RunConfig runConfig() const override { return config; }
  void setRunConfig(const viewmodel::RunConfig& c) override {
    config = c;
    log(fmt::format("config {} {} {}{}", c.pipeline, passes::profileName(c.profile), passes::targetName(c.target),
                    c.engine.skip ? "" : " no-skip"));
  }
  void startRun() override { log("run"), busy = true; }
  void requestCompare(const viewmodel::RunConfig& b, int repeat) override {
    log(fmt::format("compare {}{}{}", passes::profileName(b.profile), b.engine.fastCopy ? "" : " no-fast-copy",
                    repeat > 0 ? fmt::format(" x{}", repeat) : "")),
        busy = true;
  }
  viewmodel::TracePtr trace() const override { return run; }
  viewmodel::TracePtr compareTrace() const override { return runB; }
  int selectedPass() const override { return selected; }
  void selectPass(int p) override {
    selected = std::clamp(p, -1, int(run->records.size()) - 1);
    log(fmt::format("select {}", selected));
  }
  void stepPass(viewmodel::StepKey key) override {
    if (!run) return;
    selected = viewmodel::step(*run, viewmodel::visiblePasses(*run, filter), selected, key);
    log(fmt::format("step -> {}", selected));
  }
  void setPin(std::optional<int> p) override {
    pin = p;
    log(p ? fmt::format("pin {}", *p) : "unpin");
  }
  void addPane(int p, bool runB) override { log(fmt::format("pane {}{}", runB ? "B " : "", p)); }
  void clearPanes() override { log("panes cleared"); }
  viewmodel::PassFilter passFilter() const override { return filter; }
  void setPassFilter(const viewmodel::PassFilter& f) override {
    filter = f;
    log(fmt::format("filter {} {} '{}'", f.hideSkipped, f.hideUnchanged, f.search));
  }
  std::shared_ptr<const ir::Graph> shown;  ///< what shownGraph() returns
  std::shared_ptr<const ir::Graph> shownGraph() const override { return shown; }
  std::shared_ptr<const ir::Graph> comparedGraph() const override { return nullptr; }
  ir::NodeId selectedNode() const override { return ir::kInvalidNode; }
  void selectNode(ir::NodeId id) override { log(fmt::format("node {}", id)); }
  std::vector<std::string> subgraphPath() const override { return path; }
  void enterSubgraph(const std::string& n) override { path.push_back(n), log("enter " + n); }
  void leaveSubgraph() override { path.pop_back(), log("leave"); }
  viewmodel::TracePtr pipelineRun;  ///< run A while the preparation run is shown
  Status showPreparation(bool on) override {
    if (on == bool(pipelineRun)) return Status::ok();
    if (on && (!run || !run->preparation)) return Status::error("this run has no preparation run");
    if (on) pipelineRun = std::exchange(run, run->preparation);
    else run = std::exchange(pipelineRun, nullptr);
    log(on ? "stage quantizer" : "stage pipeline");
    return Status::ok();
  }
  viewmodel::TracePtr pipelineTrace() const override { return pipelineRun; }
  void showView(const std::string& n) override { log("view " + n); }
  void setSearch(const std::string& t) override { log("search " + t); }
  bool searchStep(int dir) override { return log(fmt::format("search step {}", dir)), true; }
  bool changeStep(int dir) override { return log(fmt::format("change step {}", dir)), diff > 0; }
  void fitGraph() override { log("fit"); }
  void setGraphOption(const std::string& name, bool on) override { log("graph-option " + name + (on ? " on" : " off")); }
  std::vector<std::string> inspectorLines(const std::string& what) override {
    log("inspector " + what);
    return {what + " line"};
  }
  bool followLineage(size_t index) override {
    log("follow lineage " + std::to_string(index));
    return index < 3;
  }
  bool foldModule(const std::string& path, bool expand) override {
    log((expand ? "expand " : "collapse ") + path);
    return path != "missing";
  }
  void zoomGraph(float f) override { log(fmt::format("zoom {}", f)); }
  Status exportComparison(const std::string& f, const std::string& p) override { return log("export comparison " + f + " " + p), Status::ok(); }
  Status exportRun(const std::string& f, const std::string& p) override {
    log("export run " + f + " " + p);
    return f == "dot" ? Status::error("export: cannot write " + p) : Status::ok();
  }
  Status exportChart(const std::string& p) override { return log("export chart " + p), Status::ok(); }
  void setTimingOption(const std::string& n, const std::string& v) override { log("timing-option " + n + " " + v); }
  std::string verdict;  ///< what abVerdict answers for any pass
  std::string abVerdict(const std::string& pass) override { return log("ab-verdict " + pass), verdict; }
  bool pressKey(const std::string& k, bool shift) override { return log("key " + k + (shift ? " shift" : "")), true; }
  bool helpShown() const override { return help; }
  bool errorShown() const override { return error; }
  size_t diffSize() override { return diff; }
  int64_t viewCount(ViewCount w) override { return w == ViewCount::DrawnNodes ? 42 : 0; }
  void note(const std::string& line) override { log("note " + line); }
};

ScriptRunner parse(const std::string& text, const std::string& path = "t.lsscript") {
  auto r = ScriptRunner::parse(text, path);
  EXPECT_TRUE(r.isOk()) << r.message();
  return std::move(r).value();
}

/// Steps until the script is done or failed, finishing background work whenever the host is
/// busy; returns the frames it took.
int runToEnd(ScriptRunner& r, FakeHost& h, int maxFrames = 1000) {
  int frames = 0;
  while (!r.done() && !r.failed() && frames < maxFrames) {
    r.step(h);
    ++frames;
    if (h.busy) h.finish();
  }
  return frames;
}

TEST(ScriptRunner, DrivesTheHostInScriptOrder) {
  ScriptRunner r = parse(R"(pipeline generic
profile int
target u55
open /models/m.fxjson.json
select pass 1
next changed
pin pass Pass0
filter hide-skipped on
expect min visible-passes 3
expect min drawn-nodes 40
view timing
compare --profile fp --no-fast-copy
compare --no-skip --repeat 3
timing-option aggregate on
timing-option baseline B
expect ab-verdict total A
export run csv out.csv
export chart chart.png
export chart chart.svg
key f5 shift
unpin
)");
  EXPECT_TRUE(r.opensFile());
  FakeHost h;
  h.verdict = "A";
  runToEnd(r, h);
  ASSERT_FALSE(r.failed()) << r.error();
  EXPECT_TRUE(r.done());
  std::vector<std::string> want = {
      "config generic fp generic",
      "config generic int generic",
      "config generic int u55",
      "open /models/m.fxjson.json",
      "select 1",
      "step -> 3",  // "cusc": the next changed pass after 1
      "pin 0",
      "filter true false ''",
      "view timing",
      "compare fp no-fast-copy",
      "compare int x3",  // the config is int (above); --no-skip keeps fast-copy
      "timing-option aggregate on",
      "timing-option baseline B",
      "ab-verdict total",
      "export run csv out.csv",
      "note wrote out.csv",
      "export chart chart.png",
      "note wrote chart.png",
      "export chart chart.svg",
      "note wrote chart.svg",
      "key f5 shift",
      "unpin",
  };
  EXPECT_EQ(h.calls, want);
}

TEST(ScriptRunner, AbVerdictExpectationComparesTheHostsAnswer) {
  for (const auto& [answer, ok] : {std::pair<std::string, bool>{"noise", true}, {"B", false}, {"", false}}) {
    ScriptRunner r = parse("open m.fxjson.json\nexpect ab-verdict DecomposeLayerNormPass noise\n");
    FakeHost h;
    h.verdict = answer;
    runToEnd(r, h);
    EXPECT_EQ(r.failed(), !ok) << answer;
    if (!ok) {
      EXPECT_NE(r.error().find("expectation failed"), std::string::npos) << r.error();
    }
  }
}

TEST(ScriptRunner, FoldingAndLineageGoThroughTheHost) {
  ScriptRunner r = parse("open m.fxjson.json\ngraph-option folds on\nexpand encoder\ncollapse encoder\nfollow lineage 1\n"
                         "expect lineage lineage line\nexpect changed changed line\n");
  FakeHost h;
  runToEnd(r, h);
  ASSERT_FALSE(r.failed()) << r.error();
  ASSERT_GE(h.calls.size(), 6u);
  const std::vector<std::string> want = {"graph-option folds on", "expand encoder", "collapse encoder", "follow lineage 1",
                                         "inspector lineage", "inspector changed"};
  EXPECT_EQ(std::vector<std::string>(h.calls.end() - 6, h.calls.end()), want);
  // A module the host does not show, a lineage entry it does not have, text no line has: errors.
  for (const char* bad : {"expand missing\n", "follow lineage 7\n", "expect lineage nowhere\n"}) {
    ScriptRunner b = parse(std::string("open m.fxjson.json\n") + bad);
    FakeHost hb;
    runToEnd(b, hb);
    EXPECT_TRUE(b.failed()) << bad;
  }
}

TEST(ScriptRunner, PaneAddBNeedsRunBAndFindsItsPass) {
  ScriptRunner none = parse("open m.fxjson.json\npane add-b 1\n");
  FakeHost h0;
  runToEnd(none, h0);
  ASSERT_TRUE(none.failed());
  EXPECT_NE(none.error().find("no run B"), std::string::npos) << none.error();
  ScriptRunner r = parse("open m.fxjson.json\npane add 0\npane add-b Pass2\n");
  FakeHost h;
  h.runB = std::make_shared<const trace::Trace>(test::syntheticTrace("ccuc"));
  runToEnd(r, h);
  ASSERT_FALSE(r.failed()) << r.error();
  EXPECT_EQ(std::vector<std::string>(h.calls.end() - 2, h.calls.end()), (std::vector<std::string>{"pane 0", "pane B 2"}));
}

TEST(ScriptRunner, WaitsForIdleThenTwoFramesAndCountsFrames) {
  ScriptRunner r = parse("run --no-skip\nfit\nframes 3\nzoom 2\n");
  FakeHost h;
  h.run = h.next;
  r.step(h);  // config + run, then waits
  EXPECT_EQ(h.calls, (std::vector<std::string>{"config  fp generic no-skip", "run"}));
  for (int i = 0; i < 5; ++i) r.step(h);  // busy: nothing happens
  EXPECT_EQ(h.calls.size(), 2u);
  EXPECT_EQ(r.currentLine(), 2);
  h.finish();
  r.step(h);  // idle seen
  r.step(h);  // two frames for the views
  r.step(h);
  EXPECT_EQ(h.calls.size(), 2u);
  r.step(h);  // fit, then one frame
  EXPECT_EQ(h.calls.back(), "fit");
  r.step(h);
  r.step(h);  // frames 3
  for (int i = 0; i < 3; ++i) {
    r.step(h);
    EXPECT_EQ(h.calls.back(), "fit") << i;
  }
  r.step(h);
  EXPECT_EQ(h.calls.back(), "zoom 2");
  EXPECT_FALSE(r.done());
  r.step(h);
  r.step(h);
  EXPECT_TRUE(r.done());
  EXPECT_EQ(r.currentLine(), -1);
}

TEST(ScriptRunner, ParseErrorsNameTheScriptAndLine) {
  for (const auto& [text, what] : std::vector<std::pair<std::string, std::string>>{
           {"fit\n\nfrobnicate now\n", "t.lsscript:3: 'frobnicate now': unknown command"},
           {"# zoom must be positive\nzoom -1\n", "t.lsscript:2: 'zoom -1': expected: zoom FACTOR (> 0)"},
           {"profile int\nprofile float\n", "t.lsscript:2: 'profile float': profile expects fp or int"},
           {"run --fast\n", "t.lsscript:1: 'run --fast': unknown run option '--fast'"},
       }) {
    auto r = ScriptRunner::parse(text, "t.lsscript");
    ASSERT_FALSE(r.isOk()) << text;
    EXPECT_EQ(r.message(), what);
  }
  auto missing = ScriptRunner::load("/nonexistent/dir/x.lsscript");
  ASSERT_FALSE(missing.isOk());
  EXPECT_EQ(missing.message(), "/nonexistent/dir/x.lsscript: cannot read script");
}

TEST(ScriptRunner, ARuntimeErrorStopsTheScriptWithItsLine) {
  struct Case {
    std::string script, error;
    bool withTrace;
  };
  for (const Case& c : std::vector<Case>{
           {"fit\nselect pass 9\nfit\n", "t.lsscript:2: 'select pass 9': no pass '9' (0..3, first, last or a pass name)", true},
           {"select pass Pass2\npin pass NoSuchPass\n",
            "t.lsscript:2: 'pin pass NoSuchPass': no pass 'NoSuchPass' (0..3, first, last or a pass name)", true},
           {"next pass\n", "t.lsscript:1: 'next pass': no trace loaded (open a file first)", false},
           {"pipeline nope\n", "t.lsscript:1: 'pipeline nope': unknown pipeline 'nope'", false},
           {"select pass 1\nexpect pass-status changed\n", "t.lsscript:2: 'expect pass-status changed': expectation failed: got unchanged", true},
           {"expect error\n", "t.lsscript:1: 'expect error': expectation failed: got no error dialog", false},
           {"expect diff nonempty\n", "t.lsscript:1: 'expect diff nonempty': expectation failed: got 0 changed/added/removed nodes", true},
           {"leave\n", "t.lsscript:1: 'leave': not inside a nested graph", true},
           {"next change\n", "t.lsscript:1: 'next change': no changes at this pass", true},
           {"export run dot x.dot\n", "t.lsscript:1: 'export run dot x.dot': export: cannot write x.dot", true},
       }) {
    ScriptRunner r = parse(c.script);
    FakeHost h;
    if (c.withTrace) h.run = h.next;
    runToEnd(r, h);
    EXPECT_TRUE(r.failed()) << c.script;
    EXPECT_FALSE(r.done());
    EXPECT_EQ(r.error(), c.error);
    // Nothing runs after the failing command.
    size_t calls = h.calls.size();
    for (int i = 0; i < 5; ++i) r.step(h);
    EXPECT_EQ(h.calls.size(), calls);
  }
}

TEST(ScriptRunner, RelativePathsFallBackToTheScriptDirectory) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / fmt::format("ls_script_runner_{}", ::getpid());
  fs::create_directories(dir);
  std::ofstream(dir / "model.fxjson.json") << "{}";
  std::ofstream(dir / "s.lsscript") << "open model.fxjson.json\ncompare-trace base.lstrace\nopen /abs/x.lsg\n";
  auto r = ScriptRunner::load((dir / "s.lsscript").string());
  ASSERT_TRUE(r.isOk()) << r.message();
  ScriptRunner runner = std::move(r).value();
  FakeHost h;
  runToEnd(runner, h);
  fs::remove_all(dir);
  ASSERT_FALSE(runner.failed()) << runner.error();
  std::vector<std::string> want = {"open " + (dir / "model.fxjson.json").string(),
                                   "compare-trace base.lstrace",  // exists nowhere: as written
                                   "open /abs/x.lsg"};
  EXPECT_EQ(h.calls, want);
}

TEST(ScriptRunner, StageSwitchesToThePreparationRunAndBack) {
  FakeHost h;
  auto prep = std::make_shared<trace::Trace>(test::syntheticTrace("cu"));
  prep->pipeline = "quantize-pt2e";
  auto a = std::make_shared<trace::Trace>(test::syntheticTrace("cusc"));
  a->pipeline = "tosa";
  a->preparation = prep;
  h.run = a;
  auto r = ScriptRunner::parse("expect pipeline tosa\nstage quantizer\nexpect pipeline quantize-pt2e\nstage pipeline\n"
                               "expect pipeline tosa\n",
                               "t.lsscript");
  ASSERT_TRUE(r.isOk()) << r.message();
  for (int i = 0; i < 20 && !r->done(); ++i) r->step(h);
  EXPECT_FALSE(r->failed()) << r->error();
  EXPECT_EQ(h.calls, (std::vector<std::string>{"stage quantizer", "stage pipeline"}));
  // A run without one: the script fails naming the line.
  h.run = std::make_shared<const trace::Trace>(test::syntheticTrace("cu"));
  auto r2 = ScriptRunner::parse("stage quantizer\n", "t.lsscript");
  ASSERT_TRUE(r2.isOk());
  for (int i = 0; i < 20 && !r2->done(); ++i) r2->step(h);
  ASSERT_TRUE(r2->failed());
  EXPECT_NE(r2->error().find("t.lsscript:1"), std::string::npos) << r2->error();
  EXPECT_NE(r2->error().find("no preparation run"), std::string::npos) << r2->error();
  EXPECT_FALSE(ScriptRunner::parse("stage sideways\n", "t.lsscript").isOk());
}

TEST(ScriptRunner, PaneAddTakesFirstAndLastAsTheListKeysDo) {
  // first: the source row (Home); last: the last pass the pipeline list shows (End), so
  // with hide-skipped the last pass that ran. select pass and pin pass take them too.
  ScriptRunner r = parse("open m.fxjson.json\npane add last\npane add first\nfilter hide-skipped on\npane add last\n"
                         "select pass last\npin pass first\n");
  FakeHost h;
  h.next = std::make_shared<const trace::Trace>(test::syntheticTrace("cucs"));
  runToEnd(r, h);
  ASSERT_FALSE(r.failed()) << r.error();
  std::vector<std::string> want = {"open m.fxjson.json", "pane 3",   "pane -1", "filter true false ''",
                                   "pane 2",             "select 2", "pin -1"};
  EXPECT_EQ(h.calls, want);
  // A bad word still names what is accepted.
  ScriptRunner bad = parse("open m.fxjson.json\npane add lastt\n");
  FakeHost h2;
  runToEnd(bad, h2);
  ASSERT_TRUE(bad.failed());
  EXPECT_NE(bad.error().find("t.lsscript:2"), std::string::npos) << bad.error();
  EXPECT_NE(bad.error().find("first, last"), std::string::npos) << bad.error();
}

/// Run A of pipeline tosa ("cusc": Pass0..Pass3) prepared by a quantize-pt2e run whose passes
/// have their own names, as under --profile int.
viewmodel::TracePtr preparedRun() {
  auto prep = std::make_shared<trace::Trace>(test::syntheticTrace("cuc"));
  prep->pipeline = "quantize-pt2e";
  prep->records[0].name = "FuseBatchNorm2dPass";
  prep->records[1].name = "AnnotatePass";
  prep->records[2].name = "QuantizePt2ePass";
  auto a = std::make_shared<trace::Trace>(test::syntheticTrace("cusc"));
  a->pipeline = "tosa";
  a->preparation = prep;
  return a;
}

TEST(ScriptRunner, PreparationPassesCanBeNamedFromThePipelineRun) {
  // The pipeline list shows the quantizer's passes under "Prepared by quantize-pt2e": naming
  // one in select pass or pane add shows that run (as stage quantizer does) and picks it.
  FakeHost h;
  h.run = preparedRun();
  // From the quantizer's run a pipeline pass goes back the same way; RUN:NAME says which run.
  ScriptRunner r = parse(R"(select pass FuseBatchNorm2dPass
expect pipeline quantize-pt2e
expect pass-status changed
select pass Pass3
expect pipeline tosa
select pass quantize-pt2e:last
expect pipeline quantize-pt2e
stage pipeline
pane add QuantizePt2ePass
pane add last
expect pipeline quantize-pt2e
)");
  runToEnd(r, h);
  ASSERT_FALSE(r.failed()) << r.error();
  std::vector<std::string> want = {"stage quantizer", "select 0", "stage pipeline", "select 3",
                                   "stage quantizer", "select 2", "stage pipeline", "stage quantizer",
                                   "pane 2",          "pane 2"};
  EXPECT_EQ(h.calls, want);
  // A run name that is neither says which runs there are.
  FakeHost h2;
  h2.run = preparedRun();
  ScriptRunner bad = parse("select pass xnnpack:Pass1\n");
  runToEnd(bad, h2);
  ASSERT_TRUE(bad.failed());
  EXPECT_NE(bad.error().find("no run 'xnnpack' to name a pass of (the shown run is 'tosa', the quantizer's one "
                             "'quantize-pt2e')"),
            std::string::npos)
      << bad.error();
}

TEST(ScriptRunner, PaneAddDoesNotMixTheQuantizerAndThePipelineRuns) {
  // Panes show passes of the shown run: a quantizer pass while panes show pipeline passes is
  // an error that says how to get there, not a silent reinterpretation of those panes.
  FakeHost h;
  h.run = preparedRun();
  ScriptRunner r = parse("pane add Pass1\npane add QuantizePt2ePass\n");
  runToEnd(r, h);
  ASSERT_TRUE(r.failed());
  EXPECT_NE(r.error().find("t.lsscript:2"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("quantize-pt2e"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("pane clear"), std::string::npos) << r.error();
  // A name in neither run names both.
  FakeHost h2;
  h2.run = preparedRun();
  ScriptRunner none = parse("select pass NoSuchPass\n");
  runToEnd(none, h2);
  ASSERT_TRUE(none.failed());
  EXPECT_NE(none.error().find("no pass 'NoSuchPass' in the tosa run"), std::string::npos) << none.error();
  EXPECT_NE(none.error().find("nor in the quantize-pt2e run"), std::string::npos) << none.error();
}

TEST(ScriptRunner, KeepGoingCollectsFailuresAndRunsTheRest) {
  FakeHost h;
  h.run = h.next;
  auto r = ScriptRunner::parse("select pass NoSuchPass\nleave\nfit\n", "k.lsscript");
  ASSERT_TRUE(r.isOk());
  r->setKeepGoing(true);
  for (int i = 0; i < 20 && !r->done(); ++i) r->step(h);
  EXPECT_TRUE(r->done());
  EXPECT_FALSE(r->failed());
  ASSERT_EQ(r->errors().size(), 2u);
  EXPECT_NE(r->errors()[0].find("k.lsscript:1"), std::string::npos) << r->errors()[0];
  EXPECT_NE(r->errors()[1].find("k.lsscript:2"), std::string::npos) << r->errors()[1];
  EXPECT_EQ(h.calls.back(), "fit");
}

}  // namespace
}  // namespace ls::app

namespace ls::app {
namespace {

TEST(ScriptRunner, ExpectCulpritChecksTheLocalisationOfTheShownPass) {
  test::GraphBuilder b;
  auto x = b.input("x", {2});
  auto t = b.call("aten.tanh.default", {x}, {}, "t");
  b.output({t});
  auto g = std::make_shared<const ir::Graph>(b.g);
  auto tr = std::make_shared<trace::Trace>(test::syntheticTrace("cc"));
  tr->source = g;
  trace::Localization l;
  l.passIndex = 1;
  l.pass = "Pass1";
  trace::NodeError e;
  e.id = e.matched = t.node;
  e.error = 12.0;
  e.exceeds = e.source = true;
  l.nodes.push_back(e);
  l.culprit = t.node;
  tr->localization = std::make_shared<const trace::Localization>(l);
  struct Case {
    std::string script, error;
  };
  for (const Case& c : std::vector<Case>{
           {"select pass 1\nexpect culprit t\n", ""},
           {"select pass 1\nexpect culprit u\n", "t.lsscript:2: 'expect culprit u': expectation failed: got t"},
           {"select pass 0\nexpect culprit t\n",
            "t.lsscript:2: 'expect culprit t': expectation failed: got no localisation at pass 0"},
       }) {
    ScriptRunner r = parse(c.script);
    FakeHost h;
    h.run = tr;
    h.shown = g;
    runToEnd(r, h);
    EXPECT_EQ(r.failed(), !c.error.empty()) << c.script;
    if (!c.error.empty()) {
      EXPECT_EQ(r.error(), c.error);
    }
  }
  // Localised with nothing above tolerance: "none".
  l.culprit = ir::kInvalidNode;
  tr->localization = std::make_shared<const trace::Localization>(l);
  ScriptRunner none = parse("select pass 1\nexpect culprit none\n");
  FakeHost h;
  h.run = tr;
  h.shown = g;
  runToEnd(none, h);
  EXPECT_TRUE(none.done()) << none.error();
}

}  // namespace
}  // namespace ls::app
