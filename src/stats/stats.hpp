// Per-node statistics: the seeds' time breakdown and event counters.
// Every layer adds to the one object of its process; relaxed atomics, since
// handler threads count too.  Times are kept in nanoseconds.
#pragma once
#include <atomic>
#include <cstdint>

#include "common/clock.hpp"
#include "common/span_clock.hpp"
#include "stats/thread_stats.hpp"
#include "rdsm.h"

namespace rdsm {

// What a message handler was doing, for the breakdown of handler time
// (seed 000 Figure 12): serving pages, applying diffs, or synchronisation.
enum class HandlerWork : uint8_t { sync = 0, page = 1, diff = 2 };
constexpr int kStatsMsgTypes = 64;

struct Stats {
  using Counter = std::atomic<uint64_t>;
  // handler time per message type, and what each type is (set by the layer
  // that owns the type; unset types count as sync)
  Counter handler_ns_by_type[kStatsMsgTypes] = {};
  std::atomic<uint8_t> work_of_type[kStatsMsgTypes] = {};
  void classify(int type, HandlerWork w) { work_of_type[type].store((uint8_t)w, std::memory_order_relaxed); }
  // time (ns)
  Counter data_wait_ns{0}, lock_wait_ns{0}, barrier_wait_ns{0}, barrier_protocol_ns{0}, handler_ns{0};
  // events
  Counter read_faults{0}, write_faults{0}, pages_fetched{0}, twins{0}, diffs{0}, diff_bytes{0};
  Counter messages_sent{0}, message_bytes{0}, one_sided_ops{0}, invalidations{0}, lock_acquires{0},
      barriers{0};
  Counter diff_ops{0}, migrations{0}, prefetched{0}, prefetch_used{0}, prefetch_wasted{0}, refreshed{0};
  Counter write_ahead{0}, write_ahead_unused{0}, diffs_claimed{0}, diffs_withheld{0}, withheld_unmoved{0};
  // the emu fabric's charges (ns; rdsm.h says what each one covers)
  Counter emu_host_overhead_ns{0}, emu_occupancy_ns{0}, emu_bandwidth_ns{0}, emu_latency_ns{0}, emu_ni_wait_ns{0},
      emu_interrupt_ns{0}, emu_waited_ns{0};
  std::atomic<uint64_t> start_ns{0};

  void reset();
  // Total is wall time since start (or reset); compute is what is left of it
  // after the runtime's waits and protocol work.  A node of several compute
  // threads counts in thread time: its total is the sum of its threads'
  // (thread_stats.hpp), as its waits are.
  rdsm_stats snapshot() const { return snapshot_at(now_ns()); }
  // As of `now`: the node's figures and its threads' rows
  // (thread_stats_snapshot) taken at one instant agree.
  rdsm_stats snapshot_at(uint64_t now) const;
};

Stats &stats();

// into += s, field by field (statistics of several runs of one node).
void stats_accumulate(rdsm_stats &into, const rdsm_stats &s);

// Adds to the calling thread's row too (thread_stats.hpp); out of line, as
// only the compute threads of multi-threaded nodes have one.
void thread_counters_add(ThreadCounters &t, const Stats::Counter &c, uint64_t v);

inline void add(Stats::Counter &c, uint64_t v = 1) {
  c.fetch_add(v, std::memory_order_relaxed);
  if (ThreadCounters *t = t_thread_counters) [[unlikely]]
    thread_counters_add(*t, c, v);
}

// Adds the time from construction to destruction to one counter.  A span
// that began before a reset counts from the reset: with several compute
// threads one thread may reset while another waits (in a barrier, say),
// and the statistics cover only what follows the reset.
class ScopedTimer {
 public:
  explicit ScopedTimer(Stats::Counter &c) : c_(c), t0_(span_now_ns()) {}
  ~ScopedTimer() {
    const uint64_t t1 = span_now_ns(), start = stats().start_ns.load(std::memory_order_relaxed);
    const uint64_t from = t0_ > start ? t0_ : start;
    add(c_, t1 > from ? t1 - from : 0);
  }
  ScopedTimer(const ScopedTimer &) = delete;
  ScopedTimer &operator=(const ScopedTimer &) = delete;

 private:
  Stats::Counter &c_;
  uint64_t t0_;
};

}  // namespace rdsm
