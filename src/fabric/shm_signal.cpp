// The shm fabric's signal mode (`--handler signal`): a sender signals the
// receiving process after it has published a fragment; the signal's handler
// serves the node's messages where signal_delivery.hpp allows it, and the
// node's threads serve while they wait in the runtime (as in poll mode) and
// on their way out of it (common/message_signal.hpp).
#include <csignal>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/message_signal.hpp"
#include "fabric/shm_fabric.hpp"
#include "fabric/shm_node_ctl.hpp"
#include "fabric/signal_delivery.hpp"

namespace rdsm::fabric {

// At most one signal on its way to a node: the first sender since the
// receiver last served from a signal (serve_signal) sends it.  The receiver
// clears the word before it looks at the rings and the sender sets it after
// it has published (both seq_cst), so either the receiver sees the fragment
// or the sender sends a signal.  A signal that finds a thread inside rdsm
// leaves the word set: that thread serves, and clears it, on its way out
// (signal_delivery.hpp), and until then nobody is signalled for nothing.
// One that finds a thread in a library clears it (rearm_signal): the
// node's other threads may take the messages meanwhile, and the word must
// not outlive the signal that set it.  Async-signal-safe (atomics and kill), as a send
// from a handler that a signal runs must be.
void ShmFabric::signal_arrival(NodeId dst) {
  shm::NodeCtl *c = ctl_[dst];
  const int32_t pid = c->signal_pid.load(std::memory_order_seq_cst);
  if (pid <= 0 || c->signal_sent.exchange(1, std::memory_order_seq_cst) != 0) return;
  const int fd = peer_pidfd(dst, pid);
  if (fd >= 0) syscall(SYS_pidfd_send_signal, fd, message_signal(), nullptr, 0);
}

// The peer is signalled through a pidfd taken at its first signal, not by
// its process id: a node that dies leaves its id in its control page, and
// once the id is reused a kill would reach an unrelated process of the
// host.  A pidfd stays with the process it was opened for; signalling it
// after that process is gone fails and reaches nobody.  A peer gone before
// its first signal is never signalled (the job is ending: the launcher
// ends it on any node's death).  Async-signal-safe: system calls and
// atomics; two threads opening at once keep one fd and close the other.
int ShmFabric::peer_pidfd(NodeId dst, int32_t pid) {
  constexpr int kNotOpened = -1, kPeerGone = -2;
  std::atomic<int> &slot = peer_pidfds_[dst];
  int fd = slot.load(std::memory_order_acquire);
  if (fd != kNotOpened) return fd;
  int mine = (int)syscall(SYS_pidfd_open, pid, 0);
  if (mine < 0) mine = kPeerGone;
  int expected = kNotOpened;
  if (slot.compare_exchange_strong(expected, mine, std::memory_order_acq_rel)) return mine;
  if (mine >= 0) close(mine);
  return expected;
}

void ShmFabric::start_signal_delivery() {
  install_signal_delivery({&ShmFabric::serve_signal, &ShmFabric::rearm_signal, this});
  open_message_gate(&ShmFabric::serve_signal, this);
  self_->signal_sent.store(0, std::memory_order_seq_cst);
  // From here on senders signal; what came before waits for a thread in the
  // runtime, as in poll mode.
  self_->signal_pid.store((int32_t)getpid(), std::memory_order_seq_cst);
}

void ShmFabric::stop_signal_delivery() {
  self_->signal_pid.store(0, std::memory_order_seq_cst);
  close_message_gate();
  remove_signal_delivery();
}

// In the signal handler where it may serve, or on a thread leaving the
// runtime after a signal found it inside.  progress() takes dispatch_ only
// if it is free: a thread that holds it looks at the rings again after it
// lets it go.
void ShmFabric::serve_signal(void *self) {
  auto *f = static_cast<ShmFabric *>(self);
  f->self_->signal_sent.store(0, std::memory_order_seq_cst);
  bool busy = false;
  f->progress(&busy);
}

// The word is cleared before the rings are looked at: what arrives later
// signals again, what arrived before is seen here.
bool ShmFabric::rearm_signal(void *self) {
  auto *f = static_cast<ShmFabric *>(self);
  f->self_->signal_sent.store(0, std::memory_order_seq_cst);
  return f->has_pending();
}

}  // namespace rdsm::fabric
