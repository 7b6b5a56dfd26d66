// Clocks of the engine's timings: wall (steady) and the calling thread's CPU time. Pass times
// are wall time; the thread CPU time next to them does not grow while other threads or
// processes hold the cores, so comparisons on a loaded machine use it.
#pragma once

#include <time.h>

#include <chrono>
#include <cstdint>

namespace ls {

/// Steady wall clock in nanoseconds (an arbitrary origin).
inline int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// CPU time the calling thread has used, in nanoseconds.
inline int64_t threadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + int64_t(ts.tv_nsec);
}

}  // namespace ls
