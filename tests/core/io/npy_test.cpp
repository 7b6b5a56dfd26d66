// NumPy .npy reading and writing (core/io/npy.h).
#include "core/io/npy.h"

#include <gtest/gtest.h>

#include <cstring>

namespace ls::io {
namespace {

using ir::DType;
using ir::Shape;

/// .npy bytes as NumPy writes them (format 1.0): magic, version, header length, the header
/// dict padded with spaces to a 64-byte boundary and ended by a newline, then the data.
std::string numpyBytes(const std::string& dict, const std::string& data, int major = 1) {
  const size_t prefix = major == 1 ? 10 : 12;
  std::string header = dict;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header.push_back('\n');
  std::string s("\x93NUMPY", 6);
  s.push_back(char(major));
  s.push_back(0);
  s.push_back(char(header.size() & 0xff));
  s.push_back(char(header.size() >> 8));
  if (major != 1) s.append(2, '\0');
  return s + header + data;
}

TEST(Npy, RoundTripsEveryElementTypeAndShape) {
  const std::vector<std::pair<DType, Shape>> cases = {
      {DType::Float32, Shape{2, 3}}, {DType::Float64, Shape{4}},      {DType::Float16, Shape{1, 2, 2}},
      {DType::Int8, Shape{5}},       {DType::UInt8, Shape{2, 2}},     {DType::Int16, Shape{3}},
      {DType::Int32, Shape{2, 1, 3}}, {DType::Int64, Shape{}},         {DType::Bool, Shape{3, 0}},
      {DType::UInt16, Shape{2}}};
  for (const auto& [dt, shape] : cases) {
    SCOPED_TRACE(ir::dtypeName(dt));
    exec::Tensor t(dt, shape);
    for (int64_t i = 0; i < t.numel(); ++i) t.setDouble(i, dt == DType::Bool ? double(i % 2) : double(i % 7) - 2.0 * (dt != DType::UInt8 && dt != DType::UInt16));
    auto bytes = encodeNpy(t);
    ASSERT_TRUE(bytes.isOk()) << bytes.message();
    EXPECT_EQ((bytes->find('\n') + 1) % 64, 0u) << "data starts on a 64-byte boundary";
    auto back = decodeNpy(*bytes, "t.npy");
    ASSERT_TRUE(back.isOk()) << back.message();
    EXPECT_EQ(back->dtype(), dt);
    EXPECT_EQ(back->shape(), shape);
    ASSERT_EQ(back->nbytes(), t.nbytes());
    if (t.nbytes()) {
      EXPECT_EQ(std::memcmp(back->bytes(), t.bytes(), t.nbytes()), 0);
    }
  }
  exec::Tensor bf(DType::BFloat16, Shape{2});
  EXPECT_FALSE(encodeNpy(bf).isOk());
}

TEST(Npy, ReadsWhatNumPyWrites) {
  const int32_t vals[6] = {1, -2, 3, 40000, -5, 6};
  std::string data(reinterpret_cast<const char*>(vals), sizeof(vals));
  auto t = decodeNpy(numpyBytes("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", data), "a.npy");
  ASSERT_TRUE(t.isOk()) << t.message();
  EXPECT_EQ(t->dtype(), DType::Int32);
  EXPECT_EQ(t->shape(), (Shape{2, 3}));
  EXPECT_EQ(t->getInt(3), 40000);
  // 1-D "(3,)", a 0-d "()", format 2.0, one-byte types with '|'.
  const float f[3] = {0.5f, -1.0f, 2.0f};
  auto v = decodeNpy(numpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
                                std::string(reinterpret_cast<const char*>(f), sizeof(f)), 2),
                     "v.npy");
  ASSERT_TRUE(v.isOk()) << v.message();
  EXPECT_EQ(v->shape(), (Shape{3}));
  EXPECT_EQ(v->getDouble(1), -1.0);
  auto s = decodeNpy(numpyBytes("{'descr': '|b1', 'fortran_order': False, 'shape': (), }", std::string(1, '\1')), "s.npy");
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(s->shape(), Shape{});
  EXPECT_EQ(s->dtype(), DType::Bool);
}

TEST(Npy, BadFilesAreErrorsNamingTheFileAndWhatWasExpected) {
  auto err = [](const std::string& bytes) {
    auto r = decodeNpy(bytes, "x.npy");
    EXPECT_FALSE(r.isOk());
    return r.isOk() ? std::string() : r.message();
  };
  const std::string four(16, '\0');
  EXPECT_NE(err("PK\x03\x04 not npy").find("x.npy: not a .npy file"), std::string::npos);
  EXPECT_NE(err(numpyBytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", four)).find("Fortran-order"),
            std::string::npos);
  EXPECT_NE(err(numpyBytes("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 2), }", four)).find("big-endian"),
            std::string::npos);
  EXPECT_NE(err(numpyBytes("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", four)).find("not supported"),
            std::string::npos);
  EXPECT_NE(err(numpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }", four)).find("needs 24"),
            std::string::npos);
  EXPECT_NE(err(numpyBytes("{'descr': '<f4', 'fortran_order': False, }", four)).find("no 'shape'"), std::string::npos);
  // More dims than a tensor here holds (found by npy_fuzz: wrote past the shape's storage).
  EXPECT_NE(err(numpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, 1, 1), }", four))
                .find("more than 8 dims"),
            std::string::npos);
  std::string v9 = numpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", std::string(4, '\0'));
  v9[6] = 9;
  EXPECT_NE(err(v9).find("version 9.0"), std::string::npos);
  std::string cut = numpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", "");
  EXPECT_NE(err(cut.substr(0, 20)).find("truncated"), std::string::npos);
  EXPECT_FALSE(readNpyFile("/nonexistent/dir/x.npy").isOk());
}

}  // namespace
}  // namespace ls::io
