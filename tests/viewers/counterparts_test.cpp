// Node counterparts across passes: survivors keep their id; a rewritten node maps forward to the
// nodes that replaced it and back to the node they came from, through every snapshot between.
#include "viewers/model/counterparts.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "tests/viewers/fixtures.h"

namespace ls::viewmodel {
namespace {

TEST(Counterparts, ConvolutionForwardToConv2dAndBack) {
  viewmodel::TracePtr run = test::pipelineRun("mobilenet_v2.fxjson.json", "tosa");
  ASSERT_TRUE(run);
  const trace::Trace& t = *run;
  const int last = int(t.records.size()) - 1;
  const ir::NodeId conv = t.source->findByName("convolution");
  ASSERT_NE(conv, ir::kInvalidNode);
  const ir::NodeId input = t.source->findByName("x");
  ASSERT_NE(input, ir::kInvalidNode);

  // A node no pass removes keeps its id everywhere.
  EXPECT_EQ(counterparts(t, -1, last, {input}), std::vector<ir::NodeId>{input});
  EXPECT_EQ(counterparts(t, -1, -1, {conv}), std::vector<ir::NodeId>{conv});

  // Forward: the convolution is gone from the final graph; what replaced it includes a CONV2D.
  std::vector<ir::NodeId> fwd = counterparts(t, -1, last, {conv});
  ASSERT_FALSE(fwd.empty());
  const ir::Graph& fin = t.finalGraph();
  EXPECT_EQ(fin.find(conv), nullptr);
  ir::NodeId conv2d = ir::kInvalidNode;
  for (ir::NodeId id : fwd) {
    ASSERT_NE(fin.find(id), nullptr);
    if (ir::opName(fin.node(id).op) == "tosa.CONV2D") conv2d = id;
  }
  ASSERT_NE(conv2d, ir::kInvalidNode);
  // Backward from that CONV2D: the convolution it came from (and nothing it did not).
  std::vector<ir::NodeId> back = counterparts(t, last, -1, {conv2d});
  EXPECT_TRUE(std::find(back.begin(), back.end(), conv) != back.end());
  for (ir::NodeId id : back) EXPECT_NE(t.source->find(id), nullptr);
  // No other convolution maps to this CONV2D.
  for (ir::NodeId id : back)
    if (ir::opName(t.source->node(id).op) == "aten.convolution.default") {
      EXPECT_EQ(id, conv);
    }
}

TEST(Counterparts, AcrossTwoRunsOfTheSameModel) {
  // tosa and tosa-permute start from the same graph: a CONV2D of one run's final graph maps to
  // the other run's CONV2D of the same convolution, through the source.
  viewmodel::TracePtr a = test::pipelineRun("mobilenet_v2.fxjson.json", "tosa");
  viewmodel::TracePtr b = test::pipelineRun("mobilenet_v2.fxjson.json", "tosa-permute");
  ASSERT_TRUE(a && b);
  EXPECT_TRUE(sharedLineage(*a, *b));  // loaded twice: same ids and names
  const int lastA = int(a->records.size()) - 1, lastB = int(b->records.size()) - 1;
  const ir::NodeId conv = a->source->findByName("convolution");
  ASSERT_NE(conv, ir::kInvalidNode);
  ir::NodeId conv2dA = ir::kInvalidNode;
  for (ir::NodeId id : counterparts(*a, -1, lastA, {conv}))
    if (ir::opName(a->finalGraph().node(id).op) == "tosa.CONV2D") conv2dA = id;
  ASSERT_NE(conv2dA, ir::kInvalidNode);
  std::vector<ir::NodeId> inB = crossCounterparts(*a, lastA, *b, lastB, {conv2dA});
  ASSERT_FALSE(inB.empty());
  bool conv2dB = false;
  for (ir::NodeId id : inB) {
    ASSERT_NE(b->finalGraph().find(id), nullptr);
    conv2dB |= ir::opName(b->finalGraph().node(id).op) == "tosa.CONV2D";
    // ... and each of them comes from that same convolution.
    std::vector<ir::NodeId> back = counterparts(*b, lastB, -1, {id});
    EXPECT_TRUE(std::find(back.begin(), back.end(), conv) != back.end());
  }
  EXPECT_TRUE(conv2dB);
  // The same trace: plain counterparts.
  EXPECT_EQ(crossCounterparts(*a, -1, *a, lastA, {conv}), counterparts(*a, -1, lastA, {conv}));
}

TEST(Counterparts, UnrelatedRunsMatchByName) {
  viewmodel::TracePtr a = test::realRun("resnet18.fxjson.json");
  viewmodel::TracePtr b = test::realRun("mobilenet_v2.fxjson.json");
  ASSERT_TRUE(a && b);
  EXPECT_FALSE(sharedLineage(*a, *b));
  const ir::NodeId xa = a->source->findByName("x"), xb = b->source->findByName("x");
  ASSERT_NE(xa, ir::kInvalidNode);
  ASSERT_NE(xb, ir::kInvalidNode);
  EXPECT_EQ(crossCounterparts(*a, -1, *b, -1, {xa}), std::vector<ir::NodeId>{xb});
  // A name only one graph has: nothing.
  const ir::NodeId only = a->source->findByName("layer4_1_conv2_weight");
  ASSERT_NE(only, ir::kInvalidNode);
  EXPECT_TRUE(crossCounterparts(*a, -1, *b, -1, {only}).empty());
}

}  // namespace
}  // namespace ls::viewmodel
