#include "stats/thread_stats.hpp"

#include <algorithm>

#include "common/clock.hpp"
#include "stats/stats.hpp"

namespace rdsm {

constinit thread_local ThreadCounters *t_thread_counters = nullptr;

namespace {
constexpr auto kRelaxed = std::memory_order_relaxed;

// Process-wide like stats(), and never freed: a fork-join master keeps its
// rows from one job to the next, and its forked workers inherit them (their
// first reset zeroes them).
ThreadCounters *g_rows = nullptr;
int g_count = 0;

uint64_t ran_until(const ThreadCounters &c, uint64_t start_ns, uint64_t now) {
  uint64_t since = c.running_since.load(kRelaxed);
  uint64_t ran = c.ran_ns.load(kRelaxed);
  if (since != 0) ran += now - std::min(now, std::max(since, start_ns));
  return ran;
}
}  // namespace

void thread_stats_configure(int threads) {
  if (g_count != threads) {
    g_rows = new ThreadCounters[(size_t)threads];
    g_count = threads;
  }
  if (t_thread_counters != &g_rows[0]) thread_stats_enter(0);
}

void thread_stats_enter(int local) {
  if (!g_rows || local < 0 || local >= g_count) return;
  ThreadCounters &c = g_rows[local];
  c.running_since.store(now_ns(), kRelaxed);
  t_thread_counters = &c;
}

void thread_stats_leave() {
  ThreadCounters *c = t_thread_counters;
  if (!c) return;
  t_thread_counters = nullptr;
  uint64_t now = now_ns();
  c->ran_ns.store(ran_until(*c, stats().start_ns.load(kRelaxed), now), kRelaxed);
  c->running_since.store(0, kRelaxed);
}

void thread_stats_note_lock() {
  if (ThreadCounters *c = t_thread_counters) c->locks.fetch_add(1, kRelaxed);
}

bool thread_stats_active() { return g_rows != nullptr; }

void thread_stats_reset() {
  for (int i = 0; i < g_count; ++i) {
    ThreadCounters &c = g_rows[i];
    for (std::atomic<uint64_t> *f :
         {&c.data_wait_ns, &c.lock_wait_ns, &c.barrier_wait_ns, &c.barrier_protocol_ns, &c.faults, &c.locks, &c.ran_ns})
      f->store(0, kRelaxed);
    // A period running now goes on, counted from the new start (ran_until).
  }
}

std::vector<ThreadStatsRow> thread_stats_snapshot(uint64_t start_ns, uint64_t now) {
  std::vector<ThreadStatsRow> rows((size_t)g_count);
  for (int i = 0; i < g_count; ++i) {
    const ThreadCounters &c = g_rows[i];
    ThreadStatsRow &r = rows[(size_t)i];
    r.total = ns_to_s(ran_until(c, start_ns, now));
    r.data_wait = ns_to_s(c.data_wait_ns.load(kRelaxed));
    r.lock_wait = ns_to_s(c.lock_wait_ns.load(kRelaxed));
    r.barrier_wait = ns_to_s(c.barrier_wait_ns.load(kRelaxed));
    r.barrier_protocol = ns_to_s(c.barrier_protocol_ns.load(kRelaxed));
    double busy = r.data_wait + r.lock_wait + r.barrier_wait + r.barrier_protocol;
    r.compute = r.total > busy ? r.total - busy : 0.0;
    r.faults = c.faults.load(kRelaxed);
    r.locks = c.locks.load(kRelaxed);
  }
  return rows;
}

void thread_row_accumulate(ThreadStatsRow &into, const ThreadStatsRow &r) {
  for (double ThreadStatsRow::*f : {&ThreadStatsRow::total, &ThreadStatsRow::compute, &ThreadStatsRow::data_wait,
                                    &ThreadStatsRow::lock_wait, &ThreadStatsRow::barrier_wait,
                                    &ThreadStatsRow::barrier_protocol})
    into.*f += r.*f;
  into.faults += r.faults;
  into.locks += r.locks;
}

// The counters a thread's row mirrors; every other one is the node's only.
// Signal-safe: called from the fault handler (data wait).
void thread_counters_add(ThreadCounters &t, const Stats::Counter &c, uint64_t v) {
  const Stats &s = stats();
  if (&c == &s.data_wait_ns) {
    t.data_wait_ns.fetch_add(v, kRelaxed);
    t.faults.fetch_add(1, kRelaxed);  // one addition per fault served
  } else if (&c == &s.lock_wait_ns) {
    t.lock_wait_ns.fetch_add(v, kRelaxed);
  } else if (&c == &s.barrier_wait_ns) {
    t.barrier_wait_ns.fetch_add(v, kRelaxed);
  } else if (&c == &s.barrier_protocol_ns) {
    t.barrier_protocol_ns.fetch_add(v, kRelaxed);
  }
}

}  // namespace rdsm
