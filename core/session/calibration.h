// Calibration on the user's data (--calibration): the INT quantizer's observers see these
// samples instead of the seeded inputs. A sample is one tensor per graph input, in placeholder
// order, each of the input's dtype and shape.
#pragma once

#include <string>
#include <vector>

#include "core/exec/tensor.h"
#include "core/ir/graph.h"
#include "core/util/status.h"

namespace ls::session {

/// One calibration sample: a tensor per graph input, in placeholder order.
using CalibrationSample = std::vector<exec::Tensor>;

/// Reads calibration samples for `g` from `path`:
///  - a .npy file (a graph with one input): one sample of the input's shape, or a stacked batch
///    of N samples ([N, ...shape], or [N, ...shape without its leading 1] for an input whose
///    batch dimension is 1);
///  - a directory holding <input name>.npy for every input: a sample or a stacked batch each,
///    the same N for all;
///  - a directory of sample directories (taken in name order), each holding <input name>.npy
///    for every input (any one .npy file for a graph with one input);
///  - for a graph with one input, a directory of .npy files (name order), each a sample or a
///    batch.
/// Float64 data (NumPy's default) is converted to a float32 input; any other dtype must be the
/// input's. Errors name the file, the input and the shape expected.
Result<std::vector<CalibrationSample>> loadCalibrationSamples(const std::string& path, const ir::Graph& g);

}  // namespace ls::session
