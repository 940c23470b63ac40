#include "common/message_signal.hpp"

#include <atomic>
#include <pthread.h>

namespace rdsm {

namespace {
// Initial-exec: reading them needs no allocation, so the signal's handler may.
__attribute__((tls_model("initial-exec"))) thread_local int t_depth = 0;
__attribute__((tls_model("initial-exec"))) thread_local bool t_masked = false;
__attribute__((tls_model("initial-exec"))) thread_local bool t_leaving = false;
__attribute__((tls_model("initial-exec"))) thread_local bool t_deferred = false;

std::atomic<void (*)(void *)> g_serve{nullptr};
std::atomic<void *> g_serve_ctx{nullptr};

void mask(int how) {
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, message_signal());
  pthread_sigmask(how, &one, nullptr);
}

// Blocks the signal on this thread and remembers that the gate did.
void block_here() {
  mask(SIG_BLOCK);
  t_masked = true;
}

// Unblocks it; a signal pending for the process may be delivered inside the
// call, which leaving_rdsm() lets serve.
void unblock_here() {
  t_leaving = true;
  mask(SIG_UNBLOCK);
  t_leaving = false;
  t_masked = false;
}

// Leaving the outermost scope, holding nothing: serves what a deferred
// signal left behind.  Still counted inside meanwhile, so that a signal
// during the serving defers to the next round rather than nesting.
void serve_deferred() {
  while (t_deferred) {
    t_deferred = false;
    if (auto serve = g_serve.load(std::memory_order_acquire)) serve(g_serve_ctx.load(std::memory_order_acquire));
  }
}
}  // namespace

int message_signal() { return SIGRTMIN + 5; }

void add_message_signal(sigset_t *set) { sigaddset(set, message_signal()); }

void block_message_signal_here() { mask(SIG_BLOCK); }

void open_message_gate(void (*serve)(void *), void *ctx) {
  g_serve_ctx.store(ctx, std::memory_order_release);
  g_serve.store(serve, std::memory_order_release);
  if (t_depth > 0 && !t_masked) block_here();
}

void close_message_gate() {
  g_serve.store(nullptr, std::memory_order_release);
  g_serve_ctx.store(nullptr, std::memory_order_release);
}

bool message_gate_open() { return g_serve.load(std::memory_order_acquire) != nullptr; }

bool inside_rdsm() { return t_depth > 0; }
bool leaving_rdsm() { return t_leaving; }
void note_deferred_message() { t_deferred = true; }

InsideRdsm::InsideRdsm() {
  if (t_depth++ == 0 && message_gate_open()) block_here();
}

InsideRdsm::~InsideRdsm() {
  if (t_depth == 1) serve_deferred();
  if (--t_depth == 0 && t_masked) unblock_here();
}

HoldOffMessageSignal::HoldOffMessageSignal() { ++t_depth; }
HoldOffMessageSignal::~HoldOffMessageSignal() {
  if (t_depth == 1) serve_deferred();
  --t_depth;
}

OutsideRdsm::OutsideRdsm() : depth_(t_depth), masked_(t_masked) {
  t_depth = 0;
  // Unblocked whether or not this thread's gate blocked it: a compute thread
  // the runtime started inherits the mask of its starter, which was inside.
  if (message_gate_open() || t_masked) unblock_here();
}

OutsideRdsm::~OutsideRdsm() {
  // Back in the runtime's code (a compute thread's end, or the call that ran
  // the program's function).
  if (message_gate_open() || masked_) block_here();
  t_depth = depth_;
}

}  // namespace rdsm
