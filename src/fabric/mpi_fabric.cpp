// The mpi fabric's messages, delivery, progress and job-level calls; the
// one-sided operations are in mpi_one_sided.cpp.
#include "fabric/mpi_fabric.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "common/clock.hpp"
#include "common/error.hpp"
#include "fabric/mpi_environment.hpp"
#include "fabric/rdma_transport.hpp"
#include "stats/stats.hpp"
#include "stats/trace.hpp"

namespace rdsm::fabric {

using mpi::check;

namespace {
constexpr int kBatch = 32;          // messages received per pass before others get the lock
constexpr int kIdleSpins = 64;      // empty polls in a row before sleeping (tens of microseconds)
constexpr uint64_t kMinSleepNs = 2000;
constexpr uint64_t kMaxSleepNs = 20000;  // bounds what a request to an idle node waits for progress
constexpr double kSendDrainSeconds = 2;  // how long the end waits for unreceived sends
constexpr int kSpinYieldEvery = 64;      // spin mode: empty polls between yields of the CPU

thread_local bool t_in_handler = false;
const uint8_t kEmpty[8] = {};

struct InHandler {
  InHandler() { t_in_handler = true; }
  ~InHandler() { t_in_handler = false; }
};

// The fabric's threads: asynchronous signals are the application's, and
// short sleeps must not be stretched by the default 50 us timer slack.
void fabric_thread_setup() {
  sigset_t all;
  sigfillset(&all);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) sigdelset(&all, sig);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
}
}  // namespace

MpiFabric::MpiFabric(const Options &opt) : mode_(opt.handler) {
  if (mode_ == HandlerMode::signal)
    fatal("--handler signal is not supported by the mpi fabric: a message from another host cannot signal the "
          "receiving process, and MPI may not be called from a signal handler; use --handler interrupt, poll or "
          "spin, or --fabric shm");
  mpi::start_mpi();
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &nodes_), "MPI_Comm_size");
  if (nodes_ > kMaxNodes) fatal("mpi fabric: %d ranks, more than the %d nodes rdsm supports", nodes_, kMaxNodes);
  check(MPI_Comm_dup(MPI_COMM_WORLD, &msg_comm_), "MPI_Comm_dup");
  check(MPI_Comm_dup(MPI_COMM_WORLD, &barrier_comm_), "MPI_Comm_dup");
  check(MPI_Comm_dup(MPI_COMM_WORLD, &quiet_comm_), "MPI_Comm_dup");
  wins_.reset(new Win[kMaxSegments]);
  join_host(opt);
  // Between hosts one-sided operations go through MPI; they are done in
  // hardware only where every host has an RDMA transport (agreed, so that
  // every rank resolves the default preset alike).
  std::string no_rdma;
  software_one_sided_ = host_ranks_.size() < (size_t)nodes_ && !agree(rdma_transport_here(&no_rdma));
  // Made by every rank (it is collective); it watches where a timeout is set.
  watchdog_ = std::make_unique<MpiWatchdog>(opt.hang_seconds);
}

MpiFabric::~MpiFabric() {
  stop();
  reap_sends(true);
  // Collective, like registration: every node frees the same windows in
  // the same order.
  for (uint32_t i = nwins_.load(); i-- > 0;) {
    Win &w = wins_[i];
    MPI_Win_unlock_all(w.win);
    MPI_Win_free(&w.win);
    munmap(w.base, w.map_len);
    close(w.fd);
  }
  unmap_host();
  watchdog_.reset();
  for (MPI_Comm *c : {&msg_comm_, &barrier_comm_, &quiet_comm_, &host_comm_})
    if (*c != MPI_COMM_NULL) MPI_Comm_free(c);
  mpi::end_mpi();
}

void MpiFabric::check_node(const char *op, NodeId node) const {
  if (node < 0 || node >= nodes_) fatal("fabric %s: node %d is not in the job (nodes 0..%d)", op, node, nodes_ - 1);
}

// ---- messages: sending -----------------------------------------------------

void MpiFabric::sendv(NodeId dst, MsgType type, const iovec *iov, int iovcnt) {
  check_node("send", dst);
  if (type >= kMaxMsgTypes) fatal("fabric send: message type %u is not below %u", (unsigned)type, (unsigned)kMaxMsgTypes);
  if (iovcnt < 0 || (iovcnt > 0 && !iov)) fatal("fabric send: bad scatter list (%d entries)", iovcnt);
  size_t total = 0;
  for (int i = 0; i < iovcnt; ++i) total += iov[i].iov_len;
  if (total > (size_t)INT32_MAX) fatal("fabric send: a message of %zu bytes is larger than 2 GiB", total);
  auto out = std::make_unique<Outgoing>();
  out->data.resize(total);
  size_t pos = 0;
  for (int i = 0; i < iovcnt; ++i) {
    if (iov[i].iov_len) memcpy(out->data.data() + pos, iov[i].iov_base, iov[i].iov_len);
    pos += iov[i].iov_len;
  }
  {
    // Under the lock so that sends of one thread after another's (ordered by
    // the program) also enter MPI in that order.
    std::lock_guard<std::mutex> g(send_mu_);
    check(MPI_Isend(total ? out->data.data() : kEmpty, (int)total, MPI_BYTE, dst, (int)type, msg_comm_, &out->req),
          "MPI_Isend");
    trace::sent(dst, type, total);  // in the order MPI keeps
    sends_.push_back(std::move(out));
  }
  // A receiver of this host sleeping on its doorbell looks at once.
  if (Doorbell *b = bells_[(size_t)dst]) b->ring();
  add(stats().messages_sent);
  add(stats().message_bytes, total);
}

// Frees the buffers of completed sends; with `all`, waits (a bounded time)
// for every send to complete first.
void MpiFabric::reap_sends(bool all) {
  std::lock_guard<std::mutex> g(send_mu_);
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(kSendDrainSeconds);
  while (!sends_.empty()) {
    size_t kept = 0;
    for (auto &s : sends_) {
      int done = 0;
      check(MPI_Test(&s->req, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (!done) sends_[kept++] = std::move(s);
    }
    sends_.resize(kept);
    if (!all || sends_.empty()) return;
    if (std::chrono::steady_clock::now() > until) {
      warn("mpi fabric: %zu messages sent by node %d were never received", sends_.size(), rank_);
      for (auto &s : sends_) MPI_Request_free(&s->req);
      sends_.clear();
      return;
    }
    sched_yield();
  }
}

// ---- messages: receiving ---------------------------------------------------

void MpiFabric::deliver(NodeId src, MsgType type, const void *data, size_t len) {
  if (type >= kMaxMsgTypes || !handlers_[type])
    fatal("mpi fabric: message of type %u from node %d has no handler", (unsigned)type, src);
  uint64_t t0 = now_ns();
  {
    InHandler mark;
    handlers_[type](Message{src, type, len ? data : kEmpty, len});
  }
  uint64_t t1 = now_ns(), dt = t1 - t0;
  add(stats().handler_ns, dt);
  add(stats().handler_ns_by_type[type], dt);
  trace::handled(src, type, len, t0, t1);
}

// Receives and delivers what has arrived, up to a batch.  Under dispatch_.
// A matched probe (MPI_Improbe / MPI_Mrecv) so that no other thread's probe
// can take the message between probe and receive.
size_t MpiFabric::receive_pass() {
  reap_sends(false);
  size_t work = 0;
  std::vector<uint8_t> buf;
  for (int i = 0; i < kBatch; ++i) {
    int flag = 0;
    MPI_Message m;
    MPI_Status st;
    check(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, msg_comm_, &flag, &m, &st), "MPI_Improbe");
    if (!flag) break;
    int count = 0;
    check(MPI_Get_count(&st, MPI_BYTE, &count), "MPI_Get_count");
    buf.resize((size_t)count);
    check(MPI_Mrecv(count ? buf.data() : nullptr, count, MPI_BYTE, &m, MPI_STATUS_IGNORE), "MPI_Mrecv");
    deliver(st.MPI_SOURCE, (MsgType)st.MPI_TAG, buf.data(), (size_t)count);
    ++work;
  }
  return work;
}

size_t MpiFabric::try_dispatch() {
  if (!dispatch_.try_lock()) return 0;
  size_t n = receive_pass();
  dispatch_.unlock();
  if (n) announce();
  return n;
}

// Wakes the threads in wait(): in poll mode they sleep on the doorbell, as
// they are the ones who deliver.
void MpiFabric::announce() {
  event_.ring();
  if (waiters_deliver(mode_)) bell_->ring();
}

// An empty poll: poll again at once for a while (a reply is usually close
// behind a request), then sleep for growing intervals up to kMaxSleepNs,
// waking early when `bell` rings (a rank of this host that sends rings
// it).  Sleeping rather than yielding matters when the node computes on the
// same CPU: the scheduler lets a thread that wakes from a sleep preempt the
// compute thread, while a yielding thread waits for the end of the compute
// thread's time slice (measured: a get aimed at a computing node took
// 7-10 ms with a yielding poller).
void MpiFabric::idle_backoff(int *idle, Doorbell &bell, uint32_t seen) {
  int i = (*idle)++;
  if (i < kIdleSpins) return;
  int doublings = std::min(i - kIdleSpins, 16);
  uint64_t ns = std::min(kMinSleepNs << doublings, kMaxSleepNs);
  bell.sleep(seen, [this] { return stopping_.load(std::memory_order_seq_cst); }, ns);
}

void MpiFabric::handler_loop() {
  fabric_thread_setup();
  int idle = 0;
  while (!stopping_.load(std::memory_order_seq_cst)) {
    uint32_t seen = bell_->peek();
    dispatch_.lock();
    size_t n = receive_pass();
    dispatch_.unlock();
    if (n) {
      announce();
      idle = 0;
      continue;
    }
    if (mode_ == HandlerMode::spin)
      spin_pause(&idle);
    else
      idle_backoff(&idle, *bell_, seen);
  }
}

// Spin mode: polls again at once, yielding the CPU now and then so that a
// thread sharing it still runs (spinning is there for reference).
void MpiFabric::spin_pause(int *idle) {
  if (++*idle % kSpinYieldEvery == 0)
    sched_yield();
  else
    cpu_relax();
}

// Poll mode: messages wait for the node's threads, but one-sided operations
// aimed at this node must not wait for them; probing a communicator that
// never carries anything runs MPI's progress engine and nothing else.
void MpiFabric::progress_loop() {
  fabric_thread_setup();
  int idle = 0;
  while (!stopping_.load(std::memory_order_seq_cst)) {
    uint32_t seen = event_.peek();
    int flag = 0;
    check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, quiet_comm_, &flag, MPI_STATUS_IGNORE), "MPI_Iprobe");
    idle_backoff(&idle, event_, seen);
  }
}

void MpiFabric::set_handler(MsgType type, Handler h) {
  if (type >= kMaxMsgTypes)
    fatal("fabric set_handler: message type %u is not below %u", (unsigned)type, (unsigned)kMaxMsgTypes);
  if (delivering_.load()) fatal("fabric set_handler: handler of type %u set after start()", (unsigned)type);
  handlers_[type] = std::move(h);
}

void MpiFabric::start() {
  if (delivering_.exchange(true)) return;
  stopping_.store(false);
  watchdog_->start();
  if (handler_thread_delivers(mode_))
    thread_ = std::thread([this] {
      trace::name_thread("handler");
      handler_loop();
    });
  else
    thread_ = std::thread([this] {
      trace::name_thread("progress");
      progress_loop();
    });
}

void MpiFabric::stop() {
  watchdog_->stop();
  if (thread_.joinable()) {
    if (std::this_thread::get_id() == thread_.get_id())
      fatal("internal error: fabric stop() called from a message handler");
    stopping_.store(true, std::memory_order_seq_cst);
    event_.ring();
    bell_->ring();
    thread_.join();
  }
  delivering_.store(false);
}

void MpiFabric::wait(const std::function<bool()> &done) {
  if (t_in_handler) fatal("internal error: fabric wait() called from a message handler");
  int idle = 0;
  for (;;) {
    uint32_t ev = event_.peek(), bell = bell_->peek();
    if (done()) return;
    if (waiters_deliver(mode_)) {
      if (delivering_.load(std::memory_order_acquire) && try_dispatch()) {
        idle = 0;
        continue;
      }
      idle_backoff(&idle, *bell_, bell);
    } else if (mode_ == HandlerMode::spin) {
      spin_pause(&idle);  // the handler thread announces nothing a waiter would sleep for
    } else {
      // The handler thread announces every delivery.
      event_.sleep(ev, [] { return false; });
    }
  }
}

void MpiFabric::notify() { announce(); }

void MpiFabric::poll() {
  if (!waiters_deliver(mode_) || t_in_handler || !delivering_.load(std::memory_order_acquire)) return;
  try_dispatch();
}

bool MpiFabric::in_handler() const { return t_in_handler; }

// ---- job-level -------------------------------------------------------------

// In poll mode a rank waiting here still answers its peers, which may be
// finishing the protocol's last barrier with a request for it (see
// ShmFabric::barrier): the barrier is started and tested between passes.
void MpiFabric::barrier() {
  if (!waiters_deliver(mode_) || t_in_handler || !delivering_.load(std::memory_order_acquire)) {
    check(MPI_Barrier(barrier_comm_), "MPI_Barrier");
    return;
  }
  MPI_Request req;
  check(MPI_Ibarrier(barrier_comm_, &req), "MPI_Ibarrier");
  int idle = 0;
  for (;;) {
    uint32_t bell = bell_->peek();
    int done = 0;
    check(MPI_Test(&req, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) return;
    if (try_dispatch()) {
      idle = 0;
      continue;
    }
    idle_backoff(&idle, *bell_, bell);
  }
}

}  // namespace rdsm::fabric
