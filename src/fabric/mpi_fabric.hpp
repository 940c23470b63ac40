// The mpi fabric: the nodes are the ranks of an MPI job (MPI_COMM_WORLD).
//
// Every registered segment is a memfd mapping of its own, exposed as an
// MPI-3 RMA window (MPI_Win_create) that is locked for passive-target access
// once (MPI_Win_lock_all) and stays locked until the fabric ends; put, get
// and the atomics are MPI_Put / MPI_Get / MPI_Compare_and_swap /
// MPI_Fetch_and_op followed by a flush.  The memfd lets the memory layer map
// the segment a second time (Segment.fd), as with the shm fabric.
//
// Messages are MPI sends on a communicator of their own, tagged with the
// message type.  A send copies the bytes into a buffer that lives until the
// nonblocking send completes, so a handler that sends never waits for the
// receiver (two handlers sending to each other cannot deadlock).
//
// Ranks on one host (MPI_COMM_TYPE_SHARED) map each other's segment files
// (peer_memfd.hpp), so a one-sided operation between them is a load, store
// or copy with no MPI and no code of the target (measured here: a 4 KiB
// MPI_Get between two ranks of one host waits for the target's progress
// thread, 35-45 us); they also share a doorbell each (doorbell.hpp), rung
// after every MPI send to a rank of the host, on which its receiver sleeps.
// Atomics stay MPI's unless the whole job is on one host: MPI promises
// atomicity only among MPI's own atomics, and a network adapter's are not
// atomic with the processor's.  MPI RMA stays the path between hosts (and,
// with RDSM_MPI_LOCAL=rma or where /proc does not allow the mapping, on one
// host too).
//
// Progress: MPI moves one-sided operations aimed at this rank only while some
// thread of it is inside MPI, unless the transport does them in hardware.
// A thread of the fabric therefore always polls MPI: in interrupt mode the
// handler thread (which also receives), in poll mode a progress thread that
// only drives MPI and leaves messages to the waiting threads.  When idle it
// backs off to short sleeps, so an idle node costs little CPU while a request
// aimed at a node that is computing still waits microseconds, not the length
// of the computation.  In spin mode the handler thread never sleeps.  Signal
// mode is refused: a rank on another host cannot signal this process, and
// MPI may not be called from a signal handler.
#pragma once
#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "common/futex.hpp"
#include "fabric/doorbell.hpp"
#include "fabric/fabric.hpp"
#include "fabric/mpi_watchdog.hpp"

namespace rdsm::fabric {

class MpiFabric final : public Fabric {
 public:
  // Initialises MPI (mpi_environment.hpp); rank and size are MPI_COMM_WORLD's.
  explicit MpiFabric(const Options &opt);
  ~MpiFabric() override;
  MpiFabric(const MpiFabric &) = delete;
  MpiFabric &operator=(const MpiFabric &) = delete;

  NodeId rank() const override { return rank_; }
  int nodes() const override { return nodes_; }
  const char *name() const override { return "mpi"; }
  HandlerMode handler_mode() const override { return mode_; }

  Segment register_segment(size_t bytes) override;

  void put(NodeId dst, SegmentId seg, uint64_t off, const void *src, size_t n) override;
  void put_masked(NodeId dst, SegmentId seg, uint64_t off, const void *src, const uint64_t *mask,
                  size_t n) override;
  void put_masked_alone(NodeId dst, SegmentId seg, uint64_t off, const void *src, const uint64_t *mask,
                        size_t n) override;
  bool blends_in_place(NodeId dst, SegmentId seg) const override;
  // One MPI_Put with an indexed target datatype: a diff of scattered runs
  // costs one operation and one completion, not one per run.
  void putv(NodeId dst, SegmentId seg, const Piece *pieces, size_t count) override;
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
  // MPI calls allocate and take locks: never from a signal handler.  When
  // the whole job is on one host and every segment is mapped, one-sided
  // operations make no MPI call, and the fault path may use them there.
  bool one_sided_signal_safe() const override { return all_mapped_.load(std::memory_order_acquire); }
  // The job spans hosts and some host has no RDMA transport (rdma_transport.hpp).
  bool one_sided_in_software() const override { return software_one_sided_; }

  void barrier() override;
  void stop() override;

 private:
  struct Win {
    MPI_Win win = MPI_WIN_NULL;
    uint8_t *base = nullptr;
    size_t bytes = 0;
    size_t map_len = 0;
    int fd = -1;
    // Mapping of every node's copy, by rank, where this node reaches it by
    // loads and stores (a rank of this host, itself included); null: MPI.
    std::unique_ptr<uint8_t *[]> peer;
    bool atomics_mapped = false;  // atomics too: the whole job is on this host
  };
  struct Outgoing {  // a nonblocking send and the copy of its bytes
    MPI_Request req;
    std::vector<uint8_t> data;
  };

  const Win &window(const char *op, NodeId node, SegmentId seg, uint64_t off, size_t n) const;
  uint8_t *word(const char *op, NodeId node, SegmentId seg, uint64_t off, const Win **w) const;
  void check_node(const char *op, NodeId node) const;

  // The host's ranks (mpi_host_peers.cpp).
  void join_host(const Options &opt);
  void map_host_segments(Win &w);
  void unmap_host();
  bool agree(bool ok);

  void reap_sends(bool all);
  size_t receive_pass();
  void deliver(NodeId src, MsgType type, const void *data, size_t len);
  size_t try_dispatch();
  void announce();
  void handler_loop();
  void progress_loop();
  void idle_backoff(int *idle, Doorbell &bell, uint32_t seen);
  void spin_pause(int *idle);

  int rank_ = 0;
  int nodes_ = 1;
  HandlerMode mode_;
  MPI_Comm msg_comm_ = MPI_COMM_NULL;      // messages only
  MPI_Comm barrier_comm_ = MPI_COMM_NULL;  // barrier(): never mixed with messages
  MPI_Comm quiet_comm_ = MPI_COMM_NULL;    // probed by the progress thread; carries nothing
  MPI_Comm host_comm_ = MPI_COMM_NULL;     // the ranks of this host

  // The host's ranks: mapped_ when they map each other's files (agreed by
  // the whole job), one_host_ when the job has no other rank.
  bool mapped_ = false;
  bool one_host_ = false;
  bool software_one_sided_ = false;  // one_sided_in_software()
  std::vector<int> host_ranks_;     // world ranks of the host's ranks, in host order
  std::vector<Doorbell *> bells_;   // by world rank: the rank's doorbell if mapped, else null
  Doorbell own_bell_{};             // this rank's doorbell when nothing is mapped
  Doorbell *bell_ = &own_bell_;     // where this rank's receiver sleeps
  int ctl_fd_ = -1;
  struct Mapping {
    void *addr;
    size_t len;
  };
  std::vector<Mapping> maps_;       // peers' files mapped here
  std::atomic<bool> all_mapped_{false};  // every one-sided operation is a memory operation

  // Segments: registered before use, never removed until the end.
  static constexpr uint32_t kMaxSegments = 1024;
  std::mutex seg_mu_;
  std::unique_ptr<Win[]> wins_;
  std::atomic<uint32_t> nwins_{0};

  // Sends.
  std::mutex send_mu_;
  std::vector<std::unique_ptr<Outgoing>> sends_;

  // Delivery.
  Handler handlers_[kMaxMsgTypes];
  FutexLock dispatch_;  // the receiver of messages; handlers run under it
  Doorbell event_{};  // rung after handlers ran, by notify() and by stop()
  std::atomic<bool> delivering_{false};
  std::atomic<bool> stopping_{false};
  std::thread thread_;  // handler thread (interrupt, spin) or progress thread (poll)

  // Finds a lost rank between start() and stop() (RDSM_HANG_TIMEOUT > 0).
  std::unique_ptr<MpiWatchdog> watchdog_;
};

}  // namespace rdsm::fabric
