// Lazy constants through the Arm FP pipeline: lowering a real model (shape-only weights) makes no
// weight bytes; each CONV2D weight is a recipe that says where it came from ("fold_bn(...) ->
// permute OHWI"); the .tosa writer and .lsg save write exactly the materialised bytes. INT: the
// quantizer's int8 weights and the Arm INT weight permutes are recipes too ("<weight> ->
// quantize per channel int8 -> permute OHWI / KN"), the lowered graph holds no bytes for them,
// and what the .tosa writer writes equals quantising and permuting eagerly.
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

TEST(LazyConstants, IntLoweringKeepsQuantisedWeightsAsRecipes) {
  session::SessionConfig c;
  c.pipeline = "tosa";
  c.profile = passes::Profile::INT;
  auto src = session::LoweringSession::load(std::string(LS_ASSETS_DIR) + "/graphs/deit_tiny_vit.fxjson.json");
  ASSERT_TRUE(src.isOk()) << src.message();
  auto o = session::LoweringSession(c).lower(std::move(src).value(), "deit_tiny_vit");
  ASSERT_TRUE(o.isOk()) << o.message();
  ASSERT_FALSE(o->failed()) << o->result.failure;
  const ir::Graph& g = o->finalGraph;
  static const ir::OpId matmul = ir::internOp("tosa.MATMUL"), conv = ir::internOp("tosa.CONV2D");
  std::vector<const ir::Node*> weights;
  for (const ir::NodePtr& p : g.nodes()) {
    if (p->op != matmul && p->op != conv) continue;
    const ir::Node& w = g.node(p->args.at(1).ref()->node);
    if (w.kind == ir::NodeKind::GetAttr) weights.push_back(&w);
  }
  ASSERT_GE(weights.size(), 40u);  // patch embedding + 4 linears in each of 12 blocks + head
  auto bytes = io::serializeTosa(g, io::TosaWriteOptions{.synthesizeMissingData = true});
  ASSERT_TRUE(bytes.isOk()) << bytes.message();
  auto info = io::readTosaBytes(*bytes, "mem.tosa");
  ASSERT_TRUE(info.isOk()) << info.message();
  for (const ir::Node* w : weights) {
    const ir::Constant* k = g.constant(w->target);
    ASSERT_TRUE(k && k->recipe) << w->name;
    EXPECT_FALSE(k->hasData()) << w->name;
    const std::string d = k->recipe->describe();
    EXPECT_TRUE(d.ends_with(" -> quantize per channel int8 -> permute OHWI") ||
                d.ends_with(" -> quantize per channel int8 -> permute KN"))
        << d;
    // The eager computation: quantise the float weight per output channel by its scales, then
    // permute (the bytes the passes made before they were recipes).
    const ir::ConstantRecipe& perm = *k->recipe;
    const ir::Constant& q = perm.inputs().at(0);
    const ir::Constant& fw = q.recipe->inputs().at(0);
    const ir::Constant& sc = q.recipe->inputs().at(1);
    auto fv = exec::materialize(fw);
    auto sv = exec::materialize(sc);
    ASSERT_TRUE(fv.isOk() && sv.isOk());
    exec::Tensor eagerQ = exec::quantizePerChannel(*fv, 0, sv->data<float>(), -127, 127, ir::DType::Int8);
    exec::Tensor eager = d.ends_with("KN") ? exec::permuteTensor(eagerQ, {1, 0}).reshaped(ir::Shape{1, fw.shape[1], fw.shape[0]})
                                           : exec::permuteTensor(eagerQ, {0, 2, 3, 1});
    const io::TosaTensorInfo* t = info->mainBlock()->tensor(w->name);
    ASSERT_TRUE(t && t->hasData) << w->name;
    ASSERT_EQ(t->data.size(), eager.nbytes()) << w->name;
    EXPECT_EQ(std::memcmp(t->data.data(), eager.bytes(), eager.nbytes()), 0) << w->name;
  }
}

}  // namespace
}  // namespace ls
