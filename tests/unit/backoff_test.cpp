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

// The waits below end on what the wait did, not after a fixed time: on a
// busy machine its first polls (each a sched_yield) can take longer than
// any such time, and a wait that never reaches its idle work (or never
// sleeps) still ends, at kGiveUpNs, and fails.
constexpr uint64_t kGiveUpNs = 10'000'000'000;

TEST(Backoff, LongWaitDoesIdleWorkInsteadOfSleeping) {
  // Sleeping, the wait would poll a few hundred times in 20 ms (sleeps grow
  // to 50 us); working instead of sleeping, it polls after every piece of
  // work: 2000 pieces take well under a millisecond.
  const uint64_t give_up = now_ns() + kGiveUpNs;
  int idle = 0;
  backoff_until([&] { return idle >= 2000 || now_ns() >= give_up; }, nullptr, [&] {
    ++idle;
    return true;
  });
  EXPECT_GE(idle, 2000) << "the wait slept instead of doing its idle work";
}

TEST(Backoff, IdleWorkThatRunsOutLetsTheWaitSleep) {
  // Once the idle work runs out, the wait goes on for 20 ms: sleeping, it
  // polls a few hundred times; polling without pause, millions.
  const uint64_t give_up = now_ns() + kGiveUpNs;
  uint64_t ran_out = 0;
  int idle = 0, worked = 0, polls = 0;
  backoff_until(
      [&] {
        ++polls;
        const uint64_t now = now_ns();
        return (ran_out && now >= ran_out + 20'000'000) || now >= give_up;
      },
      nullptr,
      [&] {
        ++idle;
        if (worked == 5) {
          if (!ran_out) ran_out = now_ns(), polls = 0;
          return false;
        }
        ++worked;
        return true;
      });
  EXPECT_EQ(worked, 5);
  EXPECT_GT(idle, worked) << "the wait stopped asking for idle work";
  EXPECT_NE(ran_out, 0u) << "the idle work never ran out: the wait never asked for it";
  EXPECT_LT(polls, 5000) << "the wait polled without pause once its idle work ran out";
}

}  // namespace
}  // namespace rdsm::sync
