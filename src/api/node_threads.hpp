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
//            waiting nodes are not starved.
// With T = 1 nothing here is used: the C API calls the protocol directly.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace rdsm {

class NodeThreads {
 public:
  NodeThreads(int per_node, int lock_count);
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

 private:
  struct LockState {
    bool busy = false;        // a thread of this node holds the lock or is taking it
    bool node_holds = false;  // the node holds it through the protocol
    uint16_t waiters = 0;     // threads of this node waiting for it
    uint16_t handoffs = 0;    // local hand-offs since the node took it
    int16_t owner = -1;       // local id of the holding thread
  };
  struct Stripe {
    std::mutex mu;
    std::condition_variable cv;
  };
  static constexpr size_t kStripes = 64;
  Stripe &stripe(int id) { return stripes_[(size_t)id % kStripes]; }

  int per_node_;
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
