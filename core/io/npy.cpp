// NumPy .npy reader and writer (see npy.h). Format: magic "\x93NUMPY", major and minor version
// bytes, header length (uint16 LE for 1.0, uint32 LE for 2.0/3.0), then a Python dict literal
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with spaces and a newline
// so the data starts at a multiple of 64 bytes.
#include "core/io/npy.h"

#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "core/util/atomic_file.h"

namespace ls::io {

namespace {

using ir::DType;

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

struct TypeCode {
  const char* descr;  ///< without the byte-order character
  DType dtype;
};
constexpr TypeCode kTypes[] = {{"b1", DType::Bool},    {"i1", DType::Int8},     {"u1", DType::UInt8},
                               {"i2", DType::Int16},   {"u2", DType::UInt16},   {"i4", DType::Int32},
                               {"i8", DType::Int64},   {"f2", DType::Float16},  {"f4", DType::Float32},
                               {"f8", DType::Float64}};

/// The value text after `'key':` in the header dict, up to the matching end.
Result<std::string_view> dictValue(std::string_view header, std::string_view key, const std::string& src) {
  for (char q : {'\'', '"'}) {
    const std::string k = fmt::format("{}{}{}", q, key, q);
    size_t at = header.find(k);
    if (at == std::string_view::npos) continue;
    at = header.find(':', at + k.size());
    if (at == std::string_view::npos) break;
    ++at;
    while (at < header.size() && header[at] == ' ') ++at;
    size_t end = at;
    if (at < header.size() && header[at] == '(') {
      end = header.find(')', at);
      if (end == std::string_view::npos) break;
      ++end;
    } else if (at < header.size() && (header[at] == '\'' || header[at] == '"')) {
      end = header.find(header[at], at + 1);
      if (end == std::string_view::npos) break;
      ++end;
    } else {
      while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
    }
    return header.substr(at, end - at);
  }
  return Status::error(fmt::format("{}: .npy header has no '{}' entry: {}", src, key, header));
}

Result<ir::Shape> parseShape(std::string_view v, const std::string& src) {
  if (v.size() < 2 || v.front() != '(' || v.back() != ')')
    return Status::error(fmt::format("{}: .npy shape must be a tuple, got {}", src, v));
  ir::Shape s;
  std::string_view body = v.substr(1, v.size() - 2);
  size_t i = 0;
  while (i < body.size()) {
    while (i < body.size() && (body[i] == ' ' || body[i] == ',')) ++i;
    if (i >= body.size()) break;
    size_t j = i;
    while (j < body.size() && body[j] >= '0' && body[j] <= '9') ++j;
    if (j == i || j - i > 18) return Status::error(fmt::format("{}: .npy shape entry is not a size: {}", src, v));
    int64_t d = 0;
    for (size_t k = i; k < j; ++k) d = d * 10 + (body[k] - '0');
    if (s.rank() >= ir::kMaxRank)
      return Status::error(fmt::format("{}: .npy shape {} has more than {} dims (the most a tensor here has)", src, v,
                                       ir::kMaxRank));
    s.push(d);
    i = j;
    while (i < body.size() && body[i] == 'L') ++i;  // Python 2 longs
  }
  return s;
}

}  // namespace

Result<exec::Tensor> decodeNpy(std::string_view bytes, const std::string& src) {
  if (bytes.size() < kMagicLen + 4 || std::memcmp(bytes.data(), kMagic, kMagicLen) != 0)
    return Status::error(fmt::format("{}: not a .npy file (no \\x93NUMPY magic)", src));
  const uint8_t major = uint8_t(bytes[6]);
  size_t headerLen = 0, offset = 0;
  if (major == 1) {
    headerLen = size_t(uint8_t(bytes[8])) | size_t(uint8_t(bytes[9])) << 8;
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return Status::error(fmt::format("{}: truncated .npy header", src));
    headerLen = size_t(uint8_t(bytes[8])) | size_t(uint8_t(bytes[9])) << 8 | size_t(uint8_t(bytes[10])) << 16 |
                size_t(uint8_t(bytes[11])) << 24;
    offset = 12;
  } else {
    return Status::error(fmt::format("{}: .npy format version {}.{} is not supported (1.0-3.0)", src, int(major),
                                     int(uint8_t(bytes[7]))));
  }
  if (headerLen > bytes.size() - offset)
    return Status::error(fmt::format("{}: truncated .npy header ({} bytes announced, {} present)", src, headerLen,
                                     bytes.size() - offset));
  const std::string_view header = bytes.substr(offset, headerLen);
  LS_ASSIGN_OR_RETURN(descrV, dictValue(header, "descr", src));
  LS_ASSIGN_OR_RETURN(fortranV, dictValue(header, "fortran_order", src));
  LS_ASSIGN_OR_RETURN(shapeV, dictValue(header, "shape", src));
  if (descrV.size() < 4) return Status::error(fmt::format("{}: .npy descr {} is not an element type", src, descrV));
  const std::string_view descr = descrV.substr(1, descrV.size() - 2);
  if (fortranV != "False")
    return Status::error(fmt::format("{}: Fortran-order .npy arrays are not supported (save np.ascontiguousarray(x))", src));
  const char order = descr.empty() ? '?' : descr[0];
  const std::string_view code = descr.substr(1);
  const TypeCode* tc = nullptr;
  for (const TypeCode& t : kTypes)
    if (code == t.descr) tc = &t;
  if (!tc)
    return Status::error(fmt::format("{}: .npy element type '{}' is not supported (bool, int8-64, uint8/16, "
                                     "float16/32/64)", src, descr));
  const bool oneByte = ir::dtypeSize(tc->dtype) == 1;
  if (order == '>' && !oneByte)
    return Status::error(fmt::format("{}: big-endian .npy data ('{}') is not supported; save it little-endian "
                                     "(x.astype(x.dtype.newbyteorder('<')))", src, descr));
  if (order != '<' && order != '|' && order != '=' && !(oneByte && order == '>'))
    return Status::error(fmt::format("{}: .npy byte order '{}' is not understood", src, order));
  LS_ASSIGN_OR_RETURN(shape, parseShape(shapeV, src));
  int64_t numel = 1;
  for (int64_t d : shape.dims())
    if (__builtin_mul_overflow(numel, d, &numel) || numel > (int64_t(1) << 40))
      return Status::error(fmt::format("{}: .npy shape {} is too large", src, shapeV));
  const size_t need = size_t(numel) * ir::dtypeSize(tc->dtype);
  const std::string_view data = bytes.substr(offset + headerLen);
  if (data.size() != need)
    return Status::error(fmt::format("{}: .npy data holds {} bytes, the header's {} {} needs {}", src, data.size(),
                                     descr, shapeV, need));
  return exec::Tensor::fromBytes(tc->dtype, shape,
                                 std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(data.data()), data.size()));
}

Result<exec::Tensor> readNpyFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Status::error(fmt::format("{}: cannot open file", path));
  std::ostringstream ss;
  ss << f.rdbuf();
  return decodeNpy(ss.str(), path);
}

Result<std::string> encodeNpy(const exec::Tensor& t) {
  const TypeCode* tc = nullptr;
  for (const TypeCode& c : kTypes)
    if (c.dtype == t.dtype()) tc = &c;
  if (!tc) return Status::error(fmt::format("{} has no NumPy element type", ir::dtypeName(t.dtype())));
  std::string shape = "(";
  for (int i = 0; i < t.rank(); ++i) shape += fmt::format("{}{}", t.dim(i), t.rank() == 1 ? "," : i + 1 < t.rank() ? ", " : "");
  shape += ")";
  const char order = ir::dtypeSize(t.dtype()) == 1 ? '|' : '<';
  std::string header = fmt::format("{{'descr': '{}{}', 'fortran_order': False, 'shape': {}, }}", order, tc->descr, shape);
  // Pad with spaces so magic + version + length + header (ending in '\n') is a multiple of 64.
  size_t prefix = kMagicLen + 2 + 2;
  const bool v2 = header.size() + 1 + prefix > 65535;
  if (v2) prefix += 2;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header.push_back('\n');
  std::string out(kMagic, kMagicLen);
  out.push_back(char(v2 ? 2 : 1));
  out.push_back(char(0));
  const size_t n = header.size();
  out.push_back(char(n & 0xff));
  out.push_back(char((n >> 8) & 0xff));
  if (v2) {
    out.push_back(char((n >> 16) & 0xff));
    out.push_back(char((n >> 24) & 0xff));
  }
  out += header;
  if (t.nbytes()) out.append(reinterpret_cast<const char*>(t.bytes()), t.nbytes());
  return out;
}

Status writeNpyFile(const std::string& path, const exec::Tensor& t) {
  auto bytes = encodeNpy(t);
  if (!bytes) return Status::error(fmt::format("{}: {}", path, bytes.message()));
  return writeFileAtomic(path, *bytes);
}

}  // namespace ls::io
