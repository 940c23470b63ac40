#include "fabric/emu_fabric.hpp"

#include <algorithm>
#include <cstring>
#include <sched.h>
#include <vector>

#include "common/bits.hpp"
#include "common/clock.hpp"
#include "common/error.hpp"
#include "common/futex.hpp"
#include "stats/stats.hpp"

namespace rdsm::fabric {

namespace {
// What a message carries in front of its data: when the modelled network
// has it at the destination, and when it was handed to the base fabric.
struct EmuHeader {
  uint64_t arrival_ns;
  uint64_t posted_ns;
};
constexpr int kStackPieces = 16;  // scatter entries sent without allocating

// Busy-waits until the monotonic clock reaches `until` (async-signal-safe:
// sched_yield is a bare system call), counting the wait as the node's time
// in the emu fabric.  Far from the end it lets another thread of this host
// run: on a cluster each node has CPUs of its own, while here a node
// spinning through a charge takes a core from the other nodes and from its
// own handler (async's FFT at 100 MB/s on 2 cores: 3.6 s spinning, 2.5-2.7 s
// yielding, 2.1 s in rdsm sim's replay of the model).  Near the end it
// spins, for the charge's precision.
void spin_until(uint64_t until) {
  constexpr uint64_t kYieldAbove = 2000;  // ns left
  uint64_t t0 = now_ns(), t = t0;
  while (t < until) {
    if (until - t > kYieldAbove)
      sched_yield();
    else
      cpu_relax();
    t = now_ns();
  }
  if (t > t0) add(stats().emu_waited_ns, t - t0);
}

// A charge of the model, counted per parameter in the node's statistics
// (zero charges, the usual case for most parameters, cost no atomic).
void charge(Stats::Counter &c, uint64_t ns) {
  if (ns) add(c, ns);
}

void atomic_max(std::atomic<uint64_t> &a, uint64_t v) {
  uint64_t cur = a.load(std::memory_order_relaxed);
  while (cur < v && !a.compare_exchange_weak(cur, v, std::memory_order_acq_rel)) {
  }
}
}  // namespace

EmuFabric::EmuFabric(std::unique_ptr<Fabric> base, const EmuParams &params)
    : base_(std::move(base)), p_(params), arrival_(new std::atomic<uint64_t>[base_->nodes()]) {
  // Every node registers it first, so it has the same id everywhere.
  nic_seg_ = base_->register_segment(sizeof(uint64_t));
  for (int i = 0; i < base_->nodes(); ++i) arrival_[i].store(0, std::memory_order_relaxed);
}

uint64_t EmuFabric::claim_nic(NodeId node, uint64_t ready, uint64_t busy) {
  uint64_t seen = base_->atomic_load(node, nic_seg_.id, 0);
  for (;;) {
    uint64_t start = std::max(ready, seen);
    uint64_t was = base_->cas(node, nic_seg_.id, 0, seen, start + busy);
    if (was == seen) return start;
    seen = was;
  }
}

uint64_t EmuFabric::transfer(NodeId from, NodeId to, size_t bytes, uint64_t ready) {
  Stats &s = stats();
  charge(s.emu_latency_ns, p_.latency_ns);
  if (p_.free_nics()) return ready + p_.latency_ns;
  const uint64_t busy = p_.nic_busy(bytes), occupancy = p_.packets(bytes) * p_.occupancy_ns;
  uint64_t out = claim_nic(from, ready, busy);
  // Cut-through: the receiving NI takes the stream as it comes off the wire.
  uint64_t in = claim_nic(to, out + p_.latency_ns, busy);
  // The arrival, in + busy, is ready plus these four parts: the two NIs
  // overlap, so the occupancy and the bandwidth count once.
  charge(s.emu_occupancy_ns, occupancy);
  charge(s.emu_bandwidth_ns, busy - occupancy);
  charge(s.emu_ni_wait_ns, (out - ready) + (in - out - p_.latency_ns));
  return in + busy;
}

uint64_t EmuFabric::overhead() {
  uint64_t t = now_ns();
  if (p_.host_overhead_ns) {
    t += p_.host_overhead_ns;
    charge(stats().emu_host_overhead_ns, p_.host_overhead_ns);
    spin_until(t);
  }
  return t;
}

void EmuFabric::round_trip(NodeId peer, size_t bytes) {
  if (peer == rank()) return;
  uint64_t at = overhead();
  at = transfer(rank(), peer, 0, at);
  spin_until(transfer(peer, rank(), bytes, at));
}

void EmuFabric::posted(NodeId dst, size_t bytes) {
  if (dst == rank()) return;
  atomic_max(arrival_[dst], transfer(rank(), dst, bytes, overhead()));
}

// ---- one-sided ---------------------------------------------------------------

void EmuFabric::put(NodeId dst, SegmentId seg, uint64_t off, const void *src, size_t n) {
  posted(dst, n);
  base_->put(dst, seg, off, src, n);
}

void EmuFabric::putv(NodeId dst, SegmentId seg, const Piece *pieces, size_t count) {
  size_t bytes = 0;
  for (size_t i = 0; i < count; ++i) bytes += pieces[i].n;
  posted(dst, bytes);
  base_->putv(dst, seg, pieces, count);
}

void EmuFabric::put_masked(NodeId dst, SegmentId seg, uint64_t off, const void *src, const uint64_t *mask,
                           size_t n) {
  size_t bytes = 0;  // only the bytes the mask selects travel
  for (size_t i = 0; i < n / 64; ++i) bytes += count_bits(mask[i]);
  posted(dst, bytes);
  base_->put_masked(dst, seg, off, src, mask, n);
}

void EmuFabric::get(NodeId src, SegmentId seg, uint64_t off, void *dst, size_t n) {
  round_trip(src, n);
  base_->get(src, seg, off, dst, n);
}

void EmuFabric::get_fresh(NodeId src, SegmentId seg, uint64_t off, const Segment &into, uint64_t into_off, size_t n) {
  round_trip(src, n);
  base_->get_fresh(src, seg, off, into, into_off, n);
}

uint64_t EmuFabric::cas(NodeId dst, SegmentId seg, uint64_t off, uint64_t expected, uint64_t desired) {
  round_trip(dst, sizeof(uint64_t));
  return base_->cas(dst, seg, off, expected, desired);
}

uint64_t EmuFabric::fetch_add(NodeId dst, SegmentId seg, uint64_t off, uint64_t value) {
  round_trip(dst, sizeof(uint64_t));
  return base_->fetch_add(dst, seg, off, value);
}

uint64_t EmuFabric::atomic_load(NodeId dst, SegmentId seg, uint64_t off) {
  round_trip(dst, sizeof(uint64_t));
  return base_->atomic_load(dst, seg, off);
}

// Each operation is posted on its own (the host overhead each), and they
// travel together: one round trip, the answers' bytes on the way back.
void EmuFabric::batch(NodeId node, BatchOp *ops, size_t count) {
  if (node != rank() && count) {
    uint64_t at = 0;
    size_t bytes = 0;
    for (size_t i = 0; i < count; ++i) {
      at = overhead();
      bytes += ops[i].kind == BatchOp::get ? ops[i].n : ops[i].old ? sizeof(uint64_t) : 0;
    }
    spin_until(transfer(node, rank(), bytes, transfer(rank(), node, 0, at)));
  }
  base_->batch(node, ops, count);
}

void EmuFabric::flush(NodeId dst) {
  base_->flush(dst);
  if (dst >= 0 && dst < nodes()) spin_until(arrival_[dst].load(std::memory_order_acquire));
}

void EmuFabric::flush_all() {
  base_->flush_all();
  uint64_t last = 0;
  for (int i = 0; i < nodes(); ++i) last = std::max(last, arrival_[i].load(std::memory_order_acquire));
  spin_until(last);
}

// ---- messages ----------------------------------------------------------------

void EmuFabric::set_handler(MsgType type, Handler h) {
  if (!h) {
    base_->set_handler(type, nullptr);
    return;
  }
  const bool interrupt = handler_mode() == HandlerMode::interrupt;
  base_->set_handler(type, [this, interrupt, h = std::move(h)](const Message &m) {
    if (m.len < sizeof(EmuHeader))
      fatal("emu fabric: message of type %u from node %d has no emu header (%zu bytes)", (unsigned)m.type, m.src,
            m.len);
    EmuHeader eh;
    memcpy(&eh, m.data, sizeof eh);
    if (eh.arrival_ns) {
      // The base's own delivery time (waking this thread, mostly) comes on
      // top of the modelled network's, except the part this node's
      // handlers spent in charges: a message that waited behind them found
      // the handler awake.  Handlers of a node run one at a time.
      uint64_t entry = now_ns(), since = std::max(eh.posted_ns, handler_charged_until_);
      spin_until(eh.arrival_ns + (entry > since ? entry - since : 0));
      if (interrupt && p_.interrupt_ns) {
        charge(stats().emu_interrupt_ns, p_.interrupt_ns);
        spin_until(now_ns() + p_.interrupt_ns);
      }
      handler_charged_until_ = now_ns();
    }
    h(Message{m.src, m.type, static_cast<const uint8_t *>(m.data) + sizeof eh, m.len - sizeof eh});
  });
}

void EmuFabric::sendv(NodeId dst, MsgType type, const iovec *iov, int iovcnt) {
  if (iovcnt < 0 || (iovcnt > 0 && !iov)) fatal("fabric send: bad scatter list (%d entries)", iovcnt);
  EmuHeader eh{0, 0};
  if (dst != rank()) {
    size_t bytes = sizeof eh;
    for (int i = 0; i < iovcnt; ++i) bytes += iov[i].iov_len;
    uint64_t leave = overhead();
    eh.arrival_ns = transfer(rank(), dst, bytes, leave);
    eh.posted_ns = now_ns();
  }
  iovec stack[kStackPieces];
  std::vector<iovec> heap;
  iovec *all = stack;
  if (iovcnt + 1 > kStackPieces) {
    heap.resize((size_t)iovcnt + 1);
    all = heap.data();
  }
  all[0] = {&eh, sizeof eh};
  for (int i = 0; i < iovcnt; ++i) all[i + 1] = iov[i];
  base_->sendv(dst, type, all, iovcnt + 1);
}

}  // namespace rdsm::fabric
