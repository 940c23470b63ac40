// Adaptive minipages (sc.hpp): which minipage follows which in this node's
// faults, and the follower request a fault sends beside its own.
#include "protocol/sc.hpp"
#include "stats/stats.hpp"

namespace rdsm {

namespace {
// A pair seen this many times in a row is asked for together: once is a
// coincidence as often as not (the first sweep over a set of minipages).
constexpr uint8_t kSeenToAsk = 2;
constexpr uint8_t kSeenMost = 3;
}  // namespace

void Sc::learn_pair(size_t page, bool write) {
  const uint32_t p = (uint32_t)page;
  const uint64_t epoch = epoch_.load(std::memory_order_relaxed);
  if (epoch != last_epoch_) {  // a lock, unlock or barrier came between
    last_fault_ = before_last_ = kNoPage;
    last_epoch_ = epoch;
  }
  if (p == last_fault_) {
    // The same minipage again, now written (read, then the upgrade of a
    // read-modify-write): its follower request should ask to write.
    if (write && before_last_ != kNoPage)
      if (auto it = followers_.find(before_last_); it != followers_.end() && it->second.page == p)
        it->second.write = true;
    return;
  }
  if (last_fault_ != kNoPage && views().is_minipage(last_fault_) && views().is_minipage(p)) {
    Follower &f = followers_[last_fault_];
    if (f.seen && f.page == p) {
      if (f.seen < kSeenMost) ++f.seen;
      f.write = f.write || write;
    } else {
      f = Follower{p, write, 1};  // another follower: learnt anew
    }
  }
  before_last_ = last_fault_;
  last_fault_ = p;
}

void Sc::ask_follower(size_t page, sc::Outbox &out) {
  if (follower_open_.load(std::memory_order_acquire)) return;
  auto it = followers_.find((uint32_t)page);
  if (it == followers_.end() || it->second.seen < kSeenToAsk) return;
  const Follower f = it->second;
  if (f.page == page || f.page >= pages_ || allows(f.page, f.write)) return;
  follower_asked_ = f.page;
  follower_replies_ = 0;
  follower_open_.store(true, std::memory_order_release);
  sc::RequestMsg r{};
  r.page = f.page;
  r.write = f.write;
  out.post(manager_of(f.page), sc::kRequest, r);
  add(stats().prefetched);
  // The follower now stands for its own fault: the next fault makes a pair
  // with it, so a chain of minipages is learnt link by link.
  before_last_ = (uint32_t)page;
  last_fault_ = f.page;
}

bool Sc::take_follower_reply(const sc::ReplyMsg &r, const uint8_t *data, sc::Outbox &out) {
  if (!follower_open_.load(std::memory_order_acquire) || r.page != follower_asked_) return false;
  install_data(r, data);  // as for a fault's answer: the minipage is inaccessible here until the last one
  if (++follower_replies_ < r.expect) return true;
  set_access(r.page, sc::Access(r.access));
  // No access waits to be retried: the manager may go on at once.
  sc::AckMsg a{};
  a.page = r.page;
  out.post(manager_of(r.page), sc::kAck, a);
  follower_open_.store(false, std::memory_order_release);
  return true;
}

void Sc::settle_follower() {
  if (follower_open_.load(std::memory_order_acquire))
    f_.wait([this] { return !follower_open_.load(std::memory_order_acquire); });
}

}  // namespace rdsm
