// The threads of one node: the local barrier, and the cohort locks'
// mutual exclusion and bounded local hand-off, with the node-level steps
// (the protocol's lock and barrier) replaced by counters.
#include "api/node_threads.hpp"

#include <atomic>
#include <thread>
#include <gtest/gtest.h>

namespace rdsm {
namespace {

struct Shared {
  NodeThreads threads{4, 8};
  std::atomic<int> takes{0}, gives{0}, node_barriers{0};
  std::atomic<int> holders{0}, overlaps{0};
  long counter = 0;  // plain: the lock alone orders its updates
  int run = 0, longest_run = 0;  // holds since the node took the lock (under the lock)
};

constexpr int kRounds = 2000;

void contend(void *arg) {
  Shared &s = *static_cast<Shared *>(arg);
  for (int i = 0; i < kRounds; ++i) {
    s.threads.lock(3, [&] {
      s.takes.fetch_add(1);
      s.run = 0;
    });
    if (s.holders.fetch_add(1) != 0) s.overlaps.fetch_add(1);
    ++s.counter;
    if (++s.run > s.longest_run) s.longest_run = s.run;
    std::this_thread::yield();  // let the others queue up behind the holder
    s.holders.fetch_sub(1);
    s.threads.unlock(3, [&] { s.gives.fetch_add(1); });
  }
}

TEST(NodeThreads, CohortLockExcludesAndBoundsLocalHandoffs) {
  Shared s;
  s.threads.run(contend, &s, "test");
  EXPECT_EQ(s.overlaps.load(), 0);
  EXPECT_EQ(s.counter, 4L * kRounds);
  // Every take for the node is given back, and at most
  // kMaxLocalHandoffs hand-offs follow one take.
  EXPECT_EQ(s.takes.load(), s.gives.load());
  EXPECT_LE(s.longest_run, NodeThreads::kMaxLocalHandoffs + 1);
  // The threads did queue up: the lock was handed over locally.
  EXPECT_LT(s.takes.load(), 4 * kRounds);
}

void meet(void *arg) {
  Shared &s = *static_cast<Shared *>(arg);
  for (int i = 0; i < 200; ++i) {
    s.holders.fetch_add(1);
    s.threads.barrier([&] {
      // Every thread of the node has arrived, and none has left.
      if (s.holders.load() != 4) s.overlaps.fetch_add(1);
      s.node_barriers.fetch_add(1);
    });
    s.threads.barrier([&] { s.holders.store(0); });
  }
}

TEST(NodeThreads, BarrierMakesOneNodeBarrierWithEveryThreadArrived) {
  Shared s;
  s.threads.run(meet, &s, "test");
  EXPECT_EQ(s.overlaps.load(), 0);
  EXPECT_EQ(s.node_barriers.load(), 200);
}

void local_id(void *arg) {
  auto *seen = static_cast<std::atomic<int> *>(arg);
  seen[NodeThreads::local_id()].fetch_add(1);
}

TEST(NodeThreads, RunGivesEachThreadItsNumber) {
  NodeThreads threads(4, 1);
  std::atomic<int> seen[4] = {};
  threads.run(local_id, seen, "test");
  for (auto &n : seen) EXPECT_EQ(n.load(), 1);
  EXPECT_FALSE(threads.in_region());
}

}  // namespace
}  // namespace rdsm
