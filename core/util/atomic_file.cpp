// Atomic file writes and whole-file reads.
#include "core/util/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

namespace ls {

Status writeFileAtomic(const std::string& path, std::string_view bytes) {
  std::random_device rd;
  std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(rd());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::error(path + ": cannot create temporary file: " + std::strerror(errno));
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + off, bytes.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return Status::error(path + ": write failed: " + std::strerror(e));
    }
    off += size_t(n);
  }
  if (::fsync(fd) != 0 && errno != EINVAL) {
    int e = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    return Status::error(path + ": fsync failed: " + std::strerror(e));
  }
  if (::close(fd) != 0) {
    ::unlink(tmp.c_str());
    return Status::error(path + ": close failed");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    return Status::error(path + ": rename failed: " + std::strerror(e));
  }
  return Status::ok();
}

Result<std::string> readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error(path + ": cannot open file: " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Status::error(path + ": read failed");
  return ss.str();
}

}  // namespace ls
