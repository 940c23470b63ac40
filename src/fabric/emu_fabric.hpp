// The emu fabric: a decorator over any fabric that charges the costs of a
// modelled network (emu_params.hpp) on top of what the base fabric does, so
// that the seeds' sensitivity studies can be rerun on real executions.
//
// Every cost is charged by busy-waiting on the monotonic clock (sleeping is
// far too coarse at microsecond scale), on the thread the real network would
// hold up:
//   - host overhead: the initiating thread, before the operation;
//   - NI occupancy and bandwidth: each node's NI is one "free at" time in a
//     word of shared memory (a segment of the base fabric, one word per
//     node), claimed with compare-and-swap by whoever starts a transfer
//     through it, so transfers through one NI are serialised across the
//     node's threads and against peers' transfers into it;
//   - wire latency: added between the two NIs;
//   - a get or atomic returns when its reply has arrived; a put completes at
//     flush, which waits for its arrival;
//   - a message carries its modelled arrival time in a small header; the
//     receiving handler waits until then plus the base fabric's own delivery
//     time (so the charges add to the base's, as for one-sided operations),
//     then for the interrupt cost in interrupt mode, before the real
//     handler runs.
// Each charge is also counted, per parameter, in the node's statistics
// (rdsm_stats' emu_* fields), with the time its threads waited them out.
// Operations of a node on itself cost nothing.  The base fabric's own costs
// come on top: the emulated network is the base plus the charges.  The
// nodes' clocks must be one clock (one host).
#pragma once
#include <atomic>
#include <memory>

#include "fabric/emu_params.hpp"
#include "fabric/fabric.hpp"

namespace rdsm::fabric {

class EmuFabric final : public Fabric {
 public:
  // Collective (registers the NI words with the base fabric).
  EmuFabric(std::unique_ptr<Fabric> base, const EmuParams &params);

  const EmuParams &params() const { return p_; }
  // The base fabric, to measure it without the charges.
  Fabric &base() { return *base_; }

  NodeId rank() const override { return base_->rank(); }
  int nodes() const override { return base_->nodes(); }
  const char *name() const override { return "emu"; }
  HandlerMode handler_mode() const override { return base_->handler_mode(); }

  Segment register_segment(size_t bytes) override { return base_->register_segment(bytes); }
  // Memory mapped straight from a peer is not charged (hardware coherence).
  bool peer_segment(NodeId node, SegmentId seg, Segment *out) override { return base_->peer_segment(node, seg, out); }

  void put(NodeId dst, SegmentId seg, uint64_t off, const void *src, size_t n) override;
  void putv(NodeId dst, SegmentId seg, const Piece *pieces, size_t count) override;
  void put_masked(NodeId dst, SegmentId seg, uint64_t off, const void *src, const uint64_t *mask,
                  size_t n) override;
  void get(NodeId src, SegmentId seg, uint64_t off, void *dst, size_t n) override;
  void get_fresh(NodeId src, SegmentId seg, uint64_t off, const Segment &into, uint64_t into_off, size_t n) override;
  uint64_t cas(NodeId dst, SegmentId seg, uint64_t off, uint64_t expected, uint64_t desired) override;
  uint64_t fetch_add(NodeId dst, SegmentId seg, uint64_t off, uint64_t value) override;
  uint64_t atomic_load(NodeId dst, SegmentId seg, uint64_t off) override;
  void batch(NodeId node, BatchOp *ops, size_t count) override;
  void flush(NodeId dst) override;
  void flush_all() override;

  void set_handler(MsgType type, Handler h) override;
  void sendv(NodeId dst, MsgType type, const iovec *iov, int iovcnt) override;
  void start() override { base_->start(); }
  void wait(const std::function<bool()> &done) override { base_->wait(done); }
  void notify() override { base_->notify(); }
  void poll() override { base_->poll(); }
  bool in_handler() const override { return base_->in_handler(); }
  // Charging is clock reads, busy-waiting and atomics: as safe as the base.
  bool one_sided_signal_safe() const override { return base_->one_sided_signal_safe(); }
  bool signal_safe() const override { return base_->signal_safe(); }

  void barrier() override { base_->barrier(); }
  void stop() override { base_->stop(); }

 private:
  // Time at which a transfer of `bytes` from this node to `dst`, ready to
  // leave at `ready`, has arrived there (NIs claimed on the way).
  uint64_t transfer(NodeId from, NodeId to, size_t bytes, uint64_t ready);
  // Claims `node`'s NI for `busy` ns from `ready` or when it is free;
  // returns the start.
  uint64_t claim_nic(NodeId node, uint64_t ready, uint64_t busy);
  // The initiator's overhead; returns the time the operation leaves.
  uint64_t overhead();
  // A blocking round trip: request of no data, reply of `bytes`.
  void round_trip(NodeId peer, size_t bytes);
  // A put of `bytes` to `dst`: charged now, completed at flush.
  void posted(NodeId dst, size_t bytes);

  std::unique_ptr<Fabric> base_;
  EmuParams p_;
  Segment nic_seg_;  // one word: this node's NI free-at time (ns)
  std::unique_ptr<std::atomic<uint64_t>[]> arrival_;  // per destination: last put's arrival
  uint64_t handler_charged_until_ = 0;  // end of the last charge in a handler (handlers run one at a time)
};

}  // namespace rdsm::fabric
