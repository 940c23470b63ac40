#include "launcher/signal_channel.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <poll.h>
#include <sys/signalfd.h>
#include <unistd.h>

namespace rdsm::launcher {

SignalChannel::SignalChannel() {
  // SIGCHLD must not be ignored, or the kernel reaps the children itself and
  // their exit status is lost.
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(SIGCHLD, &dfl, &original_chld_);

  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGCHLD);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction current;
    if (sigaction(sig, nullptr, &current) == 0 && current.sa_handler == SIG_IGN) continue;
    sigaddset(&set, sig);
  }
  sigprocmask(SIG_BLOCK, &set, &original_mask_);
  fd_ = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
  if (fd_ < 0) {
    fprintf(stderr, "rdsm: error: cannot create a signalfd: %s\n", strerror(errno));
    exit(1);
  }
}

SignalChannel::~SignalChannel() {
  if (fd_ >= 0) close(fd_);
  sigprocmask(SIG_SETMASK, &original_mask_, nullptr);
  sigaction(SIGCHLD, &original_chld_, nullptr);
}

std::vector<int> SignalChannel::wait(int timeout_ms) {
  std::vector<int> got;
  pollfd p{fd_, POLLIN, 0};
  if (poll(&p, 1, timeout_ms) <= 0) return got;  // timeout, or EINTR: the caller loops
  signalfd_siginfo info[16];
  while (true) {
    ssize_t n = read(fd_, info, sizeof info);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (size_t i = 0; i < (size_t)n / sizeof info[0]; ++i) got.push_back((int)info[i].ssi_signo);
  }
  return got;
}

}  // namespace rdsm::launcher
