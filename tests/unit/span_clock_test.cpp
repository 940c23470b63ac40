// The time breakdown's clock (common/span_clock.hpp) must measure what
// CLOCK_MONOTONIC measures: a wrong scale would misstate every wait and
// protocol time in the statistics.
#include <gtest/gtest.h>

#include <cstdint>
#include <ctime>

#include "common/span_clock.hpp"

namespace rdsm {
namespace {

void sleep_ns(uint64_t ns) {
  timespec ts{(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

TEST(SpanClock, FollowsTheMonotonicClock) {
  sleep_ns(3000000);  // past the scale's calibration
  (void)span_now_ns();
  const uint64_t m0 = now_ns(), s0 = span_now_ns();
  sleep_ns(50000000);
  const uint64_t m1 = now_ns(), s1 = span_now_ns();
  const double ratio = (double)(s1 - s0) / (double)(m1 - m0);
  EXPECT_NEAR(ratio, 1.0, 0.01) << "50 ms measured as " << (s1 - s0) / 1e6 << " ms";
  // An instant, compared with now_ns() instants (the statistics' reset).
  const int64_t off = (int64_t)span_now_ns() - (int64_t)now_ns();
  EXPECT_LT(off < 0 ? -off : off, 1000000) << "span clock " << off << " ns from the monotonic clock";
}

TEST(SpanClock, NeverRunsBackwards) {
  uint64_t last = span_now_ns();
  for (int i = 0; i < 100000; ++i) {
    const uint64_t t = span_now_ns();
    ASSERT_GE(t + 2000, last) << "at reading " << i;  // a few ns of jitter where the scale is first set
    last = t > last ? t : last;
  }
}

}  // namespace
}  // namespace rdsm
