// util: Status/Result and the one error-or-value macro, atomic file writes (never a
// half-written file), the JSON writer's escaping.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "core/util/atomic_file.h"
#include "core/util/json_syntax.h"
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

TEST(ReadFile, ReadsWholeFilesWithPaddingAndFilesWithoutAKnownSize) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("ls_util_read_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  // Larger than one read chunk, with every byte value.
  std::string big(3 * 65536 + 17, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = char((i * 131) & 0xff);
  const std::string path = (dir / "big.bin").string();
  ASSERT_TRUE(writeFileAtomic(path, big).isOk());
  auto r = readFile(path);
  ASSERT_TRUE(r.isOk()) << r.message();
  EXPECT_EQ(*r, big);
  EXPECT_GE(r->capacity() - r->size(), kReadFilePadding);
  ASSERT_TRUE(writeFileAtomic(path, "").isOk());
  EXPECT_EQ(readFile(path).value(), "");
  // /proc files report size 0 but have content: read until the end, not to the stat size.
  auto status = readFile("/proc/self/status");
  ASSERT_TRUE(status.isOk()) << status.message();
  EXPECT_NE(status->find("Name:"), std::string::npos);
  EXPECT_GE(status->capacity() - status->size(), kReadFilePadding);
  // A directory is an error that names it.
  auto d = readFile(dir.string());
  EXPECT_FALSE(d.isOk());
  EXPECT_NE(d.message().find(dir.string()), std::string::npos) << d.message();
  fs::remove_all(dir);
}

TEST(FileBytes, MapsRegularFilesAndReadsTheRest) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("ls_util_map_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string big(5 * 4096 + 3, '\0');  // not a whole number of pages
  for (size_t i = 0; i < big.size(); ++i) big[i] = char((i * 131) & 0xff);
  const std::string path = (dir / "big.bin").string();
  ASSERT_TRUE(writeFileAtomic(path, big).isOk());
  auto f = FileBytes::map(path);
  ASSERT_TRUE(f.isOk()) << f.message();
  EXPECT_TRUE((*f)->mapped());
  EXPECT_EQ((*f)->bytes(), big);
  // Replaced by rename (as every writer of ours does) while mapped: the mapping keeps the old
  // bytes, and a new map sees the new ones.
  std::string other(100, 'x');
  ASSERT_TRUE(writeFileAtomic(path, other).isOk());
  EXPECT_EQ((*f)->bytes(), big);
  EXPECT_EQ(FileBytes::map(path).value()->bytes(), other);
  // An empty file, a /proc file (stat size 0) and a pipe-like file are read, not mapped.
  ASSERT_TRUE(writeFileAtomic(path, "").isOk());
  auto empty = FileBytes::map(path);
  ASSERT_TRUE(empty.isOk()) << empty.message();
  EXPECT_FALSE((*empty)->mapped());
  EXPECT_TRUE((*empty)->bytes().empty());
  auto status = FileBytes::map("/proc/self/status");
  ASSERT_TRUE(status.isOk()) << status.message();
  EXPECT_FALSE((*status)->mapped());
  EXPECT_NE((*status)->bytes().find("Name:"), std::string_view::npos);
  // Missing files and directories are errors naming the path.
  auto missing = FileBytes::map((dir / "nope").string());
  ASSERT_FALSE(missing.isOk());
  EXPECT_NE(missing.message().find("nope"), std::string::npos) << missing.message();
  auto d = FileBytes::map(dir.string());
  ASSERT_FALSE(d.isOk());
  EXPECT_NE(d.message().find(dir.string()), std::string::npos) << d.message();
  fs::remove_all(dir);
}

TEST(JsonWriter, EscapesStringsAndNestsContainers) {
  JsonWriter w(false);
  w.beginObject().key("a\"b").value("line\nbreak\t\\").key("n").value(int64_t(-3)).key("l").beginArray().value(true).endArray().endObject();
  EXPECT_EQ(w.str(), R"({"a\"b":"line\nbreak\t\\","n":-3,"l":[true]})");
}

}  // namespace
TEST(JsonSyntax, ValidDocumentsHaveNoError) {
  for (const char* ok : {"{}", "[]", " {\"a\": [1, -2.5e+3, true, false, null, \"x\\u00e9\\n\"]} ", "0", "\"\""})
    EXPECT_FALSE(findJsonSyntaxError(ok).has_value()) << ok;
}

TEST(JsonSyntax, FirstErrorWithLineColumnAndWhatWasExpected) {
  struct Case {
    const char* json;
    size_t line, column;
    const char* expected;
  };
  const Case cases[] = {
      {"{\"a\": [1, 2 3]}", 1, 13, "',' or ']' in an array"},
      {"{\n  \"a\": 1,\n  \"b\" 2\n}", 3, 7, "':' after a member name"},
      {"{\"a\": tru}", 1, 7, "'true'"},
      {"{\"a\": 1} x", 1, 10, "the end of the document"},
      {"{\"a\": \"open", 1, 12, "a closing '\"' (the document ends inside a string)"},
      {"[01]", 1, 3, "',' or ']' in an array"},
      {"[1.]", 1, 4, "a digit after the decimal point"},
      {"{\"a\": \"\\q\"}", 1, 9, "an escape"},
      {"{\"a\": 1,}", 1, 9, "a member name in double quotes"},
      {"", 1, 1, "a value (the document ends here)"},
  };
  for (const Case& c : cases) {
    auto e = findJsonSyntaxError(c.json);
    ASSERT_TRUE(e.has_value()) << c.json;
    EXPECT_EQ(e->line, c.line) << c.json;
    EXPECT_EQ(e->column, c.column) << c.json;
    EXPECT_NE(e->expected.find(c.expected), std::string::npos) << c.json << " -> " << e->expected;
  }
}

TEST(JsonSyntax, DeepNestingIsAnErrorNotAStackOverflow) {
  std::string deep(100000, '[');
  auto e = findJsonSyntaxError(deep, 1024);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->offset, 1025u);
  EXPECT_NE(e->expected.find("nesting at most 1024 deep"), std::string::npos);
  EXPECT_EQ(describeJsonError("[1 2]", "bad"), "invalid JSON at line 1, column 4 (byte 3): expected ',' or ']' in an array (bad)");
}

}  // namespace ls
