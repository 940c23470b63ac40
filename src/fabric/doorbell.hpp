// A doorbell: a futex word in memory shared between the processes of one
// host, on which a receiver sleeps and which a sender rings after it has
// published something for it (a ring record, an MPI send).
//
// Lost wake-ups are excluded by the sleepers count: a sleeper reads the
// bell, increments sleepers, looks once more for work and then sleeps only
// if the bell still has the value it read; a sender publishes, bumps the
// bell and then reads sleepers.  All seq_cst, so either the sender sees the
// sleeper or the sleeper sees the work (or the new bell value).  Every word
// starts as zero, so a doorbell in a fresh file needs no initialisation.
#pragma once
#include <atomic>
#include <cstdint>

#include "common/futex.hpp"

namespace rdsm::fabric {

struct Doorbell {
  alignas(64) std::atomic<uint32_t> bell;  // bumped by every ring()
  std::atomic<uint32_t> sleepers;          // threads asleep (or about to be) on bell

  // Async-signal-safe (atomics and a system call).
  void ring() {
    bell.fetch_add(1, std::memory_order_seq_cst);
    if (sleepers.load(std::memory_order_seq_cst) > 0) futex_wake(&bell);
  }
  uint32_t peek() const { return bell.load(std::memory_order_seq_cst); }
  // Sleeps while the bell still reads `seen` (read with peek() before the
  // caller last looked for work), unless `ready()` finds work once this
  // thread counts as a sleeper; at most timeout_ns (0: no limit).
  template <class Ready>
  void sleep(uint32_t seen, Ready &&ready, uint64_t timeout_ns = 0) {
    sleepers.fetch_add(1, std::memory_order_seq_cst);
    if (!ready()) futex_wait(&bell, seen, timeout_ns);
    sleepers.fetch_sub(1, std::memory_order_seq_cst);
  }
};
static_assert(std::atomic<uint32_t>::is_always_lock_free, "doorbells need address-free atomics");

}  // namespace rdsm::fabric
