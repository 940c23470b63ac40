#include "common/span_clock.hpp"

#include <atomic>
#include <cstdio>
#include <cstring>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace rdsm {

#if defined(__x86_64__)
namespace {

constexpr uint64_t kCalibrationNs = 1000000;  // 1 ms between the two readings of the scale (error: a few parts in 100,000)

bool kernel_keeps_time_by_tsc() {
  FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");
  if (!f) return false;
  char name[32] = {};
  bool tsc = fgets(name, sizeof name, f) && strncmp(name, "tsc", 3) == 0 && (name[3] == '\n' || name[3] == 0);
  fclose(f);
  return tsc;
}

// A clock_gettime and the counter at the same instant: the tightest of a
// few brackets of counter readings around the call, so that a thread
// preempted in between (a virtual CPU descheduled) cannot skew the scale.
void paired_reading(uint64_t &ns, uint64_t &tsc) {
  uint64_t best = UINT64_MAX;
  for (int i = 0; i < 5; ++i) {
    const uint64_t a = __rdtsc(), t = now_ns(), b = __rdtsc();
    if (b - a < best) best = b - a, ns = t, tsc = a + (b - a) / 2;
  }
}

// Set once, before any thread reads them (static initialisation).
struct Base {
  bool usable = false;
  uint64_t ns = 0, tsc = 0;
  Base() {
    usable = kernel_keeps_time_by_tsc();
    paired_reading(ns, tsc);
  }
};
const Base g_base;
// Nanoseconds per tick << 32; 0 until measured.
std::atomic<uint64_t> g_scale{0};

}  // namespace

uint64_t span_now_ns() {
  if (!g_base.usable) return now_ns();
  uint64_t scale = g_scale.load(std::memory_order_relaxed);
  if (scale == 0) {
    uint64_t ns = now_ns(), tsc = 0;
    if (ns - g_base.ns < kCalibrationNs) return ns;
    paired_reading(ns, tsc);
    if (tsc > g_base.tsc) {
      // Racing threads store values a reading apart: any will do.
      g_scale.store((uint64_t)((((unsigned __int128)(ns - g_base.ns)) << 32) / (tsc - g_base.tsc)),
                    std::memory_order_relaxed);
    }
    return ns;
  }
  const uint64_t ticks = __rdtsc() - g_base.tsc;
  return g_base.ns + (uint64_t)(((unsigned __int128)ticks * scale) >> 32);
}

#else

uint64_t span_now_ns() { return now_ns(); }

#endif

}  // namespace rdsm
