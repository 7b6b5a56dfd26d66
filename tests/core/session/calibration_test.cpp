// Calibration samples from the user's .npy files (core/session/calibration.h): a sample or a
// stack per file, per-input files, sample directories; float64 data for a float32 input; every
// wrong shape, dtype or layout refused naming the file and what was expected. A session with
// `calibration` set quantizes on those samples.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/io/npy.h"
#include "core/session/calibration.h"
#include "core/session/lowering_session.h"
#include "support/graph_builder.h"

namespace ls::session {
namespace {

namespace fs = std::filesystem;
using ir::DType;

fs::path scratch(const std::string& tag) {
  fs::path d = fs::temp_directory_path() / ("ls_calib_" + tag + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

exec::Tensor ramp(DType t, ir::Shape s, double offset = 0) {
  std::vector<double> v(size_t(s.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = offset + 0.125 * double(i % 17) - 1.0;
  return exec::Tensor::fromDoubles(t, s, v);
}

void write(const fs::path& p, const exec::Tensor& t) { ASSERT_TRUE(io::writeNpyFile(p.string(), t).isOk()) << p; }

ir::Graph oneInput() {
  test::GraphBuilder b;
  b.output({b.call("aten.relu.default", {b.input("x", {1, 3, 4})})});
  return std::move(b.g);
}

ir::Graph twoInputs() {
  test::GraphBuilder b;
  b.output({b.call("aten.add.Tensor", {b.input("a", {2, 3}), b.input("b", {3})})});
  return std::move(b.g);
}

TEST(Calibration, OneFileIsASampleOrAStack) {
  const fs::path d = scratch("file");
  const ir::Graph g = oneInput();
  write(d / "one.npy", ramp(DType::Float32, {1, 3, 4}));
  write(d / "stack.npy", ramp(DType::Float32, {5, 1, 3, 4}));
  write(d / "batch.npy", ramp(DType::Float64, {7, 3, 4}));  // [N, ...shape without its leading 1], float64
  auto one = loadCalibrationSamples((d / "one.npy").string(), g);
  ASSERT_TRUE(one.isOk()) << one.message();
  EXPECT_EQ(one->size(), 1u);
  auto stack = loadCalibrationSamples((d / "stack.npy").string(), g);
  ASSERT_TRUE(stack.isOk()) << stack.message();
  ASSERT_EQ(stack->size(), 5u);
  EXPECT_EQ((*stack)[4][0].shape(), (ir::Shape{1, 3, 4}));
  // Sample 4 of the stack is its 5th block of 12 values.
  EXPECT_EQ((*stack)[4][0].getDouble(0), ramp(DType::Float32, {5, 1, 3, 4}).getDouble(48));
  auto batch = loadCalibrationSamples((d / "batch.npy").string(), g);
  ASSERT_TRUE(batch.isOk()) << batch.message();
  ASSERT_EQ(batch->size(), 7u);
  EXPECT_EQ((*batch)[0][0].dtype(), DType::Float32);
  fs::remove_all(d);
}

TEST(Calibration, DirectoriesOfInputFilesOfSamplesAndOfFiles) {
  const fs::path d = scratch("dirs");
  const ir::Graph g2 = twoInputs();
  fs::create_directories(d / "per_input");
  write(d / "per_input" / "a.npy", ramp(DType::Float32, {4, 2, 3}));
  write(d / "per_input" / "b.npy", ramp(DType::Float32, {4, 3}));
  auto per = loadCalibrationSamples((d / "per_input").string(), g2);
  ASSERT_TRUE(per.isOk()) << per.message();
  ASSERT_EQ(per->size(), 4u);
  EXPECT_EQ((*per)[3].size(), 2u);
  for (const char* s : {"s0", "s1", "s2"}) {
    fs::create_directories(d / "samples" / s);
    write(d / "samples" / s / "a.npy", ramp(DType::Float32, {2, 3}));
    write(d / "samples" / s / "b.npy", ramp(DType::Float32, {3}));
  }
  auto samples = loadCalibrationSamples((d / "samples").string(), g2);
  ASSERT_TRUE(samples.isOk()) << samples.message();
  EXPECT_EQ(samples->size(), 3u);
  const ir::Graph g1 = oneInput();
  fs::create_directories(d / "files");
  write(d / "files" / "0.npy", ramp(DType::Float32, {1, 3, 4}));
  write(d / "files" / "1.npy", ramp(DType::Float32, {2, 1, 3, 4}));
  auto files = loadCalibrationSamples((d / "files").string(), g1);
  ASSERT_TRUE(files.isOk()) << files.message();
  EXPECT_EQ(files->size(), 3u);
  fs::remove_all(d);
}

TEST(Calibration, BadDataIsRefusedNamingFileInputAndShape) {
  const fs::path d = scratch("bad");
  const ir::Graph g1 = oneInput(), g2 = twoInputs();
  write(d / "wrong.npy", ramp(DType::Float32, {3, 5}));
  write(d / "ints.npy", ramp(DType::Int32, {1, 3, 4}));
  auto shape = loadCalibrationSamples((d / "wrong.npy").string(), g1);
  ASSERT_FALSE(shape.isOk());
  EXPECT_NE(shape.message().find("wrong.npy"), std::string::npos) << shape.message();
  EXPECT_NE(shape.message().find("input 'x'"), std::string::npos) << shape.message();
  EXPECT_NE(shape.message().find("[1, 3, 4]"), std::string::npos) << shape.message();
  auto dtype = loadCalibrationSamples((d / "ints.npy").string(), g1);
  ASSERT_FALSE(dtype.isOk());
  EXPECT_NE(dtype.message().find("int32"), std::string::npos) << dtype.message();
  auto twoFromFile = loadCalibrationSamples((d / "wrong.npy").string(), g2);
  ASSERT_FALSE(twoFromFile.isOk());
  EXPECT_NE(twoFromFile.message().find("2 inputs"), std::string::npos) << twoFromFile.message();
  auto missing = loadCalibrationSamples((d / "nothing_here").string(), g1);
  ASSERT_FALSE(missing.isOk());
  EXPECT_NE(missing.message().find("no such file"), std::string::npos) << missing.message();
  fs::create_directories(d / "mismatch");
  write(d / "mismatch" / "a.npy", ramp(DType::Float32, {4, 2, 3}));
  write(d / "mismatch" / "b.npy", ramp(DType::Float32, {3, 3}));
  auto counts = loadCalibrationSamples((d / "mismatch").string(), g2);
  ASSERT_FALSE(counts.isOk());
  EXPECT_NE(counts.message().find("same number"), std::string::npos) << counts.message();
  fs::remove_all(d);
}

TEST(Calibration, ASessionQuantizesOnTheUsersSamples) {
  const fs::path d = scratch("session");
  write(d / "x.npy", ramp(DType::Float32, {6, 1, 3, 4}, 3.0));  // values in [2, 4]: not the seeded [-1, 1]
  SessionConfig c;
  c.pipeline = "tosa";
  c.profile = passes::Profile::INT;
  c.calibration = (d / "x.npy").string();
  auto p = LoweringSession(c).prepare(oneInput());
  ASSERT_TRUE(p.isOk()) << p.message();
  EXPECT_NE(p->quantizeSummary.find("calibrated on 6 samples of the user's data"), std::string::npos)
      << p->quantizeSummary;
  c.calibration = (d / "absent.npy").string();
  auto bad = LoweringSession(c).prepare(oneInput());
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.message().find("absent.npy"), std::string::npos) << bad.message();
  fs::remove_all(d);
}

}  // namespace
}  // namespace ls::session
