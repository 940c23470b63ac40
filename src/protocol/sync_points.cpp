// The protocol's synchronisation points as the application calls them:
// lock, unlock, release, barrier and acquire (closing an interval and
// applying notices are in hlrc.cpp).  Each runs under the node's sync gate (sync_mu_,
// hlrc.hpp), except the wait for a lock itself.
#include <cstring>

#include "common/clock.hpp"
#include "common/error.hpp"
#include "common/fault_inject.hpp"
#include "protocol/hlrc.hpp"
#include "stats/stats.hpp"
#include "stats/trace.hpp"

namespace rdsm {

namespace {
NoticeSet decode_or_die(const std::vector<uint8_t> &b, const char *what) {
  NoticeSet s;
  if (!s.decode(b.data(), b.size())) fatal("internal error: malformed write notices in %s", what);
  return s;
}
}  // namespace

bool Hlrc::take_lock(int id, bool try_only) {
  ScopedTimer t(stats().lock_wait_ns);
  trace::Span span(trace::Kind::lock, (uint32_t)id);
  f_.poll();
  sync::Bytes request = cfg_.lock == LockAxis::manager ? vc_bytes() : sync::Bytes{};
  std::optional<sync::Bytes> got =
      try_only ? locks_->try_acquire(id, request) : locks_->acquire(id, request, while_waiting());
  if (!got) return false;
  // Waiting for the lock is done outside the gate (another thread of the
  // node may release a lock meanwhile, maybe the one a remote holder of
  // this lock waits for); learning what came with it is not.
  std::lock_guard<std::mutex> gate(sync_mu_);
  if (races_) race_acquire_begins();
  const races::Clock released = race_take_lock_clock(*got);
  if (cfg_.lock == LockAxis::manager) {
    if (!got->empty()) apply_notices(decode_or_die(*got, "a lock grant"));
  } else if (!got->empty()) {
    // The last releaser's timestamp: everything it knew must be known here.
    VClock target(nodes_);
    memcpy(target.data(), got->data(), target.size() * 4);
    catch_up(target);
    open_lock_pages(*got);
  }
  if (races_) race_learnt(released);
  fault_point("lock_held");
  add(stats().lock_acquires);
  span.flags = 1;  // acquired
  return true;
}

void Hlrc::release() {
  std::lock_guard<std::mutex> gate(sync_mu_);
  release_gated();
}

void Hlrc::release_gated() {
  ScopedTimer t(stats().barrier_protocol_ns);
  trace::Span span(trace::Kind::release);
  const uint64_t diffs = stats().diffs.load(), bytes = stats().diff_bytes.load();
  std::lock_guard<FutexLock> g(mu_);
  close_interval();
  span.a = (uint32_t)(stats().diffs.load() - diffs), span.c = stats().diff_bytes.load() - bytes;
}

void Hlrc::unlock(int id) {
  if (!locks_->held(id)) api_error("rdsm_unlock", "lock %d is not held by this node", id);
  trace::Span span(trace::Kind::unlock, (uint32_t)id);
  std::lock_guard<std::mutex> gate(sync_mu_);
  f_.poll();
  release_gated();
  sync::Bytes kept = cfg_.lock == LockAxis::atomic ? lock_release_bytes() : sync::Bytes{};
  if (races_) race_lock_released(id, kept);
  locks_->release(id, kept);
}

void Hlrc::barrier_impl(bool migrate) {
  if (nodes_ == 1) {  // nobody to meet, nothing to make coherent: every page is writable
    add(stats().barriers);
    trace::Span instant(trace::Kind::barrier_wait);
    return;
  }
  std::lock_guard<std::mutex> gate(sync_mu_);
  // The node's application threads are all here until unpark: nothing
  // writes its home pages but other nodes' diffs (its own release only
  // reads them, for twins and comparisons).
  park();
  withhold_at_release_ = migrate && may_withhold();
  barrier_release_ = true;
  release_gated();
  withhold_at_release_ = barrier_release_ = false;
  struct Quiet {
    bool &flag;
    explicit Quiet(bool &f) : flag(f) { flag = true; }
    ~Quiet() { flag = false; }
  } quiet(quiet_since_release_);
  uint64_t t0 = now_ns();
  VClock target(nodes_, 0);
  NoticeSet all;
  if (cfg_.barrier == BarrierAxis::manager) {
    sync::Bytes arrival = notices_.of_writer(self_, last_barrier_vc_[self_]).encode();
    all = decode_or_die(barrier_->wait(arrival, while_waiting()), "a barrier departure");
    target = all.vc;
  } else {
    sync::Bytes clocks = barrier_->wait(vc_bytes(), while_waiting());
    for (int n = 0; n < nodes_; ++n)
      for (int w = 0; w < nodes_; ++w) {
        uint32_t v;
        memcpy(&v, clocks.data() + (n * nodes_ + w) * sizeof v, sizeof v);
        target[w] = std::max(target[w], v);
      }
  }
  unpark();
  uint64_t t1 = now_ns();
  learn_limit_ = target;  // withheld pages up to this barrier may now be counted on
  add(stats().barrier_wait_ns, t1 - t0);
  trace::record(trace::Kind::barrier_wait, t0, t1);
  fault_point("barrier");
  if (races_) race_barrier_passed(target);
  if (cfg_.barrier == BarrierAxis::manager)
    apply_notices(all);
  else
    catch_up(target);
  protect_after_release();
  if (migrate && cfg_.home == HomeAxis::migrate) {
    migrate_homes(last_barrier_vc_, target);
    settle_withheld();
    await_withheld_diffs(last_barrier_vc_, target);
  }
  settle_deferred_home_pages();
  // Every node has caught up with the previous barrier before arriving at
  // this one, so nobody can still need what precedes it.
  notices_.forget_up_to(forget_floor_);
  forget_floor_ = last_barrier_vc_;
  last_barrier_vc_ = target;
  epoch_stamp_ = epoch_stamp_ == 255 ? 1 : epoch_stamp_ + 1;
  uint64_t t2 = now_ns();
  add(stats().barrier_protocol_ns, t2 - t1);
  add(stats().barriers);
  trace::record(trace::Kind::barrier_protocol, t1, t2);
}

void Hlrc::acquire() {
  ScopedTimer t(stats().lock_wait_ns);
  trace::Span span(trace::Kind::acquire);
  std::lock_guard<std::mutex> gate(sync_mu_);
  f_.poll();
  if (nodes_ == 1) return;
  if (races_) race_acquire_begins();
  if (cfg_.notices == NoticeAxis::eager_push) {
    apply_pushed_notices();
  } else {
    std::vector<int> writers;
    for (int n = 0; n < nodes_; ++n)
      if (n != self_) writers.push_back(n);
    pull_notices(writers);
  }
  if (races_) race_acquired_all();
}

}  // namespace rdsm
