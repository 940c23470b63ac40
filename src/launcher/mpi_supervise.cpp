#include "launcher/mpi_supervise.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "fabric/lost_node.hpp"
#include "launcher/rank_watch.hpp"
#include "stats/stats_line.hpp"

namespace rdsm::launcher {

namespace {

// How long mpirun may take to end the job by itself after a rank reported
// a lost rank (on one host it ends it in well under a second).
constexpr int kGraceMs = 1000;
constexpr int kLostExitStatus = 2;  // what the reporting rank ends with

using Clock = std::chrono::steady_clock;

void write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;  // our stderr is gone: the output is lost, the job goes on
    p += w;
    n -= (size_t)w;
  }
}

// A rank's report of a lost rank: "rdsm[node R]: error: node N (pid P on
// host H) made no progress for ...".  Returns "node N (pid P on host H)",
// else "".
std::string lost_report(const std::string &line) {
  static const char prefix[] = "rdsm[node ", error[] = "]: error: ";
  if (line.compare(0, sizeof prefix - 1, prefix) != 0) return "";
  size_t from = line.find(error);
  if (from == std::string::npos) return "";
  from += sizeof error - 1;
  size_t words = line.find(fabric::kLostNodeWords, from);
  if (line.compare(from, 5, "node ") != 0 || words == std::string::npos) return "";
  return line.substr(from, words - from);
}

// The job's stderr, relayed as it comes and read line by line.  The ranks'
// statistics lines (stats/stats_line.hpp) are kept instead of relayed: a
// line that may still become one is held back until it cannot.
class StderrRelay {
 public:
  explicit StderrRelay(int fd) : fd_(fd) {}
  int fd() const { return fd_; }
  enum class Read { data, none, end };
  // Relays what is there.
  Read pump() {
    char buf[4096];
    ssize_t n = read(fd_, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return Read::none;
    if (n <= 0) {
      finish();
      return Read::end;
    }
    std::string out;
    for (ssize_t i = 0; i < n; ++i) take(buf[i], &out);
    write_all(STDERR_FILENO, out.data(), out.size());
    return Read::data;
  }
  // Relays a line held back that the job never ended.
  void finish() {
    if (holding_) write_all(STDERR_FILENO, line_.data(), line_.size());
    line_.clear();
    holding_ = true;
  }
  // The first lost-rank report seen, or "".
  const std::string &lost() const { return lost_; }
  // The statistics lines, without their newline, in the order they came.
  std::vector<std::string> take_stats_lines() { return std::move(stats_lines_); }

 private:
  static constexpr size_t kMaxLine = 4096;
  // A node's line with the rows of kMaxNodeThreads threads is about 33 KB.
  static constexpr size_t kMaxStatsLine = 1 << 20;

  // Whether `line_` (not yet ended) may still be a statistics line.
  bool may_be_stats() const {
    static const size_t len = strlen(kStatsLinePrefix);
    if (line_.size() > kMaxStatsLine) return false;
    return line_.compare(0, std::min(line_.size(), len), kStatsLinePrefix, std::min(line_.size(), len)) == 0;
  }

  void take(char c, std::string *out) {
    if (holding_) {
      line_ += c;
      if (c == '\n') {
        line_.pop_back();
        if (line_.size() >= strlen(kStatsLinePrefix) && may_be_stats()) {
          stats_lines_.push_back(std::move(line_));
        } else {
          *out += line_ + '\n';
          end_line();
        }
        line_.clear();
        return;
      }
      if (may_be_stats()) return;
      *out += line_;  // plain output after all
      holding_ = false;
      if (line_.size() > kMaxLine) line_.resize(kMaxLine);
      return;
    }
    *out += c;
    if (c == '\n') {
      end_line();
      line_.clear();
      holding_ = true;
    } else if (line_.size() < kMaxLine) {
      line_ += c;
    }
  }

  void end_line() {
    if (lost_.empty()) lost_ = lost_report(line_);
  }

  int fd_;
  std::string line_;
  bool holding_ = true;  // at the start of a line, or in one that may be a statistics line
  std::string lost_;
  std::vector<std::string> stats_lines_;
};

}  // namespace

int supervise_mpirun(const std::vector<std::string> &args, std::vector<std::string> *stats_lines, RankWatch *watch) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) {
    fprintf(stderr, "rdsm: error: cannot make a pipe for mpirun's output: %s\n", strerror(errno));
    return 1;
  }
  // The signals, read in the loop below rather than in a handler.
  sigset_t set, original;
  sigemptyset(&set);
  for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, sig);
  sigprocmask(SIG_BLOCK, &set, &original);
  int sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
  if (sfd < 0) {
    fprintf(stderr, "rdsm: error: cannot create a signalfd: %s\n", strerror(errno));
    return 1;
  }
  std::vector<char *> argv;
  for (const std::string &a : args) argv.push_back(const_cast<char *>(a.c_str()));
  argv.push_back(nullptr);
  fflush(nullptr);
  pid_t child = fork();
  if (child < 0) {
    fprintf(stderr, "rdsm: error: cannot start mpirun: %s\n", strerror(errno));
    return 1;
  }
  if (child == 0) {
    sigprocmask(SIG_SETMASK, &original, nullptr);
    dup2(out[1], STDERR_FILENO);
    execv(argv[0], argv.data());
    fprintf(stderr, "rdsm: error: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  close(out[1]);
  fcntl(out[0], F_SETFL, O_NONBLOCK);
  StderrRelay relay(out[0]);
  bool relaying = true;
  bool ended_by_us = false;
  Clock::time_point lost_at{};
  for (;;) {
    int timeout = -1;
    if (!relay.lost().empty() && !ended_by_us) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(lost_at + std::chrono::milliseconds(kGraceMs) -
                                                                        Clock::now());
      timeout = (int)std::max<long long>(0, left.count());
    }
    std::vector<pollfd> p{{sfd, POLLIN, 0}, {relaying ? out[0] : -1, POLLIN, 0}};
    watch->add_fds(&p);
    poll(p.data(), p.size(), timeout);
    watch->check(p, 2);
    if (p[1].revents) {
      bool had_report = !relay.lost().empty();
      relaying = relay.pump() != StderrRelay::Read::end;
      if (!had_report && !relay.lost().empty()) lost_at = Clock::now();
    }
    signalfd_siginfo si[8];
    ssize_t n = read(sfd, si, sizeof si);
    for (ssize_t i = 0; i < n / (ssize_t)sizeof si[0]; ++i) {
      int sig = (int)si[i].ssi_signo;
      // From the terminal (SI_KERNEL), a signal reaches mpirun too: sent on,
      // a second SIGINT would make mpirun give up on ending the job cleanly.
      if (sig != SIGCHLD && si[i].ssi_code != SI_KERNEL) kill(child, sig);
    }
    int status = 0;
    if (waitpid(child, &status, WNOHANG) == child) {
      // What is left in the pipe (which mpirun's daemons may keep open).
      while (relaying && relay.pump() == StderrRelay::Read::data) {
      }
      relay.finish();
      *stats_lines = relay.take_stats_lines();
      close(out[0]);
      close(sfd);
      sigprocmask(SIG_SETMASK, &original, nullptr);
      if (ended_by_us) {
        fprintf(stderr,
                "rdsm: error: a rank reported %s lost, and mpirun had not ended the job %d ms later (it waits for "
                "a host it cannot reach to confirm the end), so rdsm ended mpirun; the ranks it could not reach end "
                "by themselves\n",
                relay.lost().c_str(), kGraceMs);
        return kLostExitStatus;
      }
      int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      // Open MPI's mpirun names the rank that ended the job; MPICH's hydra
      // names whichever process it saw end first, often another.
      if (code != 0 && relay.lost().empty() && !watch->first_lost().empty())
        fprintf(stderr,
                "rdsm: error: %s ended first, before the job did and without finishing (it was killed, "
                "crashed or exited); mpirun then ended the job\n",
                watch->first_lost().c_str());
      return code;
    }
    if (!ended_by_us && !relay.lost().empty() && Clock::now() >= lost_at + std::chrono::milliseconds(kGraceMs)) {
      kill(child, SIGKILL);
      ended_by_us = true;
    }
  }
}

}  // namespace rdsm::launcher
