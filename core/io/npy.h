// NumPy .npy files (format versions 1.0, 2.0, 3.0): one tensor per file, C order, little
// endian. Read and written here (the format is a short text header and raw bytes), for
// `lowerscope-cli run` inputs and outputs.
#pragma once

#include <string>
#include <string_view>

#include "core/exec/tensor.h"
#include "core/util/status.h"

namespace ls::io {

/// Parses .npy bytes. Supported element types: bool, int8/16/32/64, uint8/16, float16/32/64
/// (little endian or single byte). Fortran-order and big-endian arrays, other element types
/// and a data size that does not match the header are errors naming `sourceName` and what
/// was expected.
Result<exec::Tensor> decodeNpy(std::string_view bytes, const std::string& sourceName);
Result<exec::Tensor> readNpyFile(const std::string& path);

/// The .npy bytes of `t` (format 1.0, or 2.0 when the header needs it). An element type NumPy
/// has no type for (bfloat16) is an error.
Result<std::string> encodeNpy(const exec::Tensor& t);
/// Writes `t` atomically (temp file + rename).
Status writeNpyFile(const std::string& path, const exec::Tensor& t);

}  // namespace ls::io
