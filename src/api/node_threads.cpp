#include "api/node_threads.hpp"

#include <cstring>
#include <system_error>

#include "common/error.hpp"
#include "common/message_signal.hpp"
#include "common/span_clock.hpp"
#include "stats/stats.hpp"

namespace rdsm {

namespace {
thread_local int t_local_id = 0;
thread_local bool t_in_run = false;
}  // namespace

NodeThreads::NodeThreads(int per_node, int lock_count, uint64_t spin_ns)
    : per_node_(per_node), spin_ns_(spin_ns), locks_((size_t)lock_count) {
  for (Stripe &s : stripes_) s.mu.set_spin_ns(spin_ns_);
}

int NodeThreads::local_id() { return t_local_id; }

void NodeThreads::run(void (*fn)(void *), void *arg, const char *call) {
  if (!fn) api_error(call, "NULL function; pass the function every thread of the node runs");
  if (t_in_run || t_local_id != 0)
    api_error(call, "called inside rdsm_run_threads; the threads of a node are started once, by thread 0, "
              "outside any rdsm_run_threads");
  t_in_run = true;
  start_helpers(std::vector<std::function<void()>>((size_t)per_node_ - 1, [fn, arg] { fn(arg); }), call);
  {
    OutsideRdsm program;  // the program's code, between two calls into the runtime
    fn(arg);
  }
  join_helpers();
  t_in_run = false;
}

void NodeThreads::start_helpers(const std::vector<std::function<void()>> &fns, const char *call) {
  if (!helpers_.empty() || (int)fns.size() >= per_node_)
    fatal("internal error: %s: %zu more threads on a node of %d, %zu running", call, fns.size(), per_node_,
          helpers_.size());
  team_ = 1 + (int)fns.size();
  for (size_t i = 0; i < fns.size(); ++i) {
    const int local = (int)i + 1;
    try {
      helpers_.emplace_back([body = fns[i], local] {
        t_local_id = local;
        t_in_run = true;
        thread_stats_enter(local);
        {
          OutsideRdsm program;
          body();
        }
        thread_stats_leave();
      });
    } catch (const std::system_error &e) {
      fatal("%s: cannot start compute thread %d of %d: %s (check `ulimit -u`, or use fewer --threads)", call, local,
            team_, e.what());
    }
  }
}

void NodeThreads::join_helpers() {
  for (std::thread &t : helpers_) t.join();
  helpers_.clear();
  team_ = 1;
}

void NodeThreads::barrier(const std::function<void()> &node_barrier) {
  if (team_ == 1) {
    node_barrier();
    return;
  }
  std::unique_lock<std::mutex> g(barrier_mu_);
  const uint64_t gen = generation_;
  if (++arrived_ < team_) {
    // Waiting for the node's other threads and for the node-level barrier
    // the last of them makes: this thread's barrier wait.
    ScopedTimer waited(stats().barrier_wait_ns);
    barrier_cv_.wait(g, [&] { return generation_ != gen; });
    return;
  }
  // Every thread of the node is here, so none writes while the node-level
  // barrier releases this node's writes and invalidates what others wrote.
  node_barrier();
  arrived_ = 0;
  ++generation_;
  barrier_cv_.notify_all();
}

void NodeThreads::lock(int id, const std::function<void()> &take) {
  Stripe &s = stripe(id);
  LockState &st = locks_[(size_t)id];
  std::unique_lock<FutexLock> g(s.mu);
  if (st.busy && st.owner == t_local_id)
    api_error("rdsm_lock", "lock %d is already held by this thread; unlock it before taking it again", id);
  ++st.waiters;  // also while spinning: the holder hands the lock over instead of giving it up
  const int me = t_local_id;
  if (!st.free_for(me)) {
    // A sibling holds or takes the lock: this thread's lock wait (the
    // protocol counts its own when it takes the lock below).
    ScopedTimer waited(stats().lock_wait_ns);
    // Spins first (spin_ns_), trying again each time the lock looks free,
    // then sleeps.
    const uint64_t t0 = span_now_ns();
    ++st.spinners;
    while (!st.free_for(me)) {
      g.unlock();
      const bool seen_free = spin_until([&] { return st.free_for(me); }, spin_ns_, t0);
      g.lock();
      if (!seen_free) break;
    }
    --st.spinners;
    s.cv.wait(g, [&] { return st.free_for(me); });
  }
  --st.waiters;
  st.busy = true;
  st.left_by = -1;
  if (st.node_holds) {
    // Handed over by a thread of this node: its writes are in this node's
    // memory, ordered before this point by the stripe's mutex.
    ++st.handoffs;
  } else {
    g.unlock();
    take();
    g.lock();
    st.node_holds = true;
    st.handoffs = 0;
  }
  st.owner = (int16_t)t_local_id;
  thread_stats_note_lock();
}

bool NodeThreads::try_lock(int id, const std::function<bool()> &try_take) {
  Stripe &s = stripe(id);
  LockState &st = locks_[(size_t)id];
  std::unique_lock<FutexLock> g(s.mu);
  if (st.busy && st.owner == t_local_id)
    api_error("rdsm_trylock", "lock %d is already held by this thread; unlock it before taking it again", id);
  if (st.busy || st.waiters) return false;
  st.busy = true;
  if (!st.node_holds) {
    g.unlock();
    bool got = try_take();
    g.lock();
    if (!got) {
      st.busy = false;
      s.cv.notify_all();
      return false;
    }
    st.node_holds = true;
    st.handoffs = 0;
  }
  st.owner = (int16_t)t_local_id;
  thread_stats_note_lock();
  return true;
}

void NodeThreads::unlock(int id, const std::function<void()> &give) {
  Stripe &s = stripe(id);
  LockState &st = locks_[(size_t)id];
  std::unique_lock<FutexLock> g(s.mu);
  if (!st.busy || st.owner != t_local_id)
    api_error("rdsm_unlock",
              "lock %d is not held by this thread; unlock only a lock this thread took with rdsm_lock(%d)", id, id);
  st.owner = -1;
  if (st.waiters > 0 && st.handoffs < kMaxLocalHandoffs) {
    st.busy = false;  // the node keeps the lock: a local waiter takes it over
    if (st.spinners > 0) st.left_by = (int16_t)t_local_id;  // one that is spinning, not this thread again
    s.cv.notify_all();
    return;
  }
  // busy stays set: no thread of this node takes the lock locally while
  // the node gives it up.
  g.unlock();
  give();
  g.lock();
  st.node_holds = false;
  st.busy = false;
  if (st.spinners > 0) st.left_by = (int16_t)t_local_id;
  s.cv.notify_all();
}

}  // namespace rdsm
