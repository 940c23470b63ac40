// A node waiting for a remote word (atomic locks and barriers,
// sync/backoff.cpp) does its idle work where it would sleep, and only
// there: a wait that ends within its first polls costs the node nothing
// more, and idle work never holds up a wait once it has none left.
#include <gtest/gtest.h>

#include <cstdint>

#include "common/clock.hpp"
#include "sync/locks.hpp"

namespace rdsm::sync {
namespace {

TEST(Backoff, ShortWaitDoesNoIdleWork) {
  int polls = 0, idle = 0;
  backoff_until([&] { return ++polls > 3; }, nullptr, [&] { return ++idle, true; });
  EXPECT_EQ(polls, 4);
  EXPECT_EQ(idle, 0) << "idle work ran within the first polls of a wait";
}

TEST(Backoff, LongWaitDoesIdleWorkInsteadOfSleeping) {
  // 20 ms of waiting: sleeping, the wait would poll a few hundred times at
  // most (sleeps grow to 50 us); working instead of sleeping, it polls
  // after every piece of work.
  const uint64_t until = now_ns() + 20'000'000;
  int idle = 0;
  backoff_until([&] { return now_ns() >= until; }, nullptr, [&] {
    ++idle;
    return true;
  });
  EXPECT_GT(idle, 1000) << "the wait slept instead of doing its idle work";
}

TEST(Backoff, IdleWorkThatRunsOutLetsTheWaitSleep) {
  const uint64_t start = now_ns(), until = start + 20'000'000;
  int idle = 0, worked = 0, polls = 0;
  backoff_until(
      [&] {
        ++polls;
        return now_ns() >= until;
      },
      nullptr,
      [&] {
        ++idle;
        if (worked == 5) return false;
        ++worked;
        return true;
      });
  EXPECT_EQ(worked, 5);
  EXPECT_GT(idle, worked) << "the wait stopped asking for idle work";
  EXPECT_LT(polls, 5000) << "the wait polled without pause once its idle work ran out";
  EXPECT_GE(now_ns(), until);
}

}  // namespace
}  // namespace rdsm::sync
