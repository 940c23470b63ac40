#include "launcher/job.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bootstrap/node_file.hpp"
#include "common/clock.hpp"
#include "common/hang_watch.hpp"
#include "launcher/signal_channel.hpp"
#include "launcher/signals.hpp"
#include "launcher/spawn.hpp"

namespace rdsm::launcher {
namespace {

// How long to wait for nodes to go after SIGKILL before giving up on them.
constexpr uint64_t kReapLimitNs = 10'000'000'000ull;
// How often the launcher looks at the nodes' heartbeats.
constexpr int kHeartbeatCheckMs = 250;

enum class Cause { signal, exit_status, no_finalize, terminal_stop, no_heartbeat };

struct Failure {
  size_t node;
  Cause cause;
  int value;  // the signal or the exit status
};

// When several nodes fail at once, the one that most likely failed first:
// a node that other nodes gave up on usually exits with an error of its own.
int priority(Cause c) {
  switch (c) {
    case Cause::signal: return 2;
    case Cause::terminal_stop: return 1;
    case Cause::exit_status: return 1;
    case Cause::no_finalize: return 0;
    case Cause::no_heartbeat: return 1;
  }
  return 0;
}

std::string seconds_text(double s) {
  char buf[32];
  snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

// The nodes need one descriptor per node file on top of their own.
void raise_fd_limit(int nodes) {
  rlimit lim;
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return;
  rlim_t want = (rlim_t)nodes + 256;
  if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < want) {
    lim.rlim_cur = (lim.rlim_max == RLIM_INFINITY || lim.rlim_max > want) ? want : lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
}

class Job {
 public:
  explicit Job(const RunConfig &cfg) : cfg_(cfg) {}
  JobResult run();

 private:
  bool start();
  void supervise();
  // Reaps every node that has ended; appends the ones that failed.
  void reap(std::vector<Failure> *failures);
  void end_all_nodes();
  void report_failure(const Failure &f);
  // Nodes whose heartbeat has not moved for the hang timeout.
  void find_hung(std::vector<Failure> *failures);
  void collect_stats();
  void release_files();

  const RunConfig &cfg_;
  SignalChannel signals_;
  std::vector<int> fds_;
  std::vector<NodeBlock *> blocks_;
  std::optional<HangWatch> hang_;  // from the first look at the heartbeats
  pid_t pgid_ = 0;
  int running_ = 0;
  JobResult result_;
};

JobResult Job::run() {
  raise_fd_limit(cfg_.nodes);
  fds_ = create_node_files(cfg_.nodes);
  for (int fd : fds_) blocks_.push_back(map_node_block(fd));
  result_.nodes.resize((size_t)cfg_.nodes);
  for (int i = 0; i < cfg_.nodes; ++i) result_.nodes[(size_t)i].rank = i;

  uint64_t t0 = now_ns();
  if (start()) supervise();
  result_.wall_seconds = ns_to_s(now_ns() - t0);
  collect_stats();
  release_files();
  return result_;
}

bool Job::start() {
  std::string fd_list = format_fd_list(fds_);
  for (int i = 0; i < cfg_.nodes; ++i) {
    std::vector<std::string> env = node_environment(cfg_, i, fd_list);
    pid_t pid = spawn_node(cfg_, i, env, pgid_, signals_.original_mask());
    if (pid < 0) {
      int err = errno;
      result_.end = JobEnd::start_failed;
      result_.exit_status = 1;
      result_.error = "cannot start node " + std::to_string(i) + ": fork failed: " + strerror(err);
      fprintf(stderr, "rdsm: error: %s\n", result_.error.c_str());
      end_all_nodes();
      return false;
    }
    if (i == 0) pgid_ = pid;
    result_.nodes[(size_t)i].pid = pid;
    ++running_;
  }
  return true;
}

void Job::supervise() {
  const uint64_t deadline =
      cfg_.timeout_seconds > 0 ? now_ns() + (uint64_t)std::llround(cfg_.timeout_seconds * 1e9) : 0;
  while (running_ > 0) {
    int wait_ms = -1;
    if (deadline) {
      uint64_t now = now_ns();
      if (now >= deadline) {
        result_.end = JobEnd::timed_out;
        result_.exit_status = 124;
        result_.error = "the job was still running after the --timeout of " + seconds_text(cfg_.timeout_seconds) +
                        " s";
        fprintf(stderr, "rdsm: error: %s; ending the job\n", result_.error.c_str());
        end_all_nodes();
        return;
      }
      uint64_t left_ms = (deadline - now + 999'999) / 1'000'000;
      wait_ms = (int)(left_ms < 3'600'000 ? left_ms : 3'600'000);  // the loop comes back for the rest
    }
    if (cfg_.hang_seconds > 0 && (wait_ms < 0 || wait_ms > kHeartbeatCheckMs)) wait_ms = kHeartbeatCheckMs;
    int interrupt = 0;
    for (int sig : signals_.wait(wait_ms))
      if (sig != SIGCHLD && !interrupt) interrupt = sig;

    std::vector<Failure> failures;
    reap(&failures);
    if (failures.empty() && cfg_.hang_seconds > 0) find_hung(&failures);
    if (interrupt) {
      result_.end = JobEnd::interrupted;
      result_.exit_status = 128 + interrupt;
      result_.error = "interrupted by " + signal_name(interrupt);
      if (interrupt == SIGINT)
        fprintf(stderr, "rdsm: interrupted; ending the job\n");
      else
        fprintf(stderr, "rdsm: interrupted by %s; ending the job\n", signal_name(interrupt).c_str());
      end_all_nodes();
      return;
    }
    if (!failures.empty()) {
      const Failure *first = &failures[0];
      for (const auto &f : failures)
        if (priority(f.cause) > priority(first->cause)) first = &f;
      report_failure(*first);
      end_all_nodes();
      return;
    }
  }
}

void Job::reap(std::vector<Failure> *failures) {
  while (running_ > 0) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, WNOHANG | WUNTRACED);
    if (pid < 0 && errno == EINTR) continue;
    if (pid <= 0) return;
    size_t i = 0;
    while (i < result_.nodes.size() && result_.nodes[i].pid != pid) ++i;
    if (i == result_.nodes.size()) continue;  // not a node
    NodeRecord &node = result_.nodes[i];
    if (WIFSTOPPED(status)) {
      // Stopped for writing to the terminal (stty tostop): it would wait
      // forever.  Other stops (a user's SIGSTOP) are left alone.
      int sig = WSTOPSIG(status);
      if (failures && (sig == SIGTTOU || sig == SIGTTIN)) failures->push_back({i, Cause::terminal_stop, sig});
      continue;
    }
    node.ended = true;
    node.wait_status = status;
    --running_;
    if (!failures) continue;
    if (WIFSIGNALED(status)) {
      failures->push_back({i, Cause::signal, WTERMSIG(status)});
    } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
      failures->push_back({i, Cause::exit_status, WEXITSTATUS(status)});
    } else if (blocks_[i]->state.load(std::memory_order_acquire) == kNodeInitialized) {
      failures->push_back({i, Cause::no_finalize, 0});
    }
  }
}

void Job::find_hung(std::vector<Failure> *failures) {
  const uint64_t now = now_ns();
  if (!hang_) hang_.emplace(blocks_.size(), cfg_.hang_seconds, now);
  for (size_t i = 0; i < blocks_.size(); ++i) {
    const uint64_t beat = blocks_[i]->heartbeat.load(std::memory_order_relaxed);
    if (hang_->hung(i, beat, !result_.nodes[i].ended, result_.nodes[i].pid, now))
      failures->push_back({i, Cause::no_heartbeat, 0});
  }
}

void Job::report_failure(const Failure &f) {
  const NodeRecord &node = result_.nodes[f.node];
  std::string what = "node " + std::to_string(node.rank) + " (pid " + std::to_string(node.pid) + ") ";
  switch (f.cause) {
    case Cause::signal:
      what += describe_signal_death(f.value, WCOREDUMP(node.wait_status));
      result_.exit_status = 128 + f.value;
      break;
    case Cause::exit_status:
      what += "exited with status " + std::to_string(f.value);
      result_.exit_status = f.value;
      break;
    case Cause::no_finalize:
      what += "exited without calling rdsm_finalize";
      result_.exit_status = 1;
      break;
    case Cause::no_heartbeat:
      what += "made no progress for " + seconds_text(cfg_.hang_seconds) +
              " s (its heartbeat stopped: the process is stopped or frozen; --hang-timeout sets the limit)";
      result_.exit_status = 1;
      break;
    case Cause::terminal_stop:
      what += "was stopped by " + signal_name(f.value) +
              (f.value == SIGTTOU ? " for writing to the terminal (`stty tostop` is set)"
                                  : " for reading from the terminal");
      result_.exit_status = 1;
      break;
  }
  result_.end = JobEnd::node_failed;
  result_.error = what;
  fprintf(stderr, "rdsm: error: %s%s\n", what.c_str(), running_ > 0 ? "; ending the job" : "");
}

void Job::end_all_nodes() {
  if (running_ == 0) return;
  // The nodes still running are most likely blocked in the runtime waiting
  // for the one that is gone: they cannot end on their own.  A node that
  // left the group is still reached by its pid.
  if (pgid_ > 0) kill(-pgid_, SIGKILL);
  for (const auto &node : result_.nodes)
    if (node.pid > 0 && !node.ended) kill(node.pid, SIGKILL);

  const uint64_t limit = now_ns() + kReapLimitNs;
  while (running_ > 0) {
    reap(nullptr);
    if (running_ == 0) break;
    uint64_t now = now_ns();
    if (now >= limit) {
      fprintf(stderr, "rdsm: warning: %d node(s) did not end after SIGKILL:", running_);
      for (const auto &node : result_.nodes)
        if (node.pid > 0 && !node.ended) fprintf(stderr, " pid %d", (int)node.pid);
      fprintf(stderr, "\n");
      return;
    }
    uint64_t left_ms = (limit - now) / 1'000'000 + 1;
    signals_.wait((int)(left_ms < 100 ? left_ms : 100));  // SIGCHLD; other signals change nothing now
  }
}

void Job::collect_stats() {
  std::vector<NodeRecord> forked;
  for (size_t i = 0; i < blocks_.size(); ++i) {
    NodeRecord &node = result_.nodes[i];
    const NodeBlock &b = *blocks_[i];
    if (i == 0 && b.magic == kNodeBlockMagic) {
      result_.memory.assign(b.memory, strnlen(b.memory, sizeof b.memory));
      result_.region_bytes = b.region_bytes;
    }
    if (b.state.load(std::memory_order_acquire) != kNodeFinalized) continue;
    node.has_stats = true;
    node.stats = b.stats;
    node.threads.assign(b.threads, b.threads + std::min<uint32_t>(b.thread_rows, kMaxNodeThreads));
    // A fork-join master: its workers, summed per rank over its jobs.
    uint32_t ranks = std::min<uint32_t>(b.forked_ranks, kMaxForkedRanks);
    for (uint32_t r = 1; r < ranks; ++r) {
      NodeRecord w;
      w.rank = (int)r;
      w.forked = w.has_stats = w.ended = true;
      w.stats = b.forked[r];
      const uint32_t rows = std::min<uint32_t>(b.forked_thread_rows[r], kMaxNodeThreads);
      w.threads.assign(b.forked_threads[r], b.forked_threads[r] + rows);
      forked.push_back(w);
    }
    result_.forked_jobs += (int)b.forked_jobs;
  }
  result_.nodes.insert(result_.nodes.end(), forked.begin(), forked.end());
}

void Job::release_files() {
  for (NodeBlock *b : blocks_) unmap_node_block(b);
  blocks_.clear();
  for (int fd : fds_) close(fd);
  fds_.clear();
}

}  // namespace

JobResult run_job(const RunConfig &cfg) {
  Job job(cfg);
  return job.run();
}

}  // namespace rdsm::launcher
