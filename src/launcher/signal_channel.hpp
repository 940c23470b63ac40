// The signals the launcher reacts to, delivered through a signalfd so that
// they are handled in the main loop rather than in a signal handler.
#pragma once
#include <csignal>
#include <vector>

namespace rdsm::launcher {

class SignalChannel {
 public:
  // Blocks SIGCHLD, SIGINT, SIGTERM and SIGHUP and opens a signalfd for
  // them.  A signal that this process inherited as ignored (as nohup does
  // for SIGHUP) stays ignored.  Create it before starting any child, so no
  // SIGCHLD is lost.
  SignalChannel();
  ~SignalChannel();
  SignalChannel(const SignalChannel &) = delete;
  SignalChannel &operator=(const SignalChannel &) = delete;

  // The mask to restore in a child before it runs the program.
  const sigset_t &original_mask() const { return original_mask_; }

  // Waits up to timeout_ms (-1: no limit) for signals; returns every signal
  // that arrived (empty on timeout or when interrupted, e.g. by SIGCONT).
  std::vector<int> wait(int timeout_ms);

 private:
  int fd_ = -1;
  sigset_t original_mask_;
  struct sigaction original_chld_;
};

}  // namespace rdsm::launcher
