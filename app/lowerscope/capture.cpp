// Back buffer capture with glReadPixels and stb_image_write.
#include "app/lowerscope/capture.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include <GL/gl.h>
#include <fmt/format.h>
#include <stb_image_write.h>

namespace ls::app {

Status captureBackBuffer(const std::string& path, int x, int y, int w, int h, int framebufferHeight) {
  if (w <= 0 || h <= 0) return Status::error(fmt::format("{}: empty capture rectangle", path));
  std::vector<unsigned char> px(size_t(w) * size_t(h) * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(x, framebufferHeight - y - h, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
  if (GLenum e = glGetError(); e != GL_NO_ERROR) return Status::error(fmt::format("{}: glReadPixels failed (0x{:x})", path, e));
  // GL rows go bottom-up; PNG rows top-down. Force opaque alpha.
  std::vector<unsigned char> flipped(px.size());
  size_t row = size_t(w) * 4;
  for (int r = 0; r < h; ++r) std::memcpy(&flipped[size_t(r) * row], &px[size_t(h - 1 - r) * row], row);
  for (size_t i = 3; i < flipped.size(); i += 4) flipped[i] = 255;
  if (!stbi_write_png(path.c_str(), w, h, 4, flipped.data(), int(row)))
    return Status::error(fmt::format("{}: cannot write PNG", path));
  return Status::ok();
}

}  // namespace ls::app
