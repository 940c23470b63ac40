// The watcher of a fork-join job's workers: it reports a worker's exit
// without reaping it, calls a worker whose heartbeat stopped hung, and
// stops when asked without the asker waiting for it.
#include "api/worker_watch.hpp"

#include <atomic>
#include <chrono>
#include <csignal>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <gtest/gtest.h>

#include "bootstrap/node_file.hpp"

namespace rdsm {
namespace {

WatchedWorker fork_child(int exit_status, int sleep_ms) {
  pid_t pid = fork();
  if (pid == 0) {
    if (sleep_ms) usleep((useconds_t)sleep_ms * 1000);
    _exit(exit_status);
  }
  return {pid, (int)syscall(SYS_pidfd_open, pid, 0), 1};
}

void reap(const WatchedWorker &w) {
  kill(w.pid, SIGKILL);
  waitpid(w.pid, nullptr, 0);
  close(w.pidfd);
}

bool wait_for(const std::atomic<bool> &flag) {
  for (int i = 0; i < 5000 && !flag.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return flag.load();
}

TEST(WorkerWatch, ReportsAnExitWithoutReapingIt) {
  const WatchedWorker w = fork_child(3, 0);
  std::atomic<bool> seen{false};
  int code = 0, status = 0;
  WorkerWatch watch;
  watch.start({w}, {}, 0,
              [&](const WatchedWorker &x, int c, int s) {
                EXPECT_EQ(x.pid, w.pid);
                code = c, status = s;
                seen = true;
                return true;
              },
              [](const WatchedWorker &, const char *) { ADD_FAILURE() << "called hung"; });
  ASSERT_TRUE(wait_for(seen));
  watch.finish();
  EXPECT_EQ(code, CLD_EXITED);
  EXPECT_EQ(status, 3);
  siginfo_t si{};
  EXPECT_EQ(waitid(P_PID, (id_t)w.pid, &si, WEXITED), 0);  // still there for the master to reap
  EXPECT_EQ(si.si_status, 3);
  close(w.pidfd);
}

TEST(WorkerWatch, CallsAStoppedWorkerHung) {
  const WatchedWorker w = fork_child(0, 10000);
  const int file = create_node_files(1).at(0);
  NodeBlock *b = map_node_block(file);
  b->heartbeat.store(7);  // in a job, and never ticking again
  kill(w.pid, SIGSTOP);
  std::atomic<bool> hung{false};
  std::string why;
  WorkerWatch watch;
  watch.start({w}, {file}, 0.3, [](const WatchedWorker &, int, int) { return true; },
              [&](const WatchedWorker &, const char *text) {
                if (!hung.exchange(true)) why = text;
              });
  ASSERT_TRUE(wait_for(hung));
  watch.finish();
  EXPECT_NE(why.find("node 1 (pid " + std::to_string(w.pid) + ") made no progress for 0.3 s"), std::string::npos)
      << why;
  unmap_node_block(b);
  close(file);
  reap(w);
}

TEST(WorkerWatch, StopsWhenAskedAndStartsAgain) {
  WorkerWatch watch;  // one per program: each job's watching starts it again
  for (int round = 0; round < 3; ++round) {
    const WatchedWorker w = fork_child(0, 10000);
    watch.start({w}, {}, 0, [](const WatchedWorker &, int, int) { return true; },
                [](const WatchedWorker &, const char *) {});
    const auto t0 = std::chrono::steady_clock::now();
    watch.request_stop();
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(100));
    watch.finish();  // joins: the thread saw the request
    reap(w);
  }
}

}  // namespace
}  // namespace rdsm
