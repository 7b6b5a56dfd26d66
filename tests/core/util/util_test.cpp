// util: Status/Result and the one error-or-value macro, atomic file writes (never a
// half-written file), the JSON writer's escaping.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "core/util/atomic_file.h"
#include "core/util/json_writer.h"
#include "core/util/status.h"

namespace ls {
namespace {

Result<int> half(int x) {
  if (x % 2) return Status::error("odd: " + std::to_string(x));
  return x / 2;
}

/// Uses LS_ASSIGN_OR_RETURN twice in one scope; the second error is returned as is.
Result<int> quarter(int x) {
  LS_ASSIGN_OR_RETURN(h, half(x));
  LS_ASSIGN_OR_RETURN(q, half(h));
  return q;
}

Status check(int x) {
  LS_RETURN_IF_ERROR(half(x).status());
  return Status::ok();
}

TEST(Status, AssignOrReturnPropagatesTheFirstError) {
  EXPECT_EQ(quarter(8).value(), 2);
  auto r = quarter(6);
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.message(), "odd: 3");
  EXPECT_EQ(quarter(5).message(), "odd: 5");
  EXPECT_TRUE(check(4).isOk());
  EXPECT_EQ(check(3).message(), "odd: 3");
  EXPECT_EQ(Status::error("x").withContext("pass 'P': ").message(), "pass 'P': x");
}

TEST(AtomicFile, WritesWholeFilesAndFailsWithoutLeavingPartialOnes) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("ls_util_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "a.txt").string();
  ASSERT_TRUE(writeFileAtomic(path, "first").isOk());
  ASSERT_TRUE(writeFileAtomic(path, "second, longer").isOk());
  EXPECT_EQ(readFile(path).value(), "second, longer");
  Status bad = writeFileAtomic((dir / "missing_dir" / "b.txt").string(), "x");
  EXPECT_FALSE(bad.isOk());
  EXPECT_NE(bad.message().find("missing_dir"), std::string::npos) << bad.message();
  size_t files = 0;
  for (auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, 1u) << "no temporary file left behind";
  EXPECT_FALSE(readFile((dir / "nope").string()).isOk());
  fs::remove_all(dir);
}

TEST(JsonWriter, EscapesStringsAndNestsContainers) {
  JsonWriter w(false);
  w.beginObject().key("a\"b").value("line\nbreak\t\\").key("n").value(int64_t(-3)).key("l").beginArray().value(true).endArray().endObject();
  EXPECT_EQ(w.str(), R"({"a\"b":"line\nbreak\t\\","n":-3,"l":[true]})");
}

}  // namespace
}  // namespace ls
