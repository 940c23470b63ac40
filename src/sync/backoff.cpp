// Waiting for a remote word to change (atomic locks and barriers): the
// waiter polls, since a one-sided protocol has nobody to wake it.  It
// yields the CPU between polls for the first kSpinNs (the usual wait: the
// last node's arrival, a lock hand-off), so that a node sharing its core
// with others lets them run, then sleeps in growing steps up to 50 us.
// Sleeping costs wake-up latency on every barrier that waits that long,
// so the first sleeps are short, and the thread's timer slack is cut to
// 1 us (the default 50 us would make every short sleep a 50 us one).
// A node with idle work (locks.hpp) does it instead of sleeping.
#include <ctime>
#include <sched.h>
#include <sys/prctl.h>

#include "common/clock.hpp"
#include "sync/locks.hpp"

namespace rdsm::sync {

namespace {
constexpr uint64_t kSpinNs = 50'000;

void short_timer_slack() {
  thread_local bool done = false;
  if (!done) {
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    done = true;
  }
}
}  // namespace

void backoff_until(const std::function<bool()> &ready, const std::function<void()> &while_waiting,
                   const IdleWork &idle_work) {
  if (ready()) return;
  uint64_t start = now_ns();
  long sleep_ns = 1000;
  for (unsigned i = 0; !ready(); ++i) {
    if (i % 16 == 0 && while_waiting) while_waiting();
    if (i < 64 || now_ns() - start < kSpinNs) {
      sched_yield();
    } else if (!(idle_work && idle_work())) {
      short_timer_slack();
      timespec ts{0, sleep_ns};
      nanosleep(&ts, nullptr);
      if (sleep_ns < 50000) sleep_ns += sleep_ns / 2;
    }
  }
}

}  // namespace rdsm::sync
