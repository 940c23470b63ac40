// The message signal's handler (`--handler signal`): the node's messages
// served on the thread that computes, interrupted by a signal.
//
// The invariant that makes it safe.  Message handlers take the runtime's
// locks and allocate, which a signal handler may do only where the
// interrupted thread holds none of those locks and is inside no unsafe
// function (POSIX makes an unsafe call from a signal handler undefined only
// "when a signal interrupts an unsafe function").  So the handler first
// decides, with async-signal-safe work alone (a thread-local, the
// interrupted instruction's address, atomics), whether the interrupted
// thread is
//   - outside the runtime (common/message_signal.hpp: the gate's depth is
//     zero; the runtime's own threads and fault handling block the signal),
//     and
//   - executing the program's own code, not a shared library's: the C
//     library (malloc's locks are held only while malloc runs), the C++
//     library, the dynamic loader, a sanitizer's allocator, the vDSO;
// or is unblocking the signal on its way out of the runtime (it holds
// nothing there, and pthread_sigmask is async-signal-safe).  Only then does
// it run the handlers.  Otherwise it leaves the messages where they are: a
// thread inside the runtime serves them while it waits or on its way out;
// for a thread in a library the handler arms a one-shot timer that raises
// the signal again shortly (10 us, doubling up to 50 us while it keeps
// landing in the wrong place): a thread in malloc or memset is back in its
// own code microseconds later.  The timer
// runs only while messages wait unserved, which is when a peer waits too
// (a node computing in malloc and memset most of the time answered 328
// requests in 30 to 50 ms this way, against 0.2 to 0.7 s with a 1 ms cap).
// A C library linked statically into the program would put malloc in the
// program's own code, where the check cannot see it: signal mode refuses
// to start then.  An allocator linked statically into the program (a
// jemalloc or tcmalloc archive) cannot be told apart either, and is not
// supported in this mode.  A program function that the C library calls
// back (a qsort comparison) counts as the program's code: the C library
// holds no lock the handlers take while it runs one.
#pragma once

namespace rdsm::fabric {

// What the fabric gives the handler; both are called in it.
struct SignalServe {
  // Lets senders signal again, and runs the handlers of what has arrived.
  void (*serve)(void *ctx);
  // Lets senders signal again, and says whether anything waits (async-
  // signal-safe).  The handler calls it where it may not serve and the
  // thread is not inside rdsm: another thread may have taken the messages
  // meanwhile, and a node whose senders stay silent would never be
  // signalled again.
  bool (*rearm)(void *ctx);
  void *ctx;
};

// Installs the handler and the retry timer for this process (one fabric at a
// time); ends the process with a message naming the cause where signal
// delivery cannot work.
void install_signal_delivery(const SignalServe &serve);
// Stops calling `serve` (waits for a handler that is running), disarms the
// timer.  The handler stays installed, ignoring the signal, so that a
// signal still on its way does not end the process.
void remove_signal_delivery();

}  // namespace rdsm::fabric
