// A waiting thread's yield before it sleeps (shm fabric, interrupt mode).
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <sched.h>

#include "common/clock.hpp"

namespace rdsm::fabric {

// Interrupt mode: how long a thread waiting for an answer yields the CPU
// before it sleeps.  The answer is taken by the node's handler thread,
// which then wakes the waiter: a second thread wake-up, about 20 us on a
// virtual machine.  Yielding, the waiter sees the answer as soon as the
// handler has it, and gives the CPU to whatever else is runnable (the
// handler itself, a peer's compute thread), unlike spinning, which starved
// the handlers of two nodes on two cores (RDSM_SPIN).  Measured at 2 nodes
// (alternated runs, medians, before -> after): async page fetch 73.8 ->
// 39.0 us, empty barrier 57.8 -> 38.5; genima unchanged.
constexpr uint64_t kAnswerYieldNs = 50'000;

// Yields up to kAnswerYieldNs while `event` still holds `ev` (an answer of
// several may be the first of them); true once done() holds.
inline bool yield_for_answer(const std::function<bool()> &done, const std::atomic<uint32_t> &event, uint32_t ev) {
  const uint64_t until = now_ns() + kAnswerYieldNs;
  while (event.load(std::memory_order_seq_cst) == ev && now_ns() < until) {
    sched_yield();
    if (done()) return true;
  }
  return false;
}

}  // namespace rdsm::fabric
