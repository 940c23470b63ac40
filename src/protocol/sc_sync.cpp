// Locks and barriers under sequential consistency: the sync layer's own,
// carrying nothing.  A node waiting in them still serves its peers' page
// requests (poll handler mode: the waiting thread runs the handlers).
#include "common/clock.hpp"
#include "common/error.hpp"
#include "common/fault_inject.hpp"
#include "protocol/sc.hpp"
#include "stats/stats.hpp"
#include "stats/trace.hpp"

namespace rdsm {

void Sc::lock(int id) {
  new_epoch();
  ScopedTimer t(stats().lock_wait_ns);
  trace::Span span(trace::Kind::lock, (uint32_t)id);
  f_.poll();
  locks_->acquire(id, {}, [this] { f_.poll(); });
  fault_point("lock_held");
  add(stats().lock_acquires);
  span.flags = 1;  // acquired
}

bool Sc::try_lock(int id) {
  new_epoch();
  ScopedTimer t(stats().lock_wait_ns);
  trace::Span span(trace::Kind::lock, (uint32_t)id);
  f_.poll();
  if (!locks_->try_acquire(id, {})) return false;
  fault_point("lock_held");
  add(stats().lock_acquires);
  span.flags = 1;
  return true;
}

void Sc::unlock(int id) {
  if (!locks_->held(id)) api_error("rdsm_unlock", "lock %d is not held by this node", id);
  new_epoch();
  trace::Span span(trace::Kind::unlock, (uint32_t)id);
  f_.poll();
  locks_->release(id, {});
}

void Sc::barrier() {
  if (nodes_ == 1) {  // nobody to meet
    add(stats().barriers);
    trace::Span instant(trace::Kind::barrier_wait);
    return;
  }
  // The last fault's acknowledgement (and a follower's request) goes
  // before the arrival, so that after the job's last barrier no page
  // request is left open at a manager.
  new_epoch();
  settle_ack();
  downgrade_shared_pages();
  const uint64_t t0 = now_ns();
  barrier_->wait({}, [this] { f_.poll(); });
  const uint64_t t1 = now_ns();
  add(stats().barrier_wait_ns, t1 - t0);
  trace::record(trace::Kind::barrier_wait, t0, t1);
  fault_point("barrier");
  add(stats().barriers);
}

}  // namespace rdsm
