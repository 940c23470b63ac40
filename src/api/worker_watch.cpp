#include "api/worker_watch.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.hpp"
#include "common/error.hpp"
#include "common/hang_watch.hpp"
#include "common/message_signal.hpp"

namespace rdsm {

void WorkerWatch::start(const std::vector<WatchedWorker> &workers, const std::vector<int> &files,
                        double hang_seconds, Ended ended, Hung hung) {
  finish();  // the last job's watching, if nobody ended it (a no-op otherwise)
  if (stop_fd_ < 0) {
    stop_fd_ = eventfd(0, EFD_CLOEXEC);
    if (stop_fd_ < 0) fatal("fork-join: eventfd failed: %s", strerror(errno));
  }
  for (int fd : files) blocks_.push_back(map_node_block(fd));
  // The thread works on its own list of the workers: the master hands its
  // list to the reaper once the job ends, while this thread may still run.
  thread_ = std::thread([this, workers, hang_seconds, ended = std::move(ended), hung = std::move(hung)] {
    block_message_signal_here();  // the runtime's thread: it never serves messages
    run(workers, hang_seconds, ended, hung);
  });
}

void WorkerWatch::run(const std::vector<WatchedWorker> &workers, double hang_seconds, const Ended &ended,
                      const Hung &hung) {
  std::vector<bool> done(workers.size(), false);
  // A worker whose heartbeat has not moved for the hang timeout is hung,
  // as a launcher judges its nodes (hang_watch.hpp).
  HangWatch hang(workers.size(), hang_seconds, now_ns());
  const int period_ms = hang_seconds > 0 ? 250 : -1;
  for (;;) {
    const uint64_t now = now_ns();
    for (size_t i = 0; i < workers.size() && i < blocks_.size(); ++i) {
      if (!hang.hung(i, blocks_[i]->heartbeat.load(std::memory_order_relaxed), true, workers[i].pid, now)) continue;
      char why[256];
      snprintf(why, sizeof why,
               "node %d (pid %d) made no progress for %g s (its heartbeat stopped: the process is stopped or "
               "frozen; --hang-timeout sets the limit)",
               workers[i].rank, (int)workers[i].pid, hang_seconds);
      hung(workers[i], why);
      break;
    }
    std::vector<pollfd> fds{{stop_fd_, POLLIN, 0}};
    std::vector<size_t> who;
    for (size_t i = 0; i < workers.size(); ++i)
      if (!done[i]) {
        fds.push_back({workers[i].pidfd, POLLIN, 0});
        who.push_back(i);
      }
    if (poll(fds.data(), fds.size(), period_ms) < 0) {
      if (errno == EINTR) continue;
      fatal("fork-join: poll on the workers failed: %s", strerror(errno));
    }
    if (fds[0].revents) return;
    for (size_t j = 1; j < fds.size(); ++j) {
      if (!fds[j].revents) continue;
      const WatchedWorker &w = workers[who[j - 1]];
      siginfo_t si{};
      if (waitid(P_PID, (id_t)w.pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid == 0) continue;
      if (!ended(w, si.si_code, si.si_status)) return;
      done[who[j - 1]] = true;
    }
  }
}

WorkerWatch::~WorkerWatch() {
  finish();
  if (stop_fd_ >= 0) close(stop_fd_);
}

void WorkerWatch::close_in_worker() {
  if (stop_fd_ >= 0) close(stop_fd_);
  stop_fd_ = -1;
}

void WorkerWatch::request_stop() {
  const uint64_t one = 1;
  if (write(stop_fd_, &one, sizeof one) != (ssize_t)sizeof one)
    fatal("fork-join: cannot stop the worker watcher: %s", strerror(errno));
}

void WorkerWatch::finish() {
  if (!thread_.joinable()) return;
  request_stop();  // again, if asked before: the thread may have ended on its own
  thread_.join();
  for (NodeBlock *b : blocks_) unmap_node_block(b);
  blocks_.clear();
  uint64_t drained;
  if (read(stop_fd_, &drained, sizeof drained) < 0) drained = 0;
}

}  // namespace rdsm
