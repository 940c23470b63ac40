// The message signal of `--handler signal`, and the gate that keeps it out
// of the runtime.
//
// In signal mode a message that arrives while a thread of the node computes
// interrupts that thread with the message signal, whose handler serves the
// node's messages there and then (fabric/signal_delivery.hpp).  Handlers
// take the runtime's locks and allocate, so the signal may run them only
// where the interrupted thread holds none of those locks and is inside no
// unsafe function.  The first half of that is this gate:
//   - every call of the C API holds an InsideRdsm for its duration; while a
//     thread is inside, the message signal is blocked on it (so that the
//     kernel gives it to a thread that computes, if there is one) and its
//     depth is non-zero (so that the handler, should it run there all the
//     same, only defers);
//   - where the runtime calls the program back (the functions of
//     rdsm_run_threads, SPLASH's CREATE), an OutsideRdsm opens the gate
//     again for the length of the call;
//   - the runtime's own threads block the signal for good
//     (block_message_signal_here);
//   - the fault signal's handler blocks it while it runs (its sa_mask);
//   - the fabric's calls hold it off (HoldOffMessageSignal).
// A signal that finds a thread inside anyway (one that holds it off
// without blocking it) is noted on the thread (note_deferred_message), and
// on its way out of the outermost scope the thread serves what has arrived
// (the serve function the fabric gave open_message_gate).  A signal that
// arrived while the thread blocked it is delivered as the thread unblocks
// it on its way out, and serves there.
//
// Nothing here costs anything while the gate is closed (every other mode).
#pragma once
#include <signal.h>

namespace rdsm {

// The signal a node's message delivers in signal mode: a real-time one, so
// that the program's use of the classic signals is not disturbed.
int message_signal();

// Adds the message signal to `set` (for a handler's sa_mask).
void add_message_signal(sigset_t *set);
// Blocks the message signal on the calling thread for good (threads of the
// runtime that never run program code).
void block_message_signal_here();

// Opens the gate (the fabric's start in signal mode): from now on threads
// entering the runtime block the signal, and leaving it they call
// serve(ctx).  The calling thread, if inside the runtime, blocks it now.
void open_message_gate(void (*serve)(void *), void *ctx);
// Closes it (the fabric's stop).  Threads blocking the signal keep it
// blocked until they leave the runtime.
void close_message_gate();
bool message_gate_open();

// Whether the calling thread is inside the runtime: the signal's handler
// must not run message handlers then.  Async-signal-safe (a thread-local of
// the executable).
bool inside_rdsm();
// Whether the calling thread is unblocking the signal on its way out of the
// runtime: it holds nothing then, and is in pthread_sigmask, an
// async-signal-safe function, so a signal delivered there may serve.
bool leaving_rdsm();
// The signal's handler found the thread inside: it serves on its way out.
// Async-signal-safe.
void note_deferred_message();

class InsideRdsm {
 public:
  InsideRdsm();
  ~InsideRdsm();
  InsideRdsm(const InsideRdsm &) = delete;
  InsideRdsm &operator=(const InsideRdsm &) = delete;
};

// The fabric's own calls (send, wait, poll, barrier) count as inside too,
// without the mask's system calls: a program or test that drives the fabric
// directly, not through the C API, is then still never served on top of a
// send that holds a ring's lock.  The signal only defers there.
class HoldOffMessageSignal {
 public:
  HoldOffMessageSignal();
  ~HoldOffMessageSignal();
  HoldOffMessageSignal(const HoldOffMessageSignal &) = delete;
  HoldOffMessageSignal &operator=(const HoldOffMessageSignal &) = delete;
};

class OutsideRdsm {
 public:
  OutsideRdsm();
  ~OutsideRdsm();
  OutsideRdsm(const OutsideRdsm &) = delete;
  OutsideRdsm &operator=(const OutsideRdsm &) = delete;

 private:
  int depth_;
  bool masked_;
};

}  // namespace rdsm
