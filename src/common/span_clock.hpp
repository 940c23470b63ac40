// A cheaper clock for the runtime's own time breakdown (ScopedTimer): the
// CPU's time-stamp counter scaled to nanoseconds, where the kernel itself
// keeps time by it (clocksource "tsc": constant rate, in step across CPUs).
// A clock_gettime costs about 17 ns on the machines we measure, a TSC read
// about 8, and an uncontended rdsm_lock + rdsm_unlock reads the clock four
// times.  Values follow CLOCK_MONOTONIC (now_ns) to within the scale's
// error, a few parts in 100,000 (microseconds over a second): good for
// durations and for comparing with a now_ns() instant, not for traces.
// Until the scale is known (1 ms after the program started) and wherever the
// counter is not the kernel's clocksource, it is now_ns().  Async-signal-safe.
#pragma once
#include <cstdint>

#include "common/clock.hpp"

namespace rdsm {
uint64_t span_now_ns();
}  // namespace rdsm
