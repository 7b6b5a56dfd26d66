// libFuzzer target for the .npy reader (`lowerscope-cli run --input`): any bytes give a tensor or
// an error naming the file, never a crash; a tensor read is written again and reads back with
// the same dtype, shape and bytes.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "core/io/npy.h"

namespace {

[[noreturn]] void die(const char* what, const std::string& detail) {
  std::fprintf(stderr, "npy_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string name = "fuzz.npy";
  auto t = ls::io::decodeNpy(std::string_view(reinterpret_cast<const char*>(data), size), name);
  if (!t) {
    if (t.message().find(name) == std::string::npos) die("error does not name the file", t.message());
    return 0;
  }
  auto again = ls::io::encodeNpy(*t);
  if (!again) die("a tensor read does not write", again.message());
  auto back = ls::io::decodeNpy(*again, "again.npy");
  if (!back) die("written .npy does not read back", back.message());
  if (back->meta() != t->meta()) die("round trip changed dtype or shape", name);
  if (t->nbytes() && std::memcmp(back->bytes(), t->bytes(), t->nbytes()) != 0) die("round trip changed bytes", name);
  return 0;
}
