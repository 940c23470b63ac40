// The threads of one node: the local barrier, and the cohort locks'
// mutual exclusion and bounded local hand-off, with the node-level steps
// (the protocol's lock and barrier) replaced by counters.
#include "api/node_threads.hpp"

#include <atomic>
#include <chrono>
#include <thread>
#include <gtest/gtest.h>

namespace rdsm {
namespace {

struct Shared {
  explicit Shared(bool spin = false) : threads(4, 8, spin ? NodeThreads::kSpinNs : 0) {}
  NodeThreads threads;
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

// Waiters that sleep at once, and waiters that spin first (each thread
// with a CPU of its own).
class CohortLock : public testing::TestWithParam<bool> {};

TEST_P(CohortLock, ExcludesAndBoundsLocalHandoffs) {
  Shared s(GetParam());
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

INSTANTIATE_TEST_SUITE_P(NodeThreads, CohortLock, testing::Bool(),
                         [](const testing::TestParamInfo<bool> &i) { return i.param ? "spin" : "sleep"; });

// A thread that lets a lock go while a sibling spins for it, and at once
// asks for it again, gets it only after the sibling had it: the spinner
// would otherwise lose nearly every time (it must first see the lock free),
// and a waiter that gives up spinning sleeps, paying a wake-up of tens of
// microseconds on a virtual machine.
struct Retake {
  NodeThreads threads{2, 1, 10'000'000'000ull};  // waiters spin, for the whole test
  std::atomic<int> held{0};     // thread 0 holds the lock (round + 1)
  std::atomic<int> waiting{0};  // thread 1 is about to wait (spin) for it (round + 1)
  int sibling_had = 0;          // under the lock: thread 1's takes
  int lost = 0;                 // thread 0 took the lock back before thread 1 had it
};

void retake(void *arg) {
  Retake &r = *static_cast<Retake *>(arg);
  for (int round = 0; round < 50; ++round) {
    r.threads.barrier([] {});
    if (NodeThreads::local_id() == 0) {
      r.threads.lock(0, [] {});
      const int had = r.sibling_had;
      r.held.store(round + 1);
      while (r.waiting.load() != round + 1) std::this_thread::yield();
      std::this_thread::sleep_for(std::chrono::microseconds(200));  // thread 1 is spinning by now
      r.threads.unlock(0, [] {});
      r.threads.lock(0, [] {});
      if (r.sibling_had == had) ++r.lost;
      r.threads.unlock(0, [] {});
    } else {
      while (r.held.load() != round + 1) std::this_thread::yield();
      r.waiting.store(round + 1);
      r.threads.lock(0, [] {});
      ++r.sibling_had;
      r.threads.unlock(0, [] {});
    }
  }
}

TEST(NodeThreads, SpinningWaiterGetsTheLockBeforeItsHolderTakesItBack) {
  Retake r;
  r.threads.run(retake, &r, "test");
  EXPECT_EQ(r.sibling_had, 50);
  EXPECT_EQ(r.lost, 0);
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
  NodeThreads threads(4, 1, 0);
  std::atomic<int> seen[4] = {};
  threads.run(local_id, seen, "test");
  for (auto &n : seen) EXPECT_EQ(n.load(), 1);
  EXPECT_FALSE(threads.in_region());
}

}  // namespace
}  // namespace rdsm
