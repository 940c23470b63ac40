// Futex wait/wake on 32-bit words that may live in memory shared between
// processes (so the non-private operations are used).  Both are plain
// system calls and therefore async-signal-safe.
#pragma once
#include <atomic>
#include <cstdint>
#include <ctime>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/span_clock.hpp"

namespace rdsm {

// Sleeps while *word == expected, at most timeout_ns (0 = no limit).
inline void futex_wait(std::atomic<uint32_t> *word, uint32_t expected, uint64_t timeout_ns = 0) {
  timespec ts, *tp = nullptr;
  if (timeout_ns) {
    ts.tv_sec = (time_t)(timeout_ns / 1000000000ull);
    ts.tv_nsec = (long)(timeout_ns % 1000000000ull);
    tp = &ts;
  }
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(word), FUTEX_WAIT, expected, tp, nullptr, 0);
}

inline void futex_wake(std::atomic<uint32_t> *word, int count = 1 << 30) {
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(word), FUTEX_WAKE, count, nullptr, nullptr, 0);
}

inline void cpu_relax() { __builtin_ia32_pause(); }

// Spins until done() is true: at least 64 tries, and on until spin_ns have
// passed since `since` (a span_now_ns() reading; unread when spin_ns is 0).
// Returns whether done() became true.  Async-signal-safe if done() is.
template <class Done>
bool spin_until(const Done &done, uint64_t spin_ns, uint64_t since) {
  for (unsigned i = 1;; ++i) {
    cpu_relax();
    if (done()) return true;
    if (i % 64 == 0 && (!spin_ns || span_now_ns() - since > spin_ns)) return false;
  }
}

// A lock usable across threads and from a signal handler that interrupts a
// thread which does not hold it (the fault path never runs while its own
// thread is inside the runtime).  Futex-based, unfair, tiny.  A waiter
// spins a little before it sleeps; `spin_ns` makes that at least so long,
// for locks held only for a few instructions by threads that keep running,
// where a sleeping waiter would pay a wake-up (tens of microseconds where
// idle CPUs halt) for a wait of nanoseconds.
class FutexLock {
 public:
  explicit FutexLock(uint64_t spin_ns = 0) : spin_ns_(spin_ns) {}
  void set_spin_ns(uint64_t ns) { spin_ns_ = ns; }  // before the lock is shared
  void lock() {
    uint32_t c = 0;
    if (w_.compare_exchange_strong(c, 1, std::memory_order_acquire)) return;
    auto took = [&] {
      c = 0;
      return w_.load(std::memory_order_relaxed) == 0 && w_.compare_exchange_weak(c, 1, std::memory_order_acquire);
    };
    if (spin_until(took, spin_ns_, spin_ns_ ? span_now_ns() : 0)) return;
    if (c != 2) c = w_.exchange(2, std::memory_order_acquire);
    while (c != 0) {
      futex_wait(&w_, 2);
      c = w_.exchange(2, std::memory_order_acquire);
    }
  }
  bool try_lock() {
    uint32_t c = 0;
    return w_.compare_exchange_strong(c, 1, std::memory_order_acquire);
  }
  void unlock() {
    if (w_.exchange(0, std::memory_order_release) == 2) futex_wake(&w_, 1);
  }

 private:
  std::atomic<uint32_t> w_{0};
  uint64_t spin_ns_;
};

}  // namespace rdsm
