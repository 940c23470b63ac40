#include "memory/fault_dispatch.hpp"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <thread>
#include <ucontext.h>

#include "common/clock.hpp"
#include "common/error.hpp"
#include "common/futex.hpp"
#include "common/message_signal.hpp"
#include "stats/stats.hpp"
#include "stats/trace.hpp"

namespace rdsm {
namespace {

// Everything the signal handler reads is set before the handler is
// installed and cleared after it is removed.
struct Dispatch {
  SharedRegion *region = nullptr;
  FaultService service;
  FaultFastPath fast;
  int spin = 0;
  struct sigaction previous_segv {}, previous_bus {};
  std::thread thread;
  std::atomic<bool> stopping{false};
  // One fault in service at a time; `slot` serialises faulting threads.
  FutexLock slot;
  std::atomic<uint32_t> request_seq{0};
  std::atomic<uint32_t> done_seq{0};
  size_t page = 0;
  bool write = false;
  // With a retried callback: the faulting thread says when it leaves the
  // signal handler (the sequence number of its fault), waking the service
  // thread if it sleeps on the word.
  FaultRetried retried;
  bool wants_retried = false;
  std::atomic<uint32_t> retried_seq{0};
  std::atomic<uint32_t> retried_waiters{0};
};
Dispatch *g_dispatch = nullptr;
thread_local bool t_is_service_thread = false;

bool fault_was_write(void *uctx) {
#if defined(__x86_64__)
  auto *uc = static_cast<ucontext_t *>(uctx);
  return (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;  // page-fault error code bit 1: write access
#elif defined(__aarch64__)
  // ESR is in the extended context; treat as read, a write retries and faults again as write.
  (void)uctx;
  return false;
#else
#error "rdsm: fault classification is implemented for x86_64 and aarch64"
#endif
}

void pass_on(int sig, siginfo_t *info, void *uctx) {
  const struct sigaction &prev = sig == SIGBUS ? g_dispatch->previous_bus : g_dispatch->previous_segv;
  if ((prev.sa_flags & SA_SIGINFO) && prev.sa_sigaction) {
    prev.sa_sigaction(sig, info, uctx);
    return;
  }
  if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN && prev.sa_handler != nullptr) {
    prev.sa_handler(sig);
    return;
  }
  // Default action: return and let the access fault again, now fatal.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigaction(sig, &dfl, nullptr);
}

// A protection fault of the region: the backend's signal, inside the
// region, and for SIGBUS one the backend can have raised (userfaultfd's are
// BUS_ADRERR; a memory error or a truncated file is someone else's).
bool ours(const Dispatch *d, int sig, const siginfo_t *info) {
  const SharedRegion &r = *d->region;
  if (sig != r.fault_signal() || !r.contains(info->si_addr)) return false;
  return sig != SIGBUS || (info->si_code == BUS_ADRERR && r.expects_faults());
}

void on_fault(int sig, siginfo_t *info, void *uctx) {
  int saved_errno = errno;
  Dispatch *d = g_dispatch;
  if (!d || !ours(d, sig, info)) {
    if (d) pass_on(sig, info, uctx);
    errno = saved_errno;
    return;
  }
  if (t_is_service_thread)
    fatal_signal_safe("internal error: the fault service thread touched the application view of the shared "
                      "region");
  uint64_t t0 = now_ns();
  size_t page = d->region->page_of(info->si_addr);
  bool write = fault_was_write(uctx);
  if (d->region->repair(page, write)) {
    errno = saved_errno;
    return;
  }
  if (d->fast.fn && d->fast.fn(d->fast.ctx, page, write)) {
    add(stats().data_wait_ns, now_ns() - t0);
    errno = saved_errno;
    return;
  }
  d->slot.lock();
  d->page = page;
  d->write = write;
  uint32_t seq = d->request_seq.load(std::memory_order_relaxed) + 1;
  d->request_seq.store(seq, std::memory_order_seq_cst);
  futex_wake(&d->request_seq, 1);
  for (int i = 0; i < d->spin && d->done_seq.load(std::memory_order_acquire) != seq; ++i) cpu_relax();
  for (;;) {
    uint32_t done = d->done_seq.load(std::memory_order_acquire);
    if (done == seq) break;
    futex_wait(&d->done_seq, done);
  }
  d->slot.unlock();
  if (d->wants_retried) {
    d->retried_seq.store(seq, std::memory_order_seq_cst);
    if (d->retried_waiters.load(std::memory_order_seq_cst)) futex_wake(&d->retried_seq);
  }
  add(stats().data_wait_ns, now_ns() - t0);
  errno = saved_errno;
}

// On the service thread: waits until the thread of fault `seq` has left
// the signal handler.  It has been woken already, so this is short.
void wait_retried(Dispatch *d, uint32_t seq) {
  for (int i = 0; i < d->spin && d->retried_seq.load(std::memory_order_acquire) != seq; ++i) cpu_relax();
  for (;;) {
    uint32_t seen = d->retried_seq.load(std::memory_order_seq_cst);
    if (seen == seq) return;
    d->retried_waiters.fetch_add(1, std::memory_order_seq_cst);
    if (d->retried_seq.load(std::memory_order_seq_cst) == seen) futex_wait(&d->retried_seq, seen);
    d->retried_waiters.fetch_sub(1, std::memory_order_seq_cst);
  }
}

void service_loop(Dispatch *d) {
  t_is_service_thread = true;
  trace::name_thread("fault service");
  // The service thread must never take the process's asynchronous signals.
  sigset_t all;
  sigfillset(&all);
  sigdelset(&all, SIGSEGV);
  sigdelset(&all, SIGBUS);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  uint32_t served = 0;
  for (;;) {
    uint32_t req = d->request_seq.load(std::memory_order_acquire);
    if (req == served) {
      if (d->stopping.load(std::memory_order_acquire)) return;
      for (int i = 0; i < d->spin && d->request_seq.load(std::memory_order_acquire) == served; ++i) cpu_relax();
      if (d->request_seq.load(std::memory_order_acquire) == served) futex_wait(&d->request_seq, served);
      continue;
    }
    if (d->stopping.load(std::memory_order_acquire)) return;
    d->service(d->page, d->write);
    served = req;
    d->done_seq.store(req, std::memory_order_release);
    futex_wake(&d->done_seq);
    if (d->wants_retried) {
      wait_retried(d, req);
      d->retried();
    }
  }
}

}  // namespace

void install_fault_dispatch(SharedRegion &region, FaultService service, FaultFastPath fast, int spin,
                            FaultRetried retried) {
  if (g_dispatch) fatal("internal error: fault dispatch installed twice");
  auto *d = new Dispatch;
  d->region = &region;
  d->service = std::move(service);
  d->fast = fast;
  d->spin = spin;
  d->wants_retried = static_cast<bool>(retried);
  d->retried = std::move(retried);
  g_dispatch = d;
  struct sigaction sa {};
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  // Fault handling is inside the runtime: the message signal of signal mode
  // must not serve messages on top of it (common/message_signal.hpp).
  add_message_signal(&sa.sa_mask);
  // Both signals, whichever backend runs: the other one's faults are passed on.
  if (sigaction(SIGSEGV, &sa, &d->previous_segv) != 0 || sigaction(SIGBUS, &sa, &d->previous_bus) != 0)
    fatal("cannot install the fault signal handlers: %s", strerror(errno));
  d->thread = std::thread(service_loop, d);
}

void remove_fault_dispatch() {
  Dispatch *d = g_dispatch;
  if (!d) return;
  sigaction(SIGSEGV, &d->previous_segv, nullptr);
  sigaction(SIGBUS, &d->previous_bus, nullptr);
  d->stopping.store(true, std::memory_order_seq_cst);
  // Changing the word makes a futex_wait that races with this call return.
  d->request_seq.fetch_add(1, std::memory_order_seq_cst);
  futex_wake(&d->request_seq);
  d->thread.join();
  g_dispatch = nullptr;
  delete d;
}

}  // namespace rdsm
