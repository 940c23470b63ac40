// The fabric: a verbs-like transport between the nodes of a job.
//
// Modelled on InfiniBand verbs as the seeds use them, and shaped so that an
// MPI-3 RMA backend (windows, MPI_Put/Get/Compare_and_swap/Fetch_and_op,
// MPI_Win_flush) and a verbs backend (registered MRs, RDMA read/write/atomics,
// send/recv) implement it without change above this line:
//   - memory is registered collectively as segments, addressed remotely by
//     (node, segment id, byte offset);
//   - put/get/cas/fetch_add are one-sided: no code of the target's upper
//     layers runs for them;
//   - messages are delivered to the handler registered for their type.
// The fabric knows nothing about pages, homes or locks.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <sys/uio.h>

#include "common/options.hpp"

namespace rdsm::fabric {

using NodeId = int;
using SegmentId = uint32_t;
using MsgType = uint16_t;
constexpr MsgType kMaxMsgTypes = 64;

// A registered segment as seen by its owner.  `fd`/`fd_offset` let the
// memory layer map the same physical memory a second time (the application
// view); the fabric keeps the memory registered until it is destroyed.
struct Segment {
  SegmentId id = 0;
  uint8_t *base = nullptr;  // local read-write mapping ("system view")
  size_t bytes = 0;
  int fd = -1;
  uint64_t fd_offset = 0;
};

// A delivered message; the bytes are valid only during the handler call.
struct Message {
  NodeId src;
  MsgType type;
  const void *data;
  size_t len;
};
using Handler = std::function<void(const Message &)>;

class Fabric {
 public:
  virtual ~Fabric() = default;

  virtual NodeId rank() const = 0;
  virtual int nodes() const = 0;
  virtual const char *name() const = 0;
  virtual HandlerMode handler_mode() const = 0;

  // ---- memory ------------------------------------------------------------
  // Collective: every node calls it with the same size in the same order and
  // gets the same id.  The memory is zero-filled, page aligned, and may be
  // reserved sparsely (pages cost memory when first touched).
  virtual Segment register_segment(size_t bytes) = 0;

  // Where a fabric's nodes share physical memory (one host), the segment as
  // node `node` registered it, mappable by this node; false elsewhere.
  virtual bool peer_segment(NodeId node, SegmentId seg, Segment *out) {
    (void)node, (void)seg, (void)out;
    return false;
  }

  // ---- one-sided operations ----------------------------------------------
  // put: may complete later; complete and visible at the target after
  // flush(dst) returns.  Puts to the same target are applied in issue order
  // with respect to a later flush, not with respect to each other.
  virtual void put(NodeId dst, SegmentId seg, uint64_t off, const void *src, size_t n) = 0;
  // putv: one gathering write of several pieces into one segment of `dst`,
  // ordered and completed like puts (an MPI put with an indexed datatype,
  // a verbs write with a scatter list per contiguous target range).
  struct Piece {
    uint64_t off;
    const void *src;
    size_t n;
  };
  virtual void putv(NodeId dst, SegmentId seg, const Piece *pieces, size_t count) {
    for (size_t i = 0; i < count; ++i) put(dst, seg, pieces[i].off, pieces[i].src, pieces[i].n);
  }
  // put_masked: one write of the bytes of [src, src + n) whose bit is set in
  // `mask` (bit i % 64 of mask[i / 64] for byte i) to [off, off + n) of
  // `dst`; the other target bytes are left untouched, so writers of
  // different bytes of one page never overwrite each other.  n is a
  // multiple of 64.  Ordered and completed like puts.  A transport with a
  // byte-masked store (the shm fabric's CPU) does it in one operation;
  // elsewhere it is the mask's runs as one gathering write (an MPI put
  // with an indexed datatype), which is what this default does.
  virtual void put_masked(NodeId dst, SegmentId seg, uint64_t off, const void *src, const uint64_t *mask,
                          size_t n);
  // put_masked_alone: put_masked by a writer that holds the target bytes
  // alone until it returns (nobody else writes them meanwhile: the
  // protocol's claim of the page, whole_page_writes.cpp).  A transport that
  // maps the target here (blends_in_place) rewrites the unmasked bytes with
  // the values they hold (masked_blend.hpp): when most words are only
  // partly masked that costs what a plain copy does, a byte-masked store
  // several times more.  Elsewhere it is put_masked, and claiming the
  // target first would buy nothing.
  virtual void put_masked_alone(NodeId dst, SegmentId seg, uint64_t off, const void *src, const uint64_t *mask,
                                size_t n) {
    put_masked(dst, seg, off, src, mask, n);
  }
  virtual bool blends_in_place(NodeId /*dst*/, SegmentId /*seg*/) const { return false; }
  // get: blocking; the bytes are in `dst` when it returns.
  virtual void get(NodeId src, SegmentId seg, uint64_t off, void *dst, size_t n) = 0;
  // get into this node's own segment `into` at `into_off`, whose memory
  // there has most likely never been written (`fresh`): a transport whose
  // segments are files can have the file take the bytes (the kernel then
  // allocates the pages without zeroing them first, about half the cost of
  // a first store to each page).  The same as get(src, seg, off,
  // into.base + into_off, n) in every other respect.
  virtual void get_fresh(NodeId src, SegmentId seg, uint64_t off, const Segment &into, uint64_t into_off, size_t n) {
    get(src, seg, off, into.base + into_off, n);
  }
  // 64-bit atomics at an 8-byte aligned offset; blocking; return the value
  // before the operation.  Atomic with respect to every other atomic of
  // every node on the same word.
  virtual uint64_t cas(NodeId dst, SegmentId seg, uint64_t off, uint64_t expected, uint64_t desired) = 0;
  virtual uint64_t fetch_add(NodeId dst, SegmentId seg, uint64_t off, uint64_t value) = 0;
  // Atomic 64-bit read (fetch_add of 0 where the transport has nothing better).
  virtual uint64_t atomic_load(NodeId dst, SegmentId seg, uint64_t off) { return fetch_add(dst, seg, off, 0); }
  // batch: several independent reads and atomic adds aimed at one node,
  // issued together and all complete when it returns: one round trip on a
  // network instead of one each (an MPI backend issues them and flushes
  // once, a verbs one posts them as one list).  Nothing orders them among
  // themselves; an add whose `old` is null needs no answer.
  struct BatchOp {
    enum Kind : uint8_t { get, fetch_add } kind;
    SegmentId seg;
    uint64_t off;
    void *into = nullptr;    // get: where the bytes go
    size_t n = 0;            // get: how many
    uint64_t value = 0;      // fetch_add: what is added
    uint64_t *old = nullptr;  // fetch_add: the word before, or null
    static BatchOp read(SegmentId seg, uint64_t off, void *into, size_t n) { return {get, seg, off, into, n}; }
    static BatchOp add(SegmentId seg, uint64_t off, uint64_t value, uint64_t *old = nullptr) {
      return {fetch_add, seg, off, nullptr, 0, value, old};
    }
  };
  virtual void batch(NodeId node, BatchOp *ops, size_t count) = 0;
  // Completes every one-sided operation issued so far by this node to `dst`
  // (all nodes for flush_all); afterwards they are visible to any reader.
  virtual void flush(NodeId dst) = 0;
  virtual void flush_all() = 0;

  // ---- messages ----------------------------------------------------------
  // Registers the handler of a message type; before start().
  virtual void set_handler(MsgType type, Handler h) = 0;
  // Sends a message of any size (copied before return).  Messages from one
  // node to another are delivered in the order sent.  A node may send to
  // itself.  Blocks only while the receiver is far behind.
  virtual void send(NodeId dst, MsgType type, const void *data, size_t len) {
    iovec v{const_cast<void *>(data), len};
    sendv(dst, type, &v, 1);
  }
  virtual void sendv(NodeId dst, MsgType type, const iovec *iov, int iovcnt) = 0;

  // Starts delivery (HandlerMode in common/options.hpp): in interrupt mode a
  // handler thread that sleeps until a message arrives, in spin mode one
  // that never sleeps; in poll mode handlers run inside wait() of the
  // waiting thread, and in signal mode there too and in the message
  // signal's handler on a thread that computes.  Handlers of one node never
  // run concurrently with each other.
  virtual void start() = 0;
  // Returns when done() is true.  done() is evaluated by the waiting thread;
  // it becomes true through a handler, or through notify() from another
  // thread.  Must not be called from a handler.
  virtual void wait(const std::function<bool()> &done) = 0;
  // Wakes this node's waiters so that they evaluate their condition again.
  virtual void notify() = 0;
  // Poll and signal modes: runs the handlers of messages that have arrived,
  // without waiting (the seeds' polling at synchronisation points, so a node
  // that keeps re-taking a lock locally still answers its peers).  Nothing
  // where a handler thread delivers.  Must not be called from a handler.
  virtual void poll() = 0;
  // True on the thread that is running a handler right now.
  virtual bool in_handler() const = 0;
  // Whether operations are async-signal-safe right now (no allocation, no
  // locks a signal could interrupt, no handlers run inside wait), so that
  // the fault path may use them straight from the SIGSEGV handler instead
  // of handing the fault over to a thread:
  //   one_sided_signal_safe: put, get, cas, fetch_add, atomic_load, batch, flush;
  //   signal_safe:           those and send, sendv, wait.
  virtual bool one_sided_signal_safe() const { return false; }
  virtual bool signal_safe() const { return false; }
  // Whether some nodes are on other hosts and a one-sided operation aimed at
  // them is carried out by software there (MPI over TCP: the target's
  // progress thread), not by a network adapter or by memory.  Each such
  // operation then costs a wake-up of the target, as a message does, and a
  // fetch of a few operations costs several: the default preset takes the
  // message axes instead (presets.hpp).  The same answer at every node.
  virtual bool one_sided_in_software() const { return false; }

  // ---- job-level ---------------------------------------------------------
  // Job-level barrier of all nodes; needs no handler, so it works before
  // start() and after stop().  In poll and signal modes, while delivery
  // runs, a node waiting here still delivers what arrives: its peers may be waiting for
  // its answers before they reach the barrier.
  virtual void barrier() = 0;
  // Ends delivery (joins the handler thread).  Call after a barrier that
  // guarantees no further message will arrive.
  virtual void stop() = 0;
};

// The fabric selected by the options (RDSM_FABRIC).  Ends the process with a
// message listing the available fabrics when the name is unknown.
std::unique_ptr<Fabric> make_fabric(const Options &opt);

}  // namespace rdsm::fabric
