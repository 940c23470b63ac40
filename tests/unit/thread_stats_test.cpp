// Per-thread rows of a multi-threaded node's statistics: what each compute
// thread adds lands in its own row as well as in the node's counters, the
// rows add up to the node, and a wait that straddles a reset counts from
// the reset only.
#include "stats/thread_stats.hpp"

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>
#include <gtest/gtest.h>

#include "stats/stats.hpp"

namespace rdsm {
namespace {

constexpr uint64_t kMs = 1'000'000;

TEST(ThreadStats, RowsAddUpToTheNode) {
  thread_stats_configure(2);  // this thread is thread 0 from now on
  stats().reset();
  add(stats().data_wait_ns, 3 * kMs);  // a page fault of thread 0
  add(stats().lock_wait_ns, 2 * kMs);
  add(stats().messages_sent);  // the node's only
  std::thread helper([] {
    thread_stats_enter(1);
    add(stats().data_wait_ns, 1 * kMs);
    add(stats().data_wait_ns, 1 * kMs);
    add(stats().barrier_wait_ns, 4 * kMs);
    thread_stats_note_lock();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    thread_stats_leave();
  });
  helper.join();
  add(stats().read_faults);  // a thread without a row: the node's only
  const uint64_t now = now_ns();
  const rdsm_stats node = stats().snapshot_at(now);
  const std::vector<ThreadStatsRow> rows = thread_stats_snapshot(stats().start_ns.load(), now);
  thread_stats_leave();

  ASSERT_EQ(rows.size(), 2u);
  EXPECT_DOUBLE_EQ(rows[0].data_wait, 0.003);
  EXPECT_DOUBLE_EQ(rows[0].lock_wait, 0.002);
  EXPECT_EQ(rows[0].faults, 1u);
  EXPECT_DOUBLE_EQ(rows[1].data_wait, 0.002);
  EXPECT_DOUBLE_EQ(rows[1].barrier_wait, 0.004);
  EXPECT_EQ(rows[1].faults, 2u);
  EXPECT_EQ(rows[1].locks, 1u);
  EXPECT_GE(rows[1].total, 0.020);  // it ran while it slept
  EXPECT_GE(rows[0].total, rows[1].total);  // thread 0 ran all along
  EXPECT_EQ(node.messages_sent, 1u);
  // The node counts in thread time: its total and waits are its threads'.
  EXPECT_NEAR(node.total, rows[0].total + rows[1].total, 1e-9);
  EXPECT_NEAR(node.data_wait, rows[0].data_wait + rows[1].data_wait, 1e-9);
  EXPECT_NEAR(node.compute, rows[0].compute + rows[1].compute, 1e-9);
}

// A reset zeroes the node's counters, then the rows, while the other
// threads go on: a fault served in between lands in the node's counter and
// is then zeroed in its row only.  The node's times must still be its rows'.
TEST(ThreadStats, AWaitAddedDuringAResetKeepsTheRowsTheNodes) {
  thread_stats_configure(2);
  stats().reset();
  add(stats().data_wait_ns, 1 * kMs);
  stats().data_wait_ns.fetch_add(2 * kMs);  // what the race leaves: in the node, not in a row
  stats().barrier_protocol_ns.fetch_add(1 * kMs);
  const uint64_t now = now_ns();
  const rdsm_stats node = stats().snapshot_at(now);
  const std::vector<ThreadStatsRow> rows = thread_stats_snapshot(stats().start_ns.load(), now);
  thread_stats_leave();
  ThreadStatsRow sum{};
  for (const ThreadStatsRow &r : rows) thread_row_accumulate(sum, r);
  EXPECT_DOUBLE_EQ(sum.data_wait, 0.001);
  EXPECT_DOUBLE_EQ(node.data_wait, sum.data_wait);
  EXPECT_DOUBLE_EQ(node.barrier_protocol, sum.barrier_protocol);
  EXPECT_DOUBLE_EQ(node.compute, sum.compute);
  EXPECT_DOUBLE_EQ(node.total, sum.total);
}

TEST(ThreadStats, AWaitAcrossAResetCountsFromTheReset) {
  thread_stats_configure(2);
  std::atomic<bool> waiting{false}, reset{false};
  std::thread helper([&] {
    thread_stats_enter(1);
    {
      ScopedTimer wait(stats().barrier_wait_ns);
      waiting = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      while (!reset) std::this_thread::yield();
    }
    thread_stats_leave();
  });
  while (!waiting) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(60));  // past the helper's sleep
  stats().reset();
  const uint64_t reset_at = stats().start_ns.load();
  reset = true;
  helper.join();
  const uint64_t now = now_ns();
  const std::vector<ThreadStatsRow> rows = thread_stats_snapshot(reset_at, now);
  thread_stats_leave();
  // Both the helper's wait and its running time start at the reset.
  EXPECT_LE(rows[1].barrier_wait, ns_to_s(now - reset_at));
  EXPECT_LE(rows[1].barrier_wait, rows[1].total + 1e-9);
  EXPECT_LT(rows[1].barrier_wait, 0.050);
}

}  // namespace
}  // namespace rdsm
