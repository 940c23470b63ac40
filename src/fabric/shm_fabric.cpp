#include "fabric/shm_fabric.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bootstrap/node_file.hpp"
#include "common/clock.hpp"
#include "common/error.hpp"
#include "common/message_signal.hpp"
#include "fabric/shm_node_ctl.hpp"
#include "stats/stats.hpp"
#include "stats/trace.hpp"

namespace rdsm::fabric {

using shm::FragHeader;
using shm::NodeCtl;
using shm::RingCtl;

namespace {
constexpr size_t kPage = 4096;
constexpr uint64_t kSegmentAlign = 2ull << 20;
constexpr uint64_t kFullRingLimitNs = 30ull * 1000000000ull;
constexpr int kSendSpin = 256;     // pauses before a full-ring sender starts yielding
constexpr int kSendYields = 64;    // yields before it sleeps on the space word
constexpr int kPerSourceBatch = 16;  // messages from one source before looking at the next
constexpr int kSpinYieldEvery = 64;  // spin mode: empty polls between yields of the CPU

// Handlers run under the dispatch lock, so this also means "holds dispatch_".
thread_local bool t_in_handler = false;

constexpr uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

const uint8_t kEmpty[8] = {};  // data of zero-length messages: never a null pointer

struct InHandler {
  InHandler() { t_in_handler = true; }
  ~InHandler() { t_in_handler = false; }
};
}  // namespace

uint64_t ShmFabric::ring_capacity(int nodes) {
  uint64_t want = (64ull << 20) / (uint64_t)std::max(nodes, 1);
  uint64_t cap = 256ull << 10;
  while (cap * 2 <= want && cap < (4ull << 20)) cap *= 2;
  return cap;
}

uint64_t ShmFabric::layout_reserve(int nodes) {
  // The largest ring for every reserved node: independent of the job's size.
  return kPage + (uint64_t)std::max(nodes, 0) * (kPage + (4ull << 20));
}

ShmFabric::ShmFabric(const Options &opt, std::vector<int> node_fds)
    : rank_(opt.rank),
      nodes_(opt.nodes),
      mode_(opt.handler),
      spin_(std::max(opt.spin, 0)),
      fds_(std::move(node_fds)),
      cap_(ring_capacity(opt.nodes)),
      frag_max_((size_t)(cap_ / 4 - sizeof(FragHeader))) {
  if (nodes_ < 1 || rank_ < 0 || rank_ >= nodes_)
    fatal("shm fabric: rank %d is not in a job of %d nodes", rank_, nodes_);
  if ((int)fds_.size() != nodes_)
    fatal("shm fabric: %zu node memory files for %d nodes", fds_.size(), nodes_);
  if ((size_t)sysconf(_SC_PAGESIZE) > kPage)
    fatal("shm fabric: page size %ld is not supported (4 KiB pages needed)", sysconf(_SC_PAGESIZE));

  const uint64_t slot = kPage + cap_;
  const uint64_t ctl_off = kNodeBlockBytes;
  const uint64_t ctl_bytes = kPage + (uint64_t)nodes_ * slot;
  const uint64_t reserved = std::max(ctl_bytes, layout_reserve(opt.ring_reserve));
  seg_start_ = align_up(ctl_off + reserved, kSegmentAlign);
  next_seg_off_ = seg_start_;

  // Own area whole (every inbound ring); of a peer only its control page and
  // the ring this node writes into.
  ctl_.resize(nodes_);
  peer_pidfds_.reset(new std::atomic<int>[nodes_]);
  for (int d = 0; d < nodes_; ++d) peer_pidfds_[d].store(-1, std::memory_order_relaxed);
  out_.reset(new Outbound[nodes_]);
  in_.reset(new Inbound[nodes_]);
  uint8_t *own = map_file(rank_, ctl_off, ctl_bytes, "control area");
  self_ = reinterpret_cast<NodeCtl *>(own);
  for (int s = 0; s < nodes_; ++s) {
    uint8_t *r = own + kPage + (uint64_t)s * slot;
    in_[s].ring = {reinterpret_cast<RingCtl *>(r), r + kPage, cap_};
    in_[s].head = in_[s].ring.ctl->head.load(std::memory_order_acquire);
  }
  for (int d = 0; d < nodes_; ++d) {
    uint8_t *r;
    if (d == rank_) {
      ctl_[d] = self_;
      r = own + kPage + (uint64_t)rank_ * slot;
    } else {
      ctl_[d] = reinterpret_cast<NodeCtl *>(map_file(d, ctl_off, kPage, "control page"));
      r = map_file(d, ctl_off + kPage + (uint64_t)rank_ * slot, slot, "message ring");
    }
    Outbound &o = out_[d];
    o.ring = {reinterpret_cast<RingCtl *>(r), r + kPage, cap_};
    o.tail = o.ring.ctl->tail.load(std::memory_order_acquire);
    o.head_cache = o.ring.ctl->head.load(std::memory_order_acquire);
  }
  segs_.reset(new SegInfo[kMaxSegments]);
}

ShmFabric::~ShmFabric() {
  stop();
  for (int d = 0; peer_pidfds_ && d < nodes_; ++d)
    if (int fd = peer_pidfds_[d].load(std::memory_order_relaxed); fd >= 0) close(fd);
  for (const Mapping &m : maps_) munmap(m.addr, m.len);
}

uint8_t *ShmFabric::map_file(int node, uint64_t off, size_t len, const char *what) {
  void *p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fds_[node], (off_t)off);
  if (p == MAP_FAILED)
    fatal("shm fabric: cannot map the %s of node %d (%zu bytes at offset %llu of its memory file): %s", what,
          node, len, (unsigned long long)off, strerror(errno));
  maps_.push_back({p, len});
  return static_cast<uint8_t *>(p);
}

// ---- memory ----------------------------------------------------------------

Segment ShmFabric::register_segment(size_t bytes) {
  std::lock_guard<std::mutex> g(seg_mu_);
  uint32_t id = nsegs_.load(std::memory_order_relaxed);
  if (id >= kMaxSegments) fatal("shm fabric: more than %u segments registered", kMaxSegments);
  uint64_t off = align_up(next_seg_off_, kSegmentAlign);
  if (bytes > kNodeFileBytes || off + align_up(std::max<uint64_t>(bytes, 1), kPage) > kNodeFileBytes)
    fatal("shm fabric: cannot register a segment of %zu bytes: the node memory file has %llu bytes left", bytes,
          (unsigned long long)(kNodeFileBytes - std::min(off, kNodeFileBytes)));
  SegInfo &s = segs_[id];
  s.bytes = bytes;
  s.map_len = (size_t)align_up(std::max<uint64_t>(bytes, 1), kPage);
  s.fd_offset = off;
  s.base.reset(new uint8_t *[nodes_]);
  for (int n = 0; n < nodes_; ++n) s.base[n] = map_file(n, off, s.map_len, "segment");
  next_seg_off_ = off + s.map_len;
  nsegs_.store(id + 1, std::memory_order_release);
  Segment seg;
  seg.id = id;
  seg.base = s.base[rank_];
  seg.bytes = bytes;
  seg.fd = fds_[rank_];
  seg.fd_offset = off;
  return seg;
}

bool ShmFabric::peer_segment(NodeId node, SegmentId seg, Segment *out) {
  check_node("peer_segment", node);
  if (seg >= nsegs_.load(std::memory_order_acquire)) fatal("fabric peer_segment: segment %u is not registered", seg);
  const SegInfo &s = segs_[seg];
  out->id = seg;
  out->base = s.base[node];
  out->bytes = s.bytes;
  out->fd = fds_[node];
  out->fd_offset = s.fd_offset;
  return true;
}

// ---- messages: sending -----------------------------------------------------
//
// A sender publishes the tail, then rings the receiver's doorbell
// (doorbell.hpp says why no wake-up is lost).

void ShmFabric::ring_doorbell(NodeId node) { ctl_[node]->doorbell.ring(); }

void ShmFabric::sendv(NodeId dst, MsgType type, const iovec *iov, int iovcnt) {
  HoldOffMessageSignal holding_ring_locks;
  check_node("send", dst);
  if (type >= kMaxMsgTypes) fatal("fabric send: message type %u is not below %u", (unsigned)type, (unsigned)kMaxMsgTypes);
  if (iovcnt < 0 || (iovcnt > 0 && !iov)) fatal("fabric send: bad scatter list (%d entries)", iovcnt);
  size_t total = 0;
  for (int i = 0; i < iovcnt; ++i) total += iov[i].iov_len;

  Outbound &o = out_[dst];
  lock_ring(o);
  size_t left = total;
  int vi = 0;
  size_t voff = 0;
  do {
    size_t flen = std::min(left, frag_max_);
    uint64_t need = shm::record_bytes(flen);
    if (cap_ - (o.tail - o.head_cache) < need) wait_for_space(o, dst, need);
    FragHeader h{(uint32_t)flen, type, (uint16_t)(left > flen ? shm::kFragMore : 0)};
    o.ring.copy_in(o.tail, &h, sizeof h);
    uint64_t pos = o.tail + sizeof h;
    for (size_t rem = flen; rem;) {
      while (voff == iov[vi].iov_len) ++vi, voff = 0;
      size_t n = std::min(rem, iov[vi].iov_len - voff);
      o.ring.copy_in(pos, static_cast<const uint8_t *>(iov[vi].iov_base) + voff, n);
      pos += n, rem -= n, voff += n;
    }
    o.tail += need;
    o.ring.ctl->tail.store(o.tail, std::memory_order_seq_cst);
    ring_doorbell(dst);
    signal_arrival(dst);
    left -= flen;
  } while (left > 0);
  trace::sent(dst, type, total);  // under the ring's lock: in the ring's order
  o.lock.unlock();
  add(stats().messages_sent);
  add(stats().message_bytes, total);
}

// A handler holds dispatch_, and the thread holding this ring may be waiting
// for the destination, which may be waiting for this node: keep this node's
// rings moving until the ring is free.
void ShmFabric::lock_ring(Outbound &o) {
  if (!t_in_handler) {
    o.lock.lock();
    return;
  }
  for (int i = 0; !o.lock.try_lock(); ++i) {
    if (drain_to_backlog()) continue;
    if (i < kSendSpin) {
      cpu_relax();
    } else {
      timespec ts{0, 50000};
      nanosleep(&ts, nullptr);
    }
  }
}

// The ring is full.  Waiting must not deadlock two nodes that send to each
// other, so a thread that may consume this node's rings empties them into the
// backlog meanwhile.  It does not run handlers there: it holds the ring lock
// of `dst`, and a handler sending to `dst` would deadlock on it.
void ShmFabric::wait_for_space(Outbound &o, NodeId dst, uint64_t need) {
  RingCtl *c = o.ring.ctl;
  auto fits = [&] {
    o.head_cache = c->head.load(std::memory_order_seq_cst);
    return cap_ - (o.tail - o.head_cache) >= need;
  };
  if (fits()) return;
  // Where a handler thread consumes, others may only while it is not running.
  const bool drain =
      t_in_handler || waiters_deliver(mode_) || !delivering_.load(std::memory_order_acquire);
  uint64_t last_head = o.head_cache, since = now_ns();
  for (int i = 0;; ++i) {
    if (drain && drain_while_sending()) {
      if (fits()) return;
      continue;
    }
    if (i < kSendSpin) {
      cpu_relax();
    } else if (i < kSendSpin + kSendYields) {
      sched_yield();
    } else {
      uint32_t seen = c->space.load(std::memory_order_seq_cst);
      c->space_waiters.fetch_add(1, std::memory_order_seq_cst);
      // Short sleeps while draining: our own rings can fill without waking this futex.
      if (!fits()) futex_wait(&c->space, seen, drain ? 1000000 : 20000000);
      c->space_waiters.fetch_sub(1, std::memory_order_seq_cst);
    }
    if (fits()) return;
    if (i >= kSendSpin) {
      uint64_t now = now_ns();
      if (o.head_cache != last_head) {
        last_head = o.head_cache;
        since = now;
      } else if (now - since > kFullRingLimitNs) {
        fatal("message ring to node %d has been full for 30 s; node %d is not taking messages", dst, dst);
      }
    }
  }
}

bool ShmFabric::drain_while_sending() {
  if (t_in_handler) return drain_to_backlog() > 0;  // this thread holds dispatch_
  if (!dispatch_.try_lock()) return false;
  size_t n = drain_to_backlog();
  dispatch_.unlock();
  // A waiter that found dispatch_ taken sleeps until the doorbell rings: ring
  // it if something is left to deliver (the backlog, or a late arrival).
  if (n || has_pending()) ring_doorbell(rank_);
  return n > 0;
}

// ---- messages: receiving ---------------------------------------------------

bool ShmFabric::has_pending() const {
  if (backlog_size_.load(std::memory_order_seq_cst)) return true;
  for (int s = 0; s < nodes_; ++s) {
    const RingCtl *c = in_[s].ring.ctl;
    if (c->tail.load(std::memory_order_seq_cst) != c->head.load(std::memory_order_relaxed)) return true;
  }
  return false;
}

// Consumes fragments from `src` until a message is complete in in_[src].buf
// (returns true) or the ring is empty.  Under dispatch_.
bool ShmFabric::read_message(int src, size_t *work) {
  Inbound &in = in_[src];
  RingCtl *c = in.ring.ctl;
  const uint64_t tail = c->tail.load(std::memory_order_acquire);
  uint64_t h = in.head;
  bool complete = false;
  while (h != tail) {
    FragHeader fh;
    in.ring.copy_out(h, &fh, sizeof fh);
    if (fh.len > frag_max_ || fh.type >= kMaxMsgTypes || tail - h < shm::record_bytes(fh.len) ||
        (in.partial && fh.type != in.type))
      fatal("shm fabric: corrupt message ring from node %d (fragment of %u bytes, type %u)", src, fh.len,
            (unsigned)fh.type);
    if (!in.partial) {
      in.buf.clear();
      in.type = fh.type;
      in.partial = true;
    }
    in.ring.pieces(h + sizeof fh, fh.len, [&](const uint8_t *p, size_t n) { in.buf.insert(in.buf.end(), p, p + n); });
    h += shm::record_bytes(fh.len);
    ++*work;
    if (!(fh.flags & shm::kFragMore)) {
      in.partial = false;
      complete = true;
      break;
    }
  }
  if (h != in.head) {
    in.head = h;
    c->head.store(h, std::memory_order_seq_cst);
    if (c->space_waiters.load(std::memory_order_seq_cst) > 0) {
      c->space.fetch_add(1, std::memory_order_seq_cst);
      futex_wake(&c->space);
    }
  }
  return complete;
}

void ShmFabric::deliver(NodeId src, MsgType type, const void *data, size_t len) {
  const Handler &h = handlers_[type];
  if (!h) fatal("shm fabric: message of type %u from node %d has no handler", (unsigned)type, src);
  uint64_t t0 = now_ns();
  {
    InHandler mark;
    h(Message{src, type, len ? data : kEmpty, len});
  }
  uint64_t t1 = now_ns(), dt = t1 - t0;
  add(stats().handler_ns, dt);
  add(stats().handler_ns_by_type[type], dt);
  trace::handled(src, type, len, t0, t1);
}

// One round over the backlog and every inbound ring; returns the work done
// (fragments consumed plus messages delivered).  Under dispatch_.
size_t ShmFabric::dispatch_pass() {
  size_t work = 0;
  // The backlog is older than anything still in the rings: it goes first.
  while (!backlog_.empty()) {
    Pending p = std::move(backlog_.front());
    backlog_.pop_front();
    backlog_size_.fetch_sub(1, std::memory_order_seq_cst);
    deliver(p.src, p.type, p.data.data(), p.data.size());
    ++work;
  }
  for (int k = 0; k < nodes_; ++k) {
    int s = (next_src_ + k) % nodes_;
    Inbound &in = in_[s];
    for (int m = 0; m < kPerSourceBatch && backlog_.empty(); ++m) {
      if (!read_message(s, &work)) break;
      // The handler may refill the source's buffer (by draining while it sends),
      // so it gets the buffer to itself and returns it only if still unused.
      std::vector<uint8_t> msg = std::move(in.buf);
      in.buf = std::vector<uint8_t>();
      deliver(s, in.type, msg.data(), msg.size());
      ++work;
      if (!in.partial && in.buf.capacity() == 0) in.buf = std::move(msg);
    }
  }
  next_src_ = (next_src_ + 1) % nodes_;
  return work;
}

size_t ShmFabric::drain_to_backlog() {
  size_t work = 0;
  for (int s = 0; s < nodes_; ++s) {
    Inbound &in = in_[s];
    while (read_message(s, &work)) {
      backlog_.push_back(Pending{s, in.type, std::move(in.buf)});
      in.buf = std::vector<uint8_t>();
      backlog_size_.fetch_add(1, std::memory_order_seq_cst);
    }
  }
  return work;
}

// Wakes the threads in wait() so that they re-evaluate their conditions (in
// spin mode they look without being woken).
void ShmFabric::announce() {
  event_.fetch_add(1, std::memory_order_seq_cst);
  if (event_waiters_.load(std::memory_order_seq_cst) > 0) futex_wake(&event_);
  if (waiters_deliver(mode_)) ring_doorbell(rank_);
}

// Poll and signal modes: deliver what has arrived if no other thread is doing it.
// Returns whether any work was done; *busy tells that another thread held
// dispatch_.  After releasing dispatch_ the rings are checked again: a waiter
// that found the lock taken went to sleep counting on the holder to see its
// messages.
bool ShmFabric::progress(bool *busy) {
  *busy = false;
  if (!delivering_.load(std::memory_order_acquire)) return false;
  bool any = false;
  for (;;) {
    if (!dispatch_.try_lock()) {
      *busy = true;
      return any;
    }
    size_t n = dispatch_pass();
    dispatch_.unlock();
    if (n) {
      any = true;
      announce();
    } else if (!has_pending()) {
      return any;
    }
  }
}

// A handler calling it would nest handlers: ignored there, as in interrupt mode.
void ShmFabric::poll() {
  if (!waiters_deliver(mode_) || t_in_handler) return;
  HoldOffMessageSignal serving;
  bool busy = false;
  progress(&busy);
}

void ShmFabric::handler_loop() {
  // Asynchronous signals are the application's business, not this thread's.
  sigset_t all;
  sigfillset(&all);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) sigdelset(&all, sig);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  int idle = 0;
  while (!stopping_.load(std::memory_order_seq_cst)) {
    dispatch_.lock();
    size_t n = dispatch_pass();
    dispatch_.unlock();
    if (n) {
      announce();
      idle = 0;
      continue;
    }
    if (mode_ == HandlerMode::spin) {
      spin_pause(&idle);
      continue;
    }
    bool ready = false;
    for (int i = 0; i < spin_ && !ready; ++i) {
      cpu_relax();
      ready = has_pending() || stopping_.load(std::memory_order_relaxed);
    }
    if (ready) continue;
    uint32_t seen = self_->doorbell.peek();
    self_->doorbell.sleep(seen, [&] { return has_pending() || stopping_.load(std::memory_order_seq_cst); });
  }
}

// Spin mode: an empty poll pauses, and yields the CPU now and then so that
// a thread of this node sharing the CPU still runs (spinning is there for
// reference: it burns the core it runs on).
void ShmFabric::spin_pause(int *idle) {
  if (++*idle % kSpinYieldEvery == 0)
    sched_yield();
  else
    cpu_relax();
}

// Spin mode: the handler thread announces nothing a waiter would sleep for.
void ShmFabric::spin_wait(const std::function<bool()> &done) {
  for (int idle = 0; !done();) spin_pause(&idle);
}

void ShmFabric::set_handler(MsgType type, Handler h) {
  if (type >= kMaxMsgTypes)
    fatal("fabric set_handler: message type %u is not below %u", (unsigned)type, (unsigned)kMaxMsgTypes);
  if (delivering_.load()) fatal("fabric set_handler: handler of type %u set after start()", (unsigned)type);
  handlers_[type] = std::move(h);
}

void ShmFabric::start() {
  if (delivering_.exchange(true)) return;
  stopped_ = false;
  stopping_.store(false);
  trace::operations_recorded();  // shm_one_sided.cpp counts every operation on another node
  if (handler_thread_delivers(mode_)) handler_thread_ = std::thread([this] {
    trace::name_thread("handler");
    handler_loop();
  });
  if (mode_ == HandlerMode::signal) start_signal_delivery();
}

void ShmFabric::stop() {
  // Once per start: a fork-join master's old fabric is destroyed in the
  // background while its next one may deliver by signal.
  if (stopped_) return;
  stopped_ = true;
  if (mode_ == HandlerMode::signal) stop_signal_delivery();
  if (handler_thread_.joinable()) {
    if (std::this_thread::get_id() == handler_thread_.get_id())
      fatal("internal error: fabric stop() called from a message handler");
    stopping_.store(true, std::memory_order_seq_cst);
    ring_doorbell(rank_);
    handler_thread_.join();
  }
  delivering_.store(false);
}

void ShmFabric::wait(const std::function<bool()> &done) {
  if (t_in_handler) fatal("internal error: fabric wait() called from a message handler");
  HoldOffMessageSignal serving;
  if (mode_ == HandlerMode::spin) {
    spin_wait(done);
    return;
  }
  for (;;) {
    const bool poll = waiters_deliver(mode_) && delivering_.load(std::memory_order_acquire);
    // Both words are read before done(): a change after that ends the sleep at once.
    uint32_t bell = self_->doorbell.peek();
    uint32_t ev = event_.load(std::memory_order_seq_cst);
    if (done()) return;
    bool busy = false;
    if (poll && progress(&busy)) continue;
    // While another thread delivers, pending messages are its business.
    bool again = false;
    for (int i = 0; i < spin_ && !again; ++i) {
      cpu_relax();
      if (done()) return;
      again = poll ? !busy && has_pending() : event_.load(std::memory_order_relaxed) != ev;
    }
    if (again) continue;
    if (waiters_deliver(mode_)) {
      self_->doorbell.sleep(bell, [&] { return poll && has_pending() && progress(&busy); });
    } else {
      // Sleeps at once rather than yielding the CPU until the answer comes:
      // a yield saved the waiter's wake-up (async page fetch 74 -> 39 us at
      // 2 nodes on an idle host) but held a CPU a queued handler needed as
      // soon as anything else ran (busy_home at 2 nodes beside one CPU-bound
      // process, medians 0.02 -> 0.16 s; at 3 nodes on 2 CPUs it failed).
      event_waiters_.fetch_add(1, std::memory_order_seq_cst);
      futex_wait(&event_, ev);
      event_waiters_.fetch_sub(1, std::memory_order_seq_cst);
    }
  }
}

void ShmFabric::notify() {
  event_.fetch_add(1, std::memory_order_seq_cst);
  if (event_waiters_.load(std::memory_order_seq_cst) > 0) futex_wake(&event_);
  if (waiters_deliver(mode_)) ring_doorbell(rank_);
}

bool ShmFabric::in_handler() const { return t_in_handler; }

// ---- job-level -------------------------------------------------------------

// Generation-counting barrier on node 0's control page; needs no handler.
// In poll mode a node that waits here still answers its peers: a peer may
// be finishing the protocol's last barrier with a request this node must
// answer (a diff's acknowledgement), and this node answers nothing unless
// it polls.  So the last node to arrive rings every doorbell, and a polling
// waiter sleeps on its own doorbell, delivering what arrives.
void ShmFabric::barrier() {
  HoldOffMessageSignal serving;
  NodeCtl *z = ctl_[0];
  uint32_t gen = z->barrier_gen.load(std::memory_order_seq_cst);
  if (z->barrier_count.fetch_add(1, std::memory_order_seq_cst) + 1 == (uint32_t)nodes_) {
    // Reset before the release: a node leaving sees count 0 when it arrives next.
    z->barrier_count.store(0, std::memory_order_seq_cst);
    z->barrier_gen.fetch_add(1, std::memory_order_seq_cst);
    futex_wake(&z->barrier_gen);
    if (waiters_deliver(mode_))
      for (int n = 0; n < nodes_; ++n) ring_doorbell(n);
    return;
  }
  auto released = [&] { return z->barrier_gen.load(std::memory_order_acquire) != gen; };
  if (waiters_deliver(mode_) && !t_in_handler && delivering_.load(std::memory_order_acquire)) {
    wait(released);
    return;
  }
  for (int i = 0; i < spin_; ++i) {
    if (released()) return;
    cpu_relax();
  }
  while (!released()) futex_wait(&z->barrier_gen, gen);
}

}  // namespace rdsm::fabric
