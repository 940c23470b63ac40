// The compute threads of one node (`--threads T`, the SMP nodes of HLRC-SMP
// and GeNIMA).
//
// A node is one process.  rdsm_run_threads(fn, arg) runs fn on T threads of
// the node, the caller being the node's thread 0; between such calls the
// node runs one thread.  All of them share the node's copy of every page:
// coherence between nodes stays per node (one fetch, twin, diff and set of
// write notices per node, protocol/hlrc.hpp), and synchronisation is
// hierarchical, the threads of a node first:
//   barrier  the threads of the node gather here; the last to arrive makes
//            the node-level barrier (the protocol's, among the nodes) while
//            the others sleep, then lets them go.  So the node-level barrier
//            runs with no thread of the node computing.
//   locks    cohort locks: a thread takes the lock for its node through the
//            protocol, and while threads of the same node wait for it, it is
//            handed from one to the next without any remote operation (the
//            memory is the same, the mutex orders their accesses).  After
//            kMaxLocalHandoffs hand-offs in a row the node releases it
//            through the protocol even if local threads wait, so that
//            waiting nodes are not starved.  A waiter spins a while before
//            it sleeps (kSpinNs), and a lock let go to a spinning waiter
//            goes to it, not back to the thread that let it go.
// With T = 1 nothing here is used: the C API calls the protocol directly.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "common/futex.hpp"

namespace rdsm {

class NodeThreads {
 public:
  // A waiter for a lock spins for spin_ns before it sleeps: kSpinNs where
  // every compute thread of the host has a CPU of its own, else 0 (a
  // spinner would take the CPU the holder needs).
  NodeThreads(int per_node, int lock_count, uint64_t spin_ns);
  int per_node() const { return per_node_; }
  // The calling thread's number within its node: 0 .. per_node()-1 (0
  // outside rdsm_run_threads).
  static int local_id();
  // Whether the caller runs inside rdsm_run_threads.
  bool in_region() const { return team_ > 1; }

  // Runs fn(arg) on per_node() threads, the caller as thread 0; returns
  // once every one of them has returned.
  void run(void (*fn)(void *), void *arg, const char *call);
  // The two halves of run, for fork-join programs whose node runs other
  // functions on its threads: starts threads 1..fns.size() of the node,
  // thread i running fns[i-1], while the caller goes on as thread 0
  // (at most per_node() threads in all) ...
  void start_helpers(const std::vector<std::function<void()>> &fns, const char *call);
  // ... and waits until they have returned.
  void join_helpers();

  // Hierarchical barrier: `node_barrier` runs once, on the last thread of
  // the node to arrive, while the others wait.
  void barrier(const std::function<void()> &node_barrier);

  // Cohort locks.  `take` / `try_take` / `give` get and give up the lock
  // for the whole node through the protocol.
  void lock(int id, const std::function<void()> &take);
  bool try_lock(int id, const std::function<bool()> &try_take);
  void unlock(int id, const std::function<void()> &give);

  static constexpr int kMaxLocalHandoffs = 16;
  // How long a thread that finds the lock held by a sibling spins before it
  // sleeps, where threads have CPUs of their own.  Waking a sleeping thread
  // costs 20-100 us on a virtual machine whose idle CPUs halt
  // (protocols.md), against a critical section of a microsecond or two: a
  // waiter that slept found, when it woke, that the sibling had taken the
  // lock back, again and again (two threads passing a lock in turn: 30-55
  // us a turn; spinning, with no taking back, 1.0-1.1 us).
  static constexpr uint64_t kSpinNs = 20000;

 private:
  // Written under the stripe's mutex; busy and left_by are also read
  // without it, by spinning waiters.
  struct LockState {
    std::atomic<bool> busy{false};  // a thread of this node holds the lock or is taking it
    // A local hand-off to a spinning waiter: the thread that let the lock go
    // may not take it back before a waiter has it (-1: anyone may).  A
    // thread that retakes a lock at once would otherwise win nearly every
    // time against a waiter that must first see it free.
    std::atomic<int16_t> left_by{-1};
    bool node_holds = false;  // the node holds it through the protocol
    uint16_t waiters = 0;     // threads of this node waiting for it (spinning or asleep)
    uint16_t spinners = 0;    // of which spinning
    uint16_t handoffs = 0;    // local hand-offs since the node took it
    int16_t owner = -1;       // local id of the holding thread
    bool free_for(int local) const {
      return !busy.load(std::memory_order_relaxed) && left_by.load(std::memory_order_relaxed) != local;
    }
  };
  struct Stripe {
    FutexLock mu;  // held for a few instructions at a time: spins for spin_ns_ too
    std::condition_variable_any cv;
  };
  static constexpr size_t kStripes = 64;
  Stripe &stripe(int id) { return stripes_[(size_t)id % kStripes]; }

  int per_node_;
  uint64_t spin_ns_;
  int team_ = 1;  // threads running now: 1 + helpers_.size()
  std::vector<std::thread> helpers_;
  std::vector<LockState> locks_;
  Stripe stripes_[kStripes];

  std::mutex barrier_mu_;
  std::condition_variable barrier_cv_;
  int arrived_ = 0;
  uint64_t generation_ = 0;
};

}  // namespace rdsm
