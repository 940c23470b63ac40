// Monotonic time in nanoseconds; clock_gettime is async-signal-safe.
#pragma once
#include <cstdint>
#include <ctime>

namespace rdsm {
inline uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
inline double ns_to_s(uint64_t ns) { return (double)ns * 1e-9; }
}  // namespace rdsm
