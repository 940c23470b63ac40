#include "fabric/signal_delivery.hpp"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <dlfcn.h>
#include <link.h>
#include <sched.h>
#include <ucontext.h>
#include <unistd.h>

#include "common/error.hpp"
#include "common/message_signal.hpp"

namespace rdsm::fabric {

namespace {
constexpr uint64_t kFirstRetryNs = 10000;
constexpr uint64_t kLastRetryNs = 50000;
constexpr int kMaxCodeRanges = 8;

struct CodeRange {
  uintptr_t lo, hi;
};

// What the handler reads: written before the handler may run, and only
// after remove_signal_delivery has seen no handler running.
struct Delivery {
  SignalServe fabric{};
  CodeRange program[kMaxCodeRanges] = {};
  int ranges = 0;
  timer_t timer{};
  pid_t timer_pid = 0;  // the process that made it: a forked child has no timers
  bool handler_installed = false;
  std::atomic<bool> on{false};
  std::atomic<int> running{0};
  std::atomic<uint64_t> retry_ns{kFirstRetryNs};
};
Delivery g;

uintptr_t interrupted_pc(void *uctx) {
  auto *uc = static_cast<ucontext_t *>(uctx);
#if defined(__x86_64__)
  return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
  return (uintptr_t)uc->uc_mcontext.pc;
#else
#error "rdsm: signal delivery is implemented for x86_64 and aarch64"
#endif
}

bool in_program_code(uintptr_t pc) {
  for (int i = 0; i < g.ranges; ++i)
    if (pc >= g.program[i].lo && pc < g.program[i].hi) return true;
  return false;
}

// Raises the signal again later, each time later while it keeps landing
// where it may not serve.  timer_settime is async-signal-safe.
void retry_later() {
  uint64_t ns = g.retry_ns.load(std::memory_order_relaxed);
  g.retry_ns.store(ns * 2 < kLastRetryNs ? ns * 2 : kLastRetryNs, std::memory_order_relaxed);
  itimerspec when{};
  when.it_value.tv_sec = (time_t)(ns / 1000000000ull);
  when.it_value.tv_nsec = (long)(ns % 1000000000ull);
  timer_settime(g.timer, 0, &when, nullptr);
}

void on_message_signal(int, siginfo_t *, void *uctx) {
  const int saved_errno = errno;
  g.running.fetch_add(1, std::memory_order_seq_cst);
  if (g.on.load(std::memory_order_seq_cst)) {
    if (leaving_rdsm() || (!inside_rdsm() && in_program_code(interrupted_pc(uctx)))) {
      g.fabric.serve(g.fabric.ctx);
      g.retry_ns.store(kFirstRetryNs, std::memory_order_relaxed);
    } else if (inside_rdsm()) {
      note_deferred_message();  // served by this thread's wait or on its way out
    } else if (g.fabric.rearm(g.fabric.ctx)) {
      retry_later();  // in a library: back in the program's code shortly
    }
  }
  g.running.fetch_sub(1, std::memory_order_seq_cst);
  errno = saved_errno;
}

// The executable segments of the program itself (the first object the
// loader lists), and whether the C library is a shared object.
struct Scan {
  bool libc_shared = false;
};
int scan_object(dl_phdr_info *info, size_t, void *arg) {
  Scan *s = static_cast<Scan *>(arg);
  const bool program = !info->dlpi_name || !info->dlpi_name[0];
  if (program && g.ranges == 0) {
    for (int i = 0; i < info->dlpi_phnum && g.ranges < kMaxCodeRanges; ++i) {
      const ElfW(Phdr) &ph = info->dlpi_phdr[i];
      if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
        g.program[g.ranges++] = {info->dlpi_addr + ph.p_vaddr, info->dlpi_addr + ph.p_vaddr + ph.p_memsz};
    }
  } else if (info->dlpi_name && strstr(info->dlpi_name, "/libc.so")) {
    s->libc_shared = true;
  }
  return 0;
}
}  // namespace

void install_signal_delivery(const SignalServe &serve) {
  if (g.on.load()) fatal("internal error: signal delivery installed twice");
  g.ranges = 0;
  Scan scan;
  dl_iterate_phdr(scan_object, &scan);
  if (!scan.libc_shared || g.ranges == 0)
    fatal("--handler signal needs the program linked against the shared C library (its handler must tell the "
          "program's own code from malloc's); link the program dynamically, or use --handler interrupt");
  // An allocator linked into the executable (a static jemalloc or
  // tcmalloc, Clang's sanitizer runtime without -shared-libsan) is the
  // program's code to the handler, which would then serve inside malloc.
  if (void *m = dlsym(RTLD_DEFAULT, "malloc"); m && in_program_code(reinterpret_cast<uintptr_t>(m)))
    fatal("--handler signal needs malloc in a shared library, but the program has its own linked in (a static "
          "allocator, or a sanitizer's runtime linked statically: Clang's -shared-libsan links it shared), so "
          "the handler cannot tell the program's code from malloc's; use --handler interrupt");
  g.fabric = serve;
  g.retry_ns.store(kFirstRetryNs);
  if (g.timer_pid != getpid()) {
    sigevent ev{};
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = message_signal();
    if (timer_create(CLOCK_MONOTONIC, &ev, &g.timer) != 0)
      fatal("--handler signal: cannot create its retry timer: %s (check `ulimit -i`, or use --handler interrupt)",
            strerror(errno));
    g.timer_pid = getpid();
  }
  if (!g.handler_installed) {
    struct sigaction sa {};
    sa.sa_sigaction = on_message_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(message_signal(), &sa, nullptr) != 0)
      fatal("--handler signal: cannot install the handler of its signal: %s", strerror(errno));
    g.handler_installed = true;
  }
  g.on.store(true, std::memory_order_seq_cst);
}

void remove_signal_delivery() {
  if (!g.on.exchange(false, std::memory_order_seq_cst)) return;
  // A handler that saw `on` before it went false finishes first.
  while (g.running.load(std::memory_order_seq_cst) > 0) sched_yield();
  itimerspec off{};
  timer_settime(g.timer, 0, &off, nullptr);
  g.fabric = SignalServe{};
}

}  // namespace rdsm::fabric
