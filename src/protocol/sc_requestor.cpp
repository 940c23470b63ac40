// The requestor: a fault asks the page's manager for read or write access,
// waits until every answer the manager announced has come (the copy, and
// for a write each reader's word that its copy is gone), installs the
// access, and acknowledges once the faulting thread has retried.
#include <sched.h>

#include "common/clock.hpp"
#include "common/error.hpp"
#include "common/fault_inject.hpp"
#include "protocol/sc.hpp"
#include "stats/stats.hpp"
#include "stats/trace.hpp"

namespace rdsm {

bool Sc::fault_in_signal(void *self, size_t page, bool write) {
  // Requests need messages and waits, which are signal-safe only where a
  // handler thread delivers (fabric.hpp).  Here a fault that another thread
  // of this node resolved meanwhile is let through, a read miss that
  // one-sided operations serve is served (sc_fast_read.cpp), another read
  // miss is asked for where sends and waits are signal-safe, and a write
  // to a page this node made read-only at a barrier may take it back
  // (sc_downgrade.cpp); the service thread asks for the rest.
  Sc *sc = static_cast<Sc *>(self);
  if (sc->allows(page, write)) return true;
  if (!write) {
    if (sc->fast_reads_ && sc->f_.one_sided_signal_safe() && sc->read_one_sided(page)) return true;
    return sc->signal_reads_ && sc->f_.signal_safe() && sc->read_in_signal(page);
  }
  if (!sc->fast_reads_ || !sc->f_.one_sided_signal_safe()) return false;
  return sc->voluntary(page) && sc->upgrade_one_sided(page);
}

bool Sc::read_in_signal(size_t page) {
  // The manager's own step may queue the request (allocating): a page this
  // node manages is asked for by the service thread.
  const int manager = manager_of(page);
  if (manager == self_ || !mu_.try_lock()) return false;
  // The service thread serves this node's only application thread, which
  // is here, so it has no fault in hand; its last one may still owe the
  // acknowledgement (sent under mu_, of the page in asked_).
  if (ack_owed_.load(std::memory_order_acquire)) {
    mu_.unlock();
    return false;
  }
  sc::RequestMsg r = open_request(page, false);
  mu_.unlock();
  const uint64_t t0 = trace::start();
  add(stats().read_faults);
  iovec head{&r, sizeof r};
  f_.sendv(manager, sc::kRequest, &head, 1);
  fault_point("fetch");
  f_.wait([this] { return granted_.load(std::memory_order_acquire); });
  // Acknowledged before the access is retried (a few instructions from
  // here), not after it as the service thread does: a read copy taken
  // away in between costs the reader one more fault, and the writer that
  // took it has made progress; two writers are what must not take a page
  // from each other for ever, and writes go through the service thread.
  sc::AckMsg a{};
  a.page = (uint32_t)page;
  iovec ack{&a, sizeof a};
  f_.sendv(manager, sc::kAck, &ack, 1);
  trace::record(trace::Kind::read_fault, t0, trace::on() ? now_ns() : 0, (uint32_t)page);
  return true;
}

sc::RequestMsg Sc::open_request(size_t page, bool write) {
  asked_ = (uint32_t)page;
  replies_ = 0;
  granted_.store(false, std::memory_order_relaxed);
  sc::RequestMsg r{};
  r.page = (uint32_t)page;
  r.write = write;
  return r;
}

void Sc::on_fault(size_t page, bool write) {
  if (allows(page, write)) return;
  if (adaptive_) {
    // A follower asked for along with an earlier fault may be this page:
    // its answer comes first (one open request per page and node).
    // follower_asked_ is this thread's own to write.
    if (page == follower_asked_) {
      settle_follower();
      if (allows(page, write)) return;
    }
    learn_pair(page, write);
  }
  const uint64_t t0 = trace::start();
  add(write ? stats().write_faults : stats().read_faults);
  step([&](sc::Outbox &out) {
    out.post(manager_of(page), sc::kRequest, open_request(page, write));
    if (adaptive_) ask_follower(page, out);
  });
  fault_point("fetch");
  f_.wait([this] { return granted_.load(std::memory_order_acquire); });
  ack_owed_.store(true, std::memory_order_release);
  trace::record(write ? trace::Kind::write_fault : trace::Kind::read_fault, t0, trace::on() ? now_ns() : 0,
                (uint32_t)page);
}

void Sc::take_reply(const sc::ReplyMsg &r, const uint8_t *data, sc::Outbox &out) {
  if (adaptive_ && take_follower_reply(r, data, out)) return;
  if (r.page != asked_ || granted_.load(std::memory_order_relaxed))
    fatal("internal error: an answer for page %u, which this node is not asking for", r.page);
  install_data(r, data);
  if (fast_reads_) set_voluntary(r.page, false);  // granted by the manager now
  if (++replies_ < r.expect) return;
  set_access(r.page, sc::Access(r.access));
  granted_.store(true, std::memory_order_release);
}

void Sc::install_data(const sc::ReplyMsg &r, const uint8_t *data) {
  // The page (or minipage) is inaccessible here until the last answer:
  // writing its bytes in the system view races with nothing.  A
  // minipage's neighbours in its data page are other coherence units,
  // possibly written here right now: only its own bytes are copied.
  if (data)
    memcpy(sys_bytes(r.page, r.extent), data, r.extent.bytes);
  else if (r.read_from)
    f_.get(r.read_from - 1, data_seg_.id, data_offset(r.page, r.extent), sys_bytes(r.page, r.extent), r.extent.bytes);
  else if (!r.placed)
    return;
  add(stats().pages_fetched);
}

void Sc::on_retried() {
  if (!ack_owed_.load(std::memory_order_acquire)) return;
  step([&](sc::Outbox &out) {
    sc::AckMsg a{};
    a.page = asked_;
    out.post(manager_of(asked_), sc::kAck, a);
  });
  ack_owed_.store(false, std::memory_order_release);
}

void Sc::settle_ack() {
  while (ack_owed_.load(std::memory_order_acquire)) sched_yield();
  if (adaptive_) settle_follower();
}

}  // namespace rdsm
