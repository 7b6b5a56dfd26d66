// Calibration samples from .npy files (calibration.h).
#include "core/session/calibration.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "core/io/npy.h"

namespace ls::session {

namespace fs = std::filesystem;

namespace {

struct Input {
  std::string name;
  ir::TensorMeta meta;
};

std::string shapeText(const ir::Shape& s) { return fmt::format("[{}]", fmt::join(s.dims(), ", ")); }

/// The samples `t` (read from `file`) holds for input `in`: itself, or each row of a stack.
Result<std::vector<exec::Tensor>> samplesOf(exec::Tensor t, const Input& in, const std::string& file) {
  if (t.dtype() == ir::DType::Float64 && in.meta.dtype == ir::DType::Float32) t = t.to(ir::DType::Float32);
  if (t.dtype() != in.meta.dtype)
    return Status::error(fmt::format("--calibration {}: holds {} values, input '{}' is {}", file,
                                     ir::dtypeName(t.dtype()), in.name, ir::dtypeName(in.meta.dtype)));
  const ir::Shape& want = in.meta.shape;
  if (t.shape() == want) return std::vector<exec::Tensor>{std::move(t)};
  // A stack: [N, ...want], or [N, ...want[1:]] when want[0] == 1.
  const std::vector<int64_t> dims = t.shape().toVector(), w = want.toVector();
  std::vector<int64_t> rest(dims.begin() + (dims.empty() ? 0 : 1), dims.end());
  const bool stacked = !dims.empty() && (rest == w || (!w.empty() && w[0] == 1 && rest == std::vector<int64_t>(w.begin() + 1, w.end())));
  if (!stacked || dims[0] < 1)
    return Status::error(fmt::format("--calibration {}: shape {} is neither input '{}''s shape {} nor a stack of "
                                     "samples of it ([N, ...])",
                                     file, shapeText(t.shape()), in.name, shapeText(want)));
  std::vector<exec::Tensor> out;
  const size_t bytes = size_t(want.numel()) * size_t(ir::dtypeSize(in.meta.dtype));
  for (int64_t i = 0; i < dims[0]; ++i)
    out.push_back(exec::Tensor::fromBytes(in.meta.dtype, want, std::span<const uint8_t>(t.bytes() + size_t(i) * bytes, bytes)));
  return out;
}

Result<std::vector<exec::Tensor>> readSamples(const fs::path& file, const Input& in) {
  auto t = io::readNpyFile(file.string());
  if (!t) return Status::error(fmt::format("--calibration: {}", t.message()));
  return samplesOf(std::move(t).value(), in, file.string());
}

std::vector<fs::path> sortedEntries(const fs::path& dir, bool directories) {
  std::vector<fs::path> out;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    if (directories ? e.is_directory() : (e.is_regular_file() && e.path().extension() == ".npy")) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Samples from per-input files <dir>/<input>.npy (batches of the same N), or null when some
/// input has no file there.
Result<std::vector<CalibrationSample>> perInputFiles(const fs::path& dir, const std::vector<Input>& inputs, bool* found) {
  *found = std::all_of(inputs.begin(), inputs.end(), [&](const Input& in) { return fs::is_regular_file(dir / (in.name + ".npy")); });
  if (!*found) return std::vector<CalibrationSample>{};
  std::vector<std::vector<exec::Tensor>> per;
  for (const Input& in : inputs) {
    LS_ASSIGN_OR_RETURN(s, readSamples(dir / (in.name + ".npy"), in));
    per.push_back(std::move(s));
  }
  for (size_t i = 1; i < per.size(); ++i)
    if (per[i].size() != per[0].size())
      return Status::error(fmt::format("--calibration {}: {}.npy holds {} samples, {}.npy {}: every input needs the same "
                                       "number",
                                       dir.string(), inputs[0].name, per[0].size(), inputs[i].name, per[i].size()));
  std::vector<CalibrationSample> out(per.empty() ? 0 : per[0].size());
  for (size_t s = 0; s < out.size(); ++s)
    for (auto& column : per) out[s].push_back(std::move(column[s]));
  return out;
}

}  // namespace

Result<std::vector<CalibrationSample>> loadCalibrationSamples(const std::string& path, const ir::Graph& g) {
  std::vector<Input> inputs;
  for (const ir::NodePtr& p : g.nodes())
    if (p->kind == ir::NodeKind::Placeholder) inputs.push_back({p->name, p->meta(0)});
  if (inputs.empty()) return Status::error(fmt::format("--calibration {}: the graph has no inputs to calibrate with", path));
  std::string names;
  for (const Input& in : inputs) names += fmt::format("{}{} {}", names.empty() ? "" : ", ", in.name, ir::toString(in.meta));
  std::error_code ec;
  const fs::path root(path);
  std::vector<CalibrationSample> out;
  if (fs::is_regular_file(root, ec)) {
    if (inputs.size() != 1)
      return Status::error(fmt::format("--calibration {}: the graph has {} inputs ({}); give a directory with one "
                                       "<input>.npy per input",
                                       path, inputs.size(), names));
    LS_ASSIGN_OR_RETURN(s, readSamples(root, inputs[0]));
    for (exec::Tensor& t : s) out.push_back({std::move(t)});
  } else if (fs::is_directory(root, ec)) {
    bool found = false;
    LS_ASSIGN_OR_RETURN(direct, perInputFiles(root, inputs, &found));
    if (found) {
      out = std::move(direct);
    } else if (auto subdirs = sortedEntries(root, true); !subdirs.empty()) {
      for (const fs::path& d : subdirs) {
        bool has = false;
        LS_ASSIGN_OR_RETURN(s, perInputFiles(d, inputs, &has));
        if (!has && inputs.size() == 1) {
          auto files = sortedEntries(d, false);
          if (files.size() != 1)
            return Status::error(fmt::format("--calibration {}: expected {}.npy (or one .npy file) in the sample "
                                             "directory, found {}",
                                             d.string(), inputs[0].name, files.size()));
          LS_ASSIGN_OR_RETURN(one, readSamples(files[0], inputs[0]));
          for (exec::Tensor& t : one) s.push_back({std::move(t)});
          has = true;
        }
        if (!has)
          return Status::error(fmt::format("--calibration {}: a sample directory needs <input>.npy for every input ({})",
                                           d.string(), names));
        for (CalibrationSample& x : s) out.push_back(std::move(x));
      }
    } else if (inputs.size() == 1) {
      for (const fs::path& f : sortedEntries(root, false)) {
        LS_ASSIGN_OR_RETURN(s, readSamples(f, inputs[0]));
        for (exec::Tensor& t : s) out.push_back({std::move(t)});
      }
    } else {
      return Status::error(fmt::format("--calibration {}: expected <input>.npy for every input ({}) or sample "
                                       "directories holding them",
                                       path, names));
    }
  } else {
    return Status::error(fmt::format("--calibration {}: no such file or directory", path));
  }
  if (out.empty()) return Status::error(fmt::format("--calibration {}: no .npy samples found (inputs: {})", path, names));
  return out;
}

}  // namespace ls::session
