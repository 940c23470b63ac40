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

// A lock usable across threads and from a signal handler that interrupts a
// thread which does not hold it (the fault path never runs while its own
// thread is inside the runtime).  Futex-based, unfair, tiny.
class FutexLock {
 public:
  void lock() {
    uint32_t c = 0;
    if (w_.compare_exchange_strong(c, 1, std::memory_order_acquire)) return;
    for (int i = 0; i < 64; ++i) {
      cpu_relax();
      c = 0;
      if (w_.compare_exchange_weak(c, 1, std::memory_order_acquire)) return;
    }
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
};

}  // namespace rdsm
