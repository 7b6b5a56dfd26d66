// Atomic file writes and whole-file reads.
#include "core/util/atomic_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <random>

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
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::error(path + ": cannot open file: " + std::strerror(errno));
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Status::error(path + ": cannot stat file: " + std::strerror(errno));
  // A regular file is read with one buffer of its size (plus the padding parsers may read past
  // the end); anything else (a pipe, /dev/stdin) grows as it reads.
  std::string out;
  size_t expected = S_ISREG(st.st_mode) ? size_t(st.st_size) : 0;
  out.reserve(expected + kReadFilePadding);
  out.resize(expected);
  size_t off = 0;
  char more[1 << 16];
  for (;;) {
    // Past the expected size (a file that grew, or not a regular file): append in chunks.
    const bool inBuffer = off < out.size();
    ssize_t n = inBuffer ? ::read(fd, out.data() + off, out.size() - off) : ::read(fd, more, sizeof more);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::error(path + ": read failed: " + std::strerror(errno));
    }
    if (!inBuffer) out.append(more, size_t(n));
    off += size_t(n);
  }
  out.resize(off);
  if (out.capacity() - out.size() < kReadFilePadding) out.reserve(out.size() + kReadFilePadding);
  return out;
}

Result<std::shared_ptr<const FileBytes>> FileBytes::map(const std::string& path) {
  std::shared_ptr<FileBytes> f(new FileBytes());
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::error(path + ": cannot open file: " + std::strerror(errno));
  struct stat st {};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
  void* p = regular ? ::mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0) : MAP_FAILED;
  ::close(fd);  // a mapping outlives its descriptor
  if (p != MAP_FAILED) {
    f->data_ = static_cast<const char*>(p);
    f->size_ = size_t(st.st_size);
    f->mapped_ = true;
    return std::shared_ptr<const FileBytes>(std::move(f));
  }
  LS_ASSIGN_OR_RETURN(bytes, readFile(path));  // not mappable (a pipe, an empty file): read it
  f->read_ = std::move(bytes);
  f->data_ = f->read_.data();
  f->size_ = f->read_.size();
  return std::shared_ptr<const FileBytes>(std::move(f));
}

FileBytes::~FileBytes() {
  if (mapped_) ::munmap(const_cast<char*>(data_), size_);
}

}  // namespace ls
