// View caches keyed by trace generation, not address: a trace freed and replaced by another at
// the very same address (placement into one slot) makes the pipeline, timing and graph views
// rebuild their derived data.
#include <gtest/gtest.h>

#include <memory>
#include <new>

#include "tests/viewers/fixtures.h"
#include "viewers/graph_view.h"
#include "viewers/pipeline_view.h"
#include "viewers/timing_view.h"

namespace ls::viewers {
namespace {

/// Storage for one trace at a fixed address: each emplace() constructs the trace in the same
/// bytes, so an address-keyed cache would take the new trace for the old one. The previous
/// trace must have been released (the slot holds at most one).
class TraceSlot {
 public:
  viewmodel::TracePtr emplace(trace::Trace t) {
    EXPECT_FALSE(live_) << "release the previous trace first";
    live_ = true;
    auto* p = new (bytes_) trace::Trace(std::move(t));
    return viewmodel::TracePtr(p, [this](const trace::Trace* q) {
      q->~Trace();
      live_ = false;
    });
  }

 private:
  alignas(trace::Trace) unsigned char bytes_[sizeof(trace::Trace)];
  bool live_ = false;
};

TEST(ViewCache, PipelineViewRebuildsForANewTraceAtTheSameAddress) {
  TraceSlot slot;
  PipelineView v;
  ViewState s;
  s.filter.hideSkipped = true;
  s.trace = slot.emplace(test::syntheticTrace("ccss"));  // visible: 0 1
  const trace::Trace* addressA = s.trace.get();
  v.step(s, viewmodel::StepKey::Last);
  EXPECT_EQ(s.selectedPass, 1);

  s.trace.reset();                                       // A freed
  s.trace = slot.emplace(test::syntheticTrace("sscc"));  // visible: 2 3
  ASSERT_EQ(s.trace.get(), addressA);
  s.selectPass(-1);
  v.step(s, viewmodel::StepKey::Last);
  EXPECT_EQ(s.selectedPass, 3);  // an address-keyed cache still lists 0 1 and stops at 1
}

TEST(ViewCache, TimingComparisonRebuildsForANewTraceAtTheSameAddress) {
  TraceSlot slot;
  TimingView v;
  ViewState s;
  s.trace = std::make_shared<const trace::Trace>(test::syntheticTrace("cc"));
  s.compareTrace = slot.emplace(test::syntheticTrace("cc"));
  const trace::Trace* addressB = s.compareTrace.get();
  EXPECT_EQ(v.comparisonRows(s), 2u);

  s.compareTrace.reset();
  s.compareTrace = slot.emplace(test::syntheticTrace("cccc"));
  ASSERT_EQ(s.compareTrace.get(), addressB);
  EXPECT_EQ(v.comparisonRows(s), 4u);  // Pass2 and Pass3 only in B
}

TEST(ViewCache, GraphViewDiffRebuildsForANewTraceAtTheSameAddress) {
  viewmodel::TracePtr run = test::realRun("deit_tiny_vit.fxjson.json");
  ASSERT_TRUE(run);
  int changed = -1;
  for (const auto& r : run->records)
    if (r.status == passes::PassStatus::Changed) {
      changed = r.index;
      break;
    }
  ASSERT_GE(changed, 0);
  graph_layout::LayoutCache cache(graph_layout::LayoutOptions{});
  GraphView v(cache);
  TraceSlot slot;
  ViewState s;

  // A: a copy of the run (a copy keeps the generation; as documented, a changed copy gets a
  // new one, and so does this one, which stands for another run).
  trace::Trace a = *run;
  a.generation = trace::nextGeneration();
  s.trace = slot.emplace(std::move(a));
  const trace::Trace* address = s.trace.get();
  s.selectPass(changed);
  EXPECT_GT(v.diffSize(s), 0u);

  // B: the same model where that pass changed nothing (shown graph = the graph before it).
  s.trace.reset();
  trace::Trace b = *run;
  b.generation = trace::nextGeneration();
  b.records[size_t(changed)].status = passes::PassStatus::Unchanged;
  b.records[size_t(changed)].snapshot = -1;
  s.trace = slot.emplace(std::move(b));
  ASSERT_EQ(s.trace.get(), address);
  EXPECT_EQ(v.diffSize(s), 0u);
}

TEST(ViewCache, GraphKeysSeparateTracesAndFollowSnapshots) {
  viewmodel::TracePtr run = test::realRun("deit_tiny_vit.fxjson.json");
  ASSERT_TRUE(run);
  ViewState s;
  EXPECT_EQ(s.shownKey(), GraphKey{});  // no trace: the "no graph" key
  s.trace = run;
  // Passes that share a snapshot share the key (no rebuild while stepping over them).
  for (int p = 0; p < s.passCount(); ++p) {
    s.selectPass(p);
    GraphKey before = s.graphKeyAt(p - 1);
    EXPECT_EQ(s.shownKey().generation, run->generation);
    EXPECT_EQ(s.shownKey() == before, run->snapshotAfter(p) == run->snapshotAfter(p - 1)) << p;
  }
  // The same graphs (a copy shares them) under a new generation: other keys.
  auto copy = std::make_shared<trace::Trace>(*run);
  copy->generation = trace::nextGeneration();
  GraphKey k1 = s.graphKeyAt(-1);
  s.trace = copy;
  EXPECT_EQ(s.graphAt(-1).get(), run->source.get());
  EXPECT_NE(s.graphKeyAt(-1), k1);
}

}  // namespace
}  // namespace ls::viewers
