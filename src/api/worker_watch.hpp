// Watches the forked workers of a fork-join job while the master computes
// (fork_join.hpp): a worker that exits, or whose heartbeat stops, is
// reported at once, so that the master never waits for a node that is gone
// or hung.  A thread polls the workers' pidfds (an exit is looked at
// without reaping it, WNOWAIT: the master reaps) and, every quarter of a
// second, their heartbeats.
//
// Stopping is asked for, not waited for.  The request is one write, but
// waiting for the thread to be scheduled and to end, on a machine whose
// cores are busy (the workers tearing themselves down at WAIT_FOR_END),
// took the master 0.05 to 3.5 ms, a few percent of a SPLASH FFT's parallel
// time at 2 nodes.  The thread, its descriptors and
// the workers' node blocks are released by finish(), which the thread that
// reaps the workers calls first: the pidfds the watcher polls are closed
// only after it has gone.
#pragma once
#include <functional>
#include <sys/types.h>
#include <thread>
#include <vector>

#include "bootstrap/node_file.hpp"

namespace rdsm {

struct WatchedWorker {
  pid_t pid;
  int pidfd;
  int rank;
};

class WorkerWatch {
 public:
  // A watched worker has exited (`code` and `status` as waitid gives them;
  // not reaped).  Returns whether to go on watching the others.
  using Ended = std::function<bool(const WatchedWorker &w, int code, int status)>;
  // A worker made no progress for the hang timeout: `why` names it.
  using Hung = std::function<void(const WatchedWorker &w, const char *why)>;

  WorkerWatch() = default;
  WorkerWatch(const WorkerWatch &) = delete;
  WorkerWatch &operator=(const WorkerWatch &) = delete;
  ~WorkerWatch();

  // Maps each worker's node block (`files`, by worker) and starts the
  // thread.  `hang_seconds` <= 0: no worker is ever called hung.
  void start(const std::vector<WatchedWorker> &workers, const std::vector<int> &files, double hang_seconds,
             Ended ended, Hung hung);
  // The workers' node blocks, by worker, until finish().
  const std::vector<NodeBlock *> &blocks() const { return blocks_; }
  // Asks the thread to stop; returns at once.
  void request_stop();
  // Stops the thread and waits for it, then unmaps the node blocks.
  void finish();
  // A forked worker watches nobody: it closes what it inherited.
  void close_in_worker();

 private:
  void run(const std::vector<WatchedWorker> &workers, double hang_seconds, const Ended &ended, const Hung &hung);

  std::thread thread_;
  int stop_fd_ = -1;  // an eventfd, kept from one job to the next
  std::vector<NodeBlock *> blocks_;
};

}  // namespace rdsm
