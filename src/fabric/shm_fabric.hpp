// The shm fabric: the nodes are processes on one host.
//
// Every node's memory file (see bootstrap/node_file.hpp) is mapped by every
// node, so one-sided operations are plain loads, stores and atomics on the
// target's memory and no code of the target runs for them.  Messages travel
// through one single-producer/single-consumer ring per (source, destination)
// pair that lives in the destination's file; a doorbell futex in the
// destination's file lets an idle receiver sleep instead of polling.
//
// Layout of the part of node i's file that belongs to the fabric:
//   kNodeBlockBytes                 NodeCtl: doorbell, sleepers, barrier words
//   + 4 KiB + s * (4 KiB + cap)     ring from node s to node i: RingCtl page, data
//   seg_start (2 MiB aligned)       registered segments, each 2 MiB aligned
// Every node derives the same layout from the number of nodes, and all of it
// starts as zero, so nothing is initialised and nobody waits for a peer to
// set up before talking to it.
#pragma once
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "common/futex.hpp"
#include "fabric/doorbell.hpp"
#include "fabric/fabric.hpp"
#include "fabric/ring.hpp"

namespace rdsm::fabric {

namespace shm {
struct NodeCtl;
}

class ShmFabric final : public Fabric {
 public:
  // node_fds[i] is the memory file of node i; the fabric does not close them.
  ShmFabric(const Options &opt, std::vector<int> node_fds);
  ~ShmFabric() override;
  ShmFabric(const ShmFabric &) = delete;
  ShmFabric &operator=(const ShmFabric &) = delete;

  NodeId rank() const override { return rank_; }
  int nodes() const override { return nodes_; }
  const char *name() const override { return "shm"; }
  HandlerMode handler_mode() const override { return mode_; }

  Segment register_segment(size_t bytes) override;

  void put(NodeId dst, SegmentId seg, uint64_t off, const void *src, size_t n) override;
  void putv(NodeId dst, SegmentId seg, const Piece *pieces, size_t count) override;
  void put_masked(NodeId dst, SegmentId seg, uint64_t off, const void *src, const uint64_t *mask,
                  size_t n) override;
  void put_masked_alone(NodeId dst, SegmentId seg, uint64_t off, const void *src, const uint64_t *mask,
                        size_t n) override;
  bool blends_in_place(NodeId, SegmentId) const override { return true; }
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
  void start() override;
  void wait(const std::function<bool()> &done) override;
  void notify() override;
  void poll() override;
  bool in_handler() const override;
  // While the handler thread runs, send/wait only touch rings, futexes and
  // atomics.  In poll and signal modes wait() runs handlers, and without a
  // handler thread a sender facing a full ring moves messages to the heap:
  // neither is signal-safe.
  bool peer_segment(NodeId node, SegmentId seg, Segment *out) override;
  // One-sided operations are loads, stores and atomics on shared mappings.
  bool one_sided_signal_safe() const override { return true; }
  bool signal_safe() const override {
    return handler_thread_delivers(mode_) && delivering_.load(std::memory_order_acquire);
  }

  void barrier() override;
  void stop() override;

  // Ring capacity for a job of `nodes` nodes: a power of two in [256 KiB, 4 MiB].
  static uint64_t ring_capacity(int nodes);
  // Bytes of control area reserved for `nodes` nodes' rings (Options::ring_reserve).
  static uint64_t layout_reserve(int nodes);
  uint64_t ring_capacity() const { return cap_; }
  // Largest payload of one fragment.
  size_t max_fragment() const { return frag_max_; }

 private:
  struct Outbound {  // this node -> one destination
    shm::RingView ring;
    FutexLock lock;            // producers of this node; held for a whole message
    uint64_t tail = 0;         // next write position (under lock)
    uint64_t head_cache = 0;   // last head seen; refreshed only when short of space
  };
  struct Inbound {  // one source -> this node; touched only under dispatch_
    shm::RingView ring;
    uint64_t head = 0;
    std::vector<uint8_t> buf;  // reassembly of the message being received
    MsgType type = 0;
    bool partial = false;      // buf holds the first fragments of a message
  };
  struct Pending {  // complete message taken out of a ring before its handler could run
    NodeId src;
    MsgType type;
    std::vector<uint8_t> data;
  };
  struct SegInfo {
    size_t bytes = 0;
    size_t map_len = 0;
    uint64_t fd_offset = 0;
    std::unique_ptr<uint8_t *[]> base;  // mapping of every node's copy
  };

  uint8_t *map_file(int node, uint64_t off, size_t len, const char *what);
  // The target's bytes, checked and (unless `counted` is false: the
  // caller counts them together) counted as one operation.
  uint8_t *target(const char *op, NodeId node, SegmentId seg, uint64_t off, size_t n, bool counted = true);
  uint8_t *masked_target(const char *op, NodeId dst, SegmentId seg, uint64_t off, const uint64_t *mask, size_t n);
  uint64_t *target_word(const char *op, NodeId node, SegmentId seg, uint64_t off, bool counted = true);
  void check_node(const char *op, NodeId node) const;

  void lock_ring(Outbound &o);
  void wait_for_space(Outbound &o, NodeId dst, uint64_t need);
  bool drain_while_sending();
  void ring_doorbell(NodeId node);
  bool has_pending() const;
  bool read_message(int src, size_t *work);
  size_t dispatch_pass();
  size_t drain_to_backlog();
  void deliver(NodeId src, MsgType type, const void *data, size_t len);
  bool progress(bool *busy);
  void announce();
  void handler_loop();
  void spin_pause(int *idle);
  void spin_wait(const std::function<bool()> &done);

  // Signal mode (shm_signal.cpp).
  void signal_arrival(NodeId dst);
  void start_signal_delivery();
  void stop_signal_delivery();
  static void serve_signal(void *self);
  static bool rearm_signal(void *self);
  int peer_pidfd(NodeId dst, int32_t pid);

  int rank_;
  int nodes_;
  HandlerMode mode_;
  int spin_;
  std::vector<int> fds_;
  uint64_t cap_;
  size_t frag_max_;
  uint64_t seg_start_;

  struct Mapping {
    void *addr;
    size_t len;
  };
  std::vector<Mapping> maps_;
  std::vector<shm::NodeCtl *> ctl_;  // every node's NodeCtl
  // Signal mode: a pidfd of each peer that was signalled, -1 before the
  // first signal, kPeerGone if the peer had gone by then (shm_signal.cpp).
  std::unique_ptr<std::atomic<int>[]> peer_pidfds_;
  shm::NodeCtl *self_ = nullptr;
  std::unique_ptr<Outbound[]> out_;
  std::unique_ptr<Inbound[]> in_;

  // Delivery.
  Handler handlers_[kMaxMsgTypes];
  FutexLock dispatch_;  // the consumer of every inbound ring; handlers run under it
  std::deque<Pending> backlog_;  // under dispatch_; older than anything left in the rings
  std::atomic<size_t> backlog_size_{0};
  int next_src_ = 0;  // under dispatch_: round-robin start among sources
  std::atomic<uint32_t> event_{0};  // bumped after handlers ran, and by notify()
  std::atomic<uint32_t> event_waiters_{0};
  std::atomic<bool> delivering_{false};  // between start() and stop()
  std::atomic<bool> stopping_{false};
  bool stopped_ = false;  // stop() ran: a second call (the destructor's) does nothing
  std::thread handler_thread_;

  // Segments.
  static constexpr uint32_t kMaxSegments = 1024;
  std::mutex seg_mu_;
  std::unique_ptr<SegInfo[]> segs_;
  std::atomic<uint32_t> nsegs_{0};
  uint64_t next_seg_off_;
};

}  // namespace rdsm::fabric
