#include <ctime>
#include <sched.h>

#include "sync/locks.hpp"

namespace rdsm::sync {

void backoff_until(const std::function<bool()> &ready, const std::function<void()> &while_waiting) {
  long sleep_ns = 1000;
  for (unsigned i = 0; !ready(); ++i) {
    if (i % 16 == 0 && while_waiting) while_waiting();
    if (i < 64) {
      sched_yield();
    } else {
      timespec ts{0, sleep_ns};
      nanosleep(&ts, nullptr);
      if (sleep_ns < 50000) sleep_ns += sleep_ns / 2;
    }
  }
}

}  // namespace rdsm::sync
