// Lazy constants through the Arm FP pipeline: lowering a real model (shape-only weights) makes no
// weight bytes; each CONV2D weight is a recipe that says where it came from ("fold_bn(...) ->
// permute OHWI"); the .tosa writer and .lsg save write exactly the materialised bytes.
#include <gtest/gtest.h>

#include <cstring>

#include "core/backends/arm/tosa/tosa_writer.h"
#include "core/exec/materialize.h"
#include "core/io/lsg.h"
#include "core/session/lowering_session.h"

namespace ls {
namespace {

struct Lowered {
  ir::Graph g;
  std::vector<const ir::Node*> weights;  // get_attr weights of CONV2D / DEPTHWISE_CONV2D
};

Lowered lowerResnet18() {
  session::SessionConfig c;
  c.pipeline = "tosa";
  auto src = session::LoweringSession::load(std::string(LS_ASSETS_DIR) + "/graphs/resnet18.fxjson.json");
  EXPECT_TRUE(src.isOk()) << src.message();
  auto o = session::LoweringSession(c).lower(std::move(src).value(), "resnet18");
  EXPECT_TRUE(o.isOk()) << o.message();
  EXPECT_FALSE(o->failed()) << o->result.failure;
  Lowered l{o->finalGraph, {}};
  static const ir::OpId conv = ir::internOp("tosa.CONV2D");
  for (const ir::NodePtr& p : l.g.nodes())
    if (p->op == conv) l.weights.push_back(&l.g.node(p->args.at(1).ref()->node));
  return l;
}

TEST(LazyConstants, LoweringMakesNoWeightBytesAndRecordsRecipes) {
  Lowered l = lowerResnet18();
  ASSERT_EQ(l.weights.size(), 20u);  // 17 3x3/7x7 convs + 3 downsample 1x1
  for (const ir::Node* w : l.weights) {
    const ir::Constant* c = l.g.constant(w->target);
    ASSERT_TRUE(c && c->recipe) << w->name;
    EXPECT_FALSE(c->hasData()) << w->name;
    const std::string d = c->recipe->describe();
    EXPECT_EQ(d.rfind("fold_bn(", 0), 0u) << d;
    EXPECT_NE(d.find(".*) -> permute OHWI"), std::string::npos) << d;
  }
}

TEST(LazyConstants, TosaAndLsgHoldTheMaterialisedBytes) {
  Lowered l = lowerResnet18();
  ASSERT_FALSE(l.weights.empty());
  auto bytes = io::serializeTosa(l.g, io::TosaWriteOptions{.synthesizeMissingData = true});
  ASSERT_TRUE(bytes.isOk()) << bytes.message();
  auto info = io::readTosaBytes(*bytes, "mem.tosa");
  ASSERT_TRUE(info.isOk()) << info.message();
  auto lsg = io::serializeLsg(l.g);
  ASSERT_TRUE(lsg.isOk()) << lsg.message();
  auto back = io::loadLsgBytes(*lsg, "mem.lsg");
  ASSERT_TRUE(back.isOk()) << back.message();
  for (const ir::Node* w : {l.weights.front(), l.weights.back()}) {
    const ir::Constant* c = l.g.constant(w->target);
    auto v = exec::materialize(*c);
    ASSERT_TRUE(v.isOk()) << v.message();
    const io::TosaTensorInfo* t = info->mainBlock()->tensor(w->name);
    ASSERT_TRUE(t && t->hasData) << w->name;
    ASSERT_EQ(t->data.size(), v->nbytes());
    EXPECT_EQ(std::memcmp(t->data.data(), v->bytes(), v->nbytes()), 0) << w->name;
    const ir::Constant* saved = back->constant(w->target);
    ASSERT_TRUE(saved && saved->hasData()) << w->name;
    ASSERT_EQ(saved->data->bytes.size(), v->nbytes());
    EXPECT_EQ(std::memcmp(saved->data->bytes.data(), v->bytes(), v->nbytes()), 0) << w->name;
    ASSERT_TRUE(saved->recipe);
    EXPECT_EQ(saved->recipe->describe(), c->recipe->describe());  // the file keeps where it came from
  }
}

}  // namespace
}  // namespace ls
