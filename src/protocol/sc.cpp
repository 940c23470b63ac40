// The sequentially consistent engine: set-up, the steps every role shares,
// placement and the end of a fork-join job.  The roles are in
// sc_requestor.cpp, sc_manager.cpp and sc_server.cpp, the synchronisation
// in sc_sync.cpp.
#include "protocol/sc.hpp"

#include <algorithm>
#include <vector>

#include "common/error.hpp"
#include "memory/fault_dispatch.hpp"
#include "stats/stats.hpp"
#include "sync/atomic_barrier.hpp"
#include "sync/atomic_lock.hpp"
#include "sync/barrier_service.hpp"
#include "sync/lock_service.hpp"

namespace rdsm {

namespace {
Prot prot_of(sc::Access a) { return a == sc::kWrite ? Prot::read_write : a == sc::kRead ? Prot::read : Prot::none; }
}  // namespace

Sc::Sc(fabric::Fabric &f, const Options &opt, const ProtocolConfig &cfg)
    : f_(f), opt_(opt), cfg_(cfg), self_(f.rank()), nodes_(f.nodes()) {
  opt_.region_bytes = resolve_region_bytes(opt_);
  const ViewLayout views = minipage_layout(opt_, opt_.region_bytes / kPageBytes);
  // Coherence units: the data pages, then the pages of the minipage views.
  pages_ = views.on() ? views.total_pages() : views.phys_pages;
  // The data segment first: a fork-join master keeps it at the same place
  // in its memory file from one job to the next (api/fork_join.hpp).
  data_seg_ = f_.register_segment(opt_.region_bytes);
  const size_t managed = (pages_ + nodes_ - 1) / (size_t)nodes_;
  owner_seg_ = f_.register_segment(managed * sizeof(uint64_t));
  if (views.on()) extent_seg_ = f_.register_segment((managed - views.phys_pages / nodes_) * sizeof(uint32_t));
  region_ = std::make_unique<SharedRegion>(opt_, data_seg_, false, views);
  adaptive_ = views.on() && opt_.minipages == MinipageMode::adaptive && nodes_ > 1;
  access_.reset(pages_);
  served_reads_.reset(pages_);
  voluntary_.reset(pages_);
  reader_words_ = ((size_t)nodes_ + 63) / 64;
  readers_.reset(managed * reader_words_);
  busy_.reset(managed);
  one_sided_ = cfg_.fetch == FetchAxis::one_sided;
  // Adaptive minipages learn from every fault, on the service thread.
  fast_reads_ = one_sided_ && !adaptive_ && nodes_ > 1 && nodes_ <= kMaxOneSidedNodes;
  signal_reads_ = !adaptive_ && nodes_ > 1 && opt_.threads == 1;
  setup_peer_downgrades();

  for (fabric::MsgType t : {sc::kRequest, sc::kOrder, sc::kReply, sc::kAck}) {
    stats().classify(t, HandlerWork::page);
    f_.set_handler(t, [this](const fabric::Message &m) {
      step([&](sc::Outbox &out) { handle(m.src, m.type, m.data, m.len, out); });
    });
  }

  // Locks and barriers carry nothing: under sequential consistency a
  // holder's writes are visible to the next holder without any help.
  if (cfg_.lock == LockAxis::atomic) {
    locks_ = std::make_unique<sync::AtomicLocks>(f_, opt_.locks, 0);
  } else {
    sync::LockHooks hooks;
    hooks.make_grant = [](int, int, const uint8_t *, size_t) { return sync::Bytes{}; };
    locks_ = std::make_unique<sync::LockService>(f_, opt_.locks, hooks);
  }
  if (cfg_.barrier == BarrierAxis::atomic) {
    barrier_ = std::make_unique<sync::AtomicBarrier>(f_, 0);
  } else {
    sync::BarrierHooks hooks;
    hooks.merge = [](const std::vector<sync::Bytes> &) { return sync::Bytes{}; };
    barrier_ = std::make_unique<sync::BarrierService>(f_, hooks);
  }
}

void Sc::start() {
  if (nodes_ == 1) {
    // Alone, nothing is shared: every page is writable and never faults.
    region_->protect(0, pages_, Prot::read_write);
    return;
  }
  install_fault_dispatch(
      *region_, [this](size_t page, bool write) { on_fault(page, write); }, {&Sc::fault_in_signal, this}, opt_.spin,
      [this] { on_retried(); });
}

void Sc::finish() {
  barrier();
  if (nodes_ > 1) remove_fault_dispatch();
}

void Sc::set_access(size_t page, sc::Access a) {
  std::atomic_ref<uint8_t>(access_[page]).store(a, std::memory_order_release);
  region_->protect(page, 1, prot_of(a));
  // A peer's bound (sc_peer_downgrade.cpp) ends with the access it bounded,
  // once the protection is the new one: lifted before, a fault of this
  // node's in between would be repaired to the old access (writable), and
  // a write then slip in after the copy was given away.  One being mapped
  // (the backend's mark) is not a bound.
  lift_bound(page);
}

void Sc::step(const std::function<void(sc::Outbox &)> &body) {
  sc::Outbox out;
  {
    std::lock_guard<std::mutex> g(mu_);
    body(out);
    run_local(out);
  }
  send_remote(out);
}

void Sc::run_local(sc::Outbox &out) {
  // Handling one may post more (a manager that is also the owner orders
  // itself, which answers a requestor that may be this node too).
  for (size_t i = 0; i < out.items().size(); ++i) {
    if (out.items()[i].dst != self_) continue;
    sc::Outgoing o = out.items()[i];
    out.items()[i].dst = -1;  // handled
    handle(self_, o.type, o.head, o.head_len, out);
  }
}

void Sc::send_remote(sc::Outbox &out) {
  for (const sc::Outgoing &o : out.items()) {
    if (o.dst < 0 || o.dst == self_) continue;
    if (o.put_at != sc::Outgoing::kNoPut) {
      // The data goes one-sided, visible at the destination before the
      // header that tells it so.
      f_.put(o.dst, data_seg_.id, o.put_at, o.data, o.data_bytes);
      f_.flush(o.dst);
      iovec head{const_cast<uint8_t *>(o.head), o.head_len};
      f_.sendv(o.dst, o.type, &head, 1);
      continue;
    }
    iovec iov[2] = {{const_cast<uint8_t *>(o.head), o.head_len}, {const_cast<uint8_t *>(o.data), o.data_bytes}};
    f_.sendv(o.dst, o.type, iov, o.data ? 2 : 1);
  }
}

void Sc::handle(int src, fabric::MsgType type, const void *data, size_t len, sc::Outbox &out) {
  auto bad = [&] { fatal("internal error: malformed sc message of type %u and %zu bytes from node %d", type, len, src); };
  switch (type) {
    case sc::kRequest: {
      sc::RequestMsg r;
      if (!sc::read_head(data, len, &r) || r.page >= pages_) bad();
      on_request(src, r, out);
      break;
    }
    case sc::kAck: {
      sc::AckMsg a;
      if (!sc::read_head(data, len, &a) || a.page >= pages_) bad();
      on_ack(src, a, out);
      break;
    }
    case sc::kOrder: {
      sc::OrderMsg o;
      if (!sc::read_head(data, len, &o) || o.page >= pages_ || o.requestor < 0 || o.requestor >= nodes_ ||
          o.extent.offset + o.extent.bytes > kPageBytes)
        bad();
      on_order(o, out);
      break;
    }
    case sc::kReply: {
      sc::ReplyMsg r;
      if (!sc::read_head(data, len, &r) || r.page >= pages_) bad();
      // A reply from this node never carries data: the manager orders no
      // owner to serve itself.
      if (src == self_ && r.has_data) bad();
      if (len != sizeof r + (r.has_data ? r.extent.bytes : 0) || r.extent.offset + r.extent.bytes > kPageBytes ||
          r.read_from < 0 || r.read_from > nodes_ || (r.has_data && (r.placed || r.read_from)))
        bad();
      take_reply(r, r.has_data ? static_cast<const uint8_t *>(data) + sizeof r : nullptr, out);
      break;
    }
    default: bad();
  }
}

void Sc::place(size_t first, size_t count, rdsm_placement placement) {
  if (nodes_ == 1 || placement == RDSM_PLACE_FIRST_TOUCH || first >= pages_) return;
  count = std::min(count, pages_ - first);
  std::vector<uint32_t> mine;
  for (size_t i = 0; i < count; ++i) {
    size_t p = first + i;
    int owner = placed_node(placement, first, i, count, nodes_, self_);
    uint64_t word = (uint64_t)owner + 1;
    f_.put(manager_of(p), owner_seg_.id, (p / nodes_) * sizeof word, &word, sizeof word);
    if (owner == self_) mine.push_back((uint32_t)p);
  }
  f_.flush_all();
  // Nobody can have asked for these pages yet (they were allocated just
  // now): this node's own are writable here at once, without a fault.
  std::lock_guard<std::mutex> g(mu_);
  for (size_t i = 0; i < mine.size();) {
    size_t run = 1;
    while (i + run < mine.size() && mine[i + run] == mine[i] + run) ++run;
    for (size_t k = 0; k < run; ++k) std::atomic_ref<uint8_t>(access_[mine[i] + k]).store(sc::kWrite);
    region_->protect(mine[i], run, Prot::read_write);
    for (size_t k = 0; k < run; ++k) lift_bound(mine[i] + k);  // a bound left from the page's last use
    i += run;
  }
}

void Sc::place_minipage(size_t page, size_t offset, size_t bytes) {
  if (nodes_ == 1 || !views().is_minipage(page) || page >= pages_) return;
  // Its owner stays nobody: the first node to touch it owns it.  The extent
  // reaches the manager before the allocation returns, so before any node
  // can have the pointer and fault on it.
  uint32_t word = (uint32_t)(offset << 16 | bytes);
  f_.put(manager_of(page), extent_seg_.id, extent_index(page) * sizeof word, &word, sizeof word);
  f_.flush(manager_of(page));
}

sc::Extent Sc::extent(size_t page) {
  if (!views().is_minipage(page)) return {0, (uint16_t)kPageBytes};
  uint32_t word = std::atomic_ref<uint32_t>(reinterpret_cast<uint32_t *>(extent_seg_.base)[extent_index(page)])
                      .load(std::memory_order_acquire);
  return sc::extent_of_word(word);
}

void Sc::populate_copies(size_t first, size_t count) {
  if (nodes_ == 1 || first >= pages_) return;
  count = region_->populate_within(first, std::min(count, pages_ - first), nodes_, opt_.prepopulate_bytes);
  if (count) region_->premap_system(first, count);
}

void Sc::gather_homes(size_t pages, const AdoptRun &) {
  if (nodes_ == 1) return;
  pages = std::min(pages, pages_);
  const size_t managed = (pages + nodes_ - 1) / (size_t)nodes_;
  if (managed == 0) return;
  // Every page's owner, from the owner words at the managers.
  std::vector<int16_t> owner(pages, -1);
  std::vector<uint64_t> words(managed);
  for (int k = 0; k < nodes_; ++k) {
    f_.get(k, owner_seg_.id, 0, words.data(), managed * sizeof(uint64_t));
    for (size_t i = 0; i < managed; ++i) {
      size_t p = i * nodes_ + k;
      if (p < pages) owner[p] = (int16_t)owner_in(words[i]);
    }
  }
  // The owners' copies are current (every node has passed the last
  // barrier); runs of pages of one owner come in one read.
  for (size_t p = 0; p < pages;) {
    int o = owner[p];
    size_t run = 1;
    while (p + run < pages && owner[p + run] == o) ++run;
    if (o >= 0 && o != self_)
      f_.get(o, data_seg_.id, p * kPageBytes, region_->sys_page(p), run * kPageBytes);
    p += run;
  }
}

}  // namespace rdsm
