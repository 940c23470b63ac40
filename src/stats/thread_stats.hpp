// Per-thread rows of the statistics, for nodes of several compute threads
// (`--threads T`, T > 1).
//
// The node's counters (stats.hpp) stay where every layer adds.  A compute
// thread of a multi-threaded node also points a thread-local pointer at a
// row of its own, and add() / ScopedTimer add the waits to that row as well;
// on a node of one thread the pointer is null, so that path pays one
// thread-local load and a branch.  The rows are folded into per-thread
// figures when the node's statistics are read (snapshot).
//
// Which thread a figure belongs to is the thread that waited: a page fault's
// data wait is added by the faulting thread's signal handler, lock and
// barrier waits by the thread inside rdsm_lock / rdsm_barrier.  Work done on
// other threads of the process (message handlers, the fault service thread)
// belongs to the node only.
#pragma once
#include <atomic>
#include <cstdint>
#include <vector>

namespace rdsm {

// One compute thread's figures, as the node hands them on (plain data: it
// is copied into the node block the launcher reads).  Seconds and counts.
struct ThreadStatsRow {
  // total: the time the thread ran (thread 0: since the node's start or
  // reset; a helper: its time inside rdsm_run_threads); compute: what is
  // left of it after the four waits, as for a node.
  double total, compute, data_wait, lock_wait, barrier_wait, barrier_protocol;
  // faults: page faults of this thread the protocol served (read and write
  // together; a fault a sibling's fetch had already resolved counts too);
  // locks: locks this thread acquired, local hand-offs included.
  uint64_t faults, locks;
};

// into += r, field by field: a forked worker's rows summed over the jobs of
// a fork-join program, as its node row is (stats_accumulate).
void thread_row_accumulate(ThreadStatsRow &into, const ThreadStatsRow &r);

// The live counters of one compute thread (nanoseconds and counts).
// Relaxed atomics: the owner adds (also from its signal handler), the
// thread that reads the node's statistics loads them.
struct alignas(64) ThreadCounters {
  std::atomic<uint64_t> data_wait_ns{0}, lock_wait_ns{0}, barrier_wait_ns{0}, barrier_protocol_ns{0};
  std::atomic<uint64_t> faults{0}, locks{0};
  std::atomic<uint64_t> ran_ns{0};         // finished running periods, since the last reset
  std::atomic<uint64_t> running_since{0};  // start of the current period; 0 while not running
};

// The calling thread's row; null outside a multi-threaded node's compute
// threads.  constinit: no dynamic initialisation, so reading it is a plain
// thread-local load, safe in a signal handler.
extern constinit thread_local ThreadCounters *t_thread_counters;

// Gives the node `threads` rows (once per process; a later call with the
// same count keeps them, so a fork-join master's rows span its jobs) and
// makes the caller thread 0, running from now on.  Called with threads > 1
// only.
void thread_stats_configure(int threads);
// The calling thread starts or stops running as compute thread `local` of
// the node.
void thread_stats_enter(int local);
void thread_stats_leave();
// A lock acquired by the calling thread (nothing on a one-thread node).
void thread_stats_note_lock();

// Whether the node has per-thread rows.
bool thread_stats_active();
// Zeroes the rows (with the node's counters: Stats::reset); periods running
// now count from the node's new start on.
void thread_stats_reset();
// The rows at `now`, the node's statistics covering [start_ns, now).
std::vector<ThreadStatsRow> thread_stats_snapshot(uint64_t start_ns, uint64_t now);

}  // namespace rdsm
