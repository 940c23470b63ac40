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
// Progress: MPI moves one-sided operations aimed at this rank only while some
// thread of it is inside MPI, unless the transport does them in hardware.
// A thread of the fabric therefore always polls MPI: in interrupt mode the
// handler thread (which also receives), in poll mode a progress thread that
// only drives MPI and leaves messages to the waiting threads.  When idle it
// backs off to short sleeps, so an idle node costs little CPU while a request
// aimed at a node that is computing still waits microseconds, not the length
// of the computation.
#pragma once
#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "common/futex.hpp"
#include "fabric/fabric.hpp"

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
  // One MPI_Put with an indexed target datatype: a diff of scattered runs
  // costs one operation and one completion, not one per run.
  void putv(NodeId dst, SegmentId seg, const Piece *pieces, size_t count) override;
  void get(NodeId src, SegmentId seg, uint64_t off, void *dst, size_t n) override;
  uint64_t cas(NodeId dst, SegmentId seg, uint64_t off, uint64_t expected, uint64_t desired) override;
  uint64_t fetch_add(NodeId dst, SegmentId seg, uint64_t off, uint64_t value) override;
  uint64_t atomic_load(NodeId dst, SegmentId seg, uint64_t off) override;
  void flush(NodeId dst) override;
  void flush_all() override;

  void set_handler(MsgType type, Handler h) override;
  void sendv(NodeId dst, MsgType type, const iovec *iov, int iovcnt) override;
  void start() override;
  void wait(const std::function<bool()> &done) override;
  void notify() override;
  void poll() override;
  bool in_handler() const override;
  // MPI calls allocate and take locks: never from a signal handler, so the
  // runtime hands faults to a thread (one_sided_signal_safe stays false).

  void barrier() override;
  void stop() override;

 private:
  struct Win {
    MPI_Win win = MPI_WIN_NULL;
    uint8_t *base = nullptr;
    size_t bytes = 0;
    size_t map_len = 0;
    int fd = -1;
  };
  struct Outgoing {  // a nonblocking send and the copy of its bytes
    MPI_Request req;
    std::vector<uint8_t> data;
  };

  const Win &window(const char *op, NodeId node, SegmentId seg, uint64_t off, size_t n) const;
  void check_node(const char *op, NodeId node) const;

  void reap_sends(bool all);
  size_t receive_pass();
  void deliver(NodeId src, MsgType type, const void *data, size_t len);
  size_t try_dispatch();
  void announce();
  void handler_loop();
  void progress_loop();
  void idle_backoff(int *idle, std::atomic<uint32_t> *word, uint32_t seen);

  int rank_ = 0;
  int nodes_ = 1;
  HandlerMode mode_;
  MPI_Comm msg_comm_ = MPI_COMM_NULL;      // messages only
  MPI_Comm barrier_comm_ = MPI_COMM_NULL;  // barrier(): never mixed with messages
  MPI_Comm quiet_comm_ = MPI_COMM_NULL;    // probed by the progress thread; carries nothing

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
  std::atomic<uint32_t> event_{0};  // bumped after handlers ran, by notify() and by stop()
  std::atomic<uint32_t> event_waiters_{0};
  std::atomic<bool> delivering_{false};
  std::atomic<bool> stopping_{false};
  std::thread thread_;  // handler thread (interrupt) or progress thread (poll)
};

}  // namespace rdsm::fabric
