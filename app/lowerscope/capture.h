// PNG captures of the current back buffer (screenshots and chart exports).
#pragma once

#include <string>

#include "core/util/status.h"

namespace ls::app {

/// Reads the rectangle (x, y, w, h) of the back buffer (framebuffer pixels, origin top-left)
/// and writes it as PNG. Call after rendering and before swapping buffers.
Status captureBackBuffer(const std::string& path, int x, int y, int w, int h, int framebufferHeight);

}  // namespace ls::app
