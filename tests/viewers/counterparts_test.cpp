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
    if (ir::opName(t.source->node(id).op) == "aten.convolution.default") EXPECT_EQ(id, conv);
}

}  // namespace
}  // namespace ls::viewmodel
