#include "fabric/mpi_watchdog.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <mpi.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "common/clock.hpp"
#include "common/error.hpp"
#include "fabric/lost_node.hpp"
#include "fabric/mpi_environment.hpp"

namespace rdsm::fabric {

using mpi::check;

namespace {
constexpr uint64_t kBeatPeriodNs = 100'000'000;
constexpr uint32_t kMagic = 0x72644862;  // "rdHb"
constexpr uint32_t kAlive = 1;
constexpr uint32_t kLeaving = 2;  // the sender leaves the job: stop watching it
constexpr uint64_t kLeft = UINT64_MAX;
constexpr int kFarewells = 3;  // datagrams may be lost; a farewell matters only at the end
// After MPI_Abort, how long this process waits for MPI to end it before
// ending itself (MPI_Abort may wait for a host it cannot reach).
constexpr int kAbortGraceMs = 1000;
constexpr int kLostExitStatus = 2;  // as rdsm's other fatal errors

struct Datagram {
  uint32_t magic;
  uint32_t kind;
  uint64_t job_key;
  int32_t from;
  int32_t to;
};

void block_signals() {
  sigset_t all;
  sigfillset(&all);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) sigdelset(&all, sig);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
}

// This host's IPv4 addresses on interfaces that are up, loopback aside
// (127.0.0.1 is every host's own).
int own_addresses(uint32_t *out, int max) {
  ifaddrs *list = nullptr;
  if (getifaddrs(&list) != 0) return 0;
  int n = 0;
  for (ifaddrs *i = list; i && n < max; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
    if (!(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK)) continue;
    out[n++] = reinterpret_cast<sockaddr_in *>(i->ifa_addr)->sin_addr.s_addr;
  }
  freeifaddrs(list);
  return n;
}
}  // namespace

MpiWatchdog::MpiWatchdog(double timeout_seconds) : timeout_ns_((uint64_t)(timeout_seconds * 1e9)) {
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &nodes_), "MPI_Comm_size");
  Peer me{};
  me.pid = (int32_t)getpid();
  if (gethostname(me.host, sizeof me.host - 1) != 0) snprintf(me.host, sizeof me.host, "?");
  sock_ = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  sockaddr_in any{};
  any.sin_family = AF_INET;
  any.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t len = sizeof any;
  if (sock_ < 0 || bind(sock_, reinterpret_cast<sockaddr *>(&any), sizeof any) != 0 ||
      getsockname(sock_, reinterpret_cast<sockaddr *>(&any), &len) != 0) {
    warn("mpi fabric: node %d cannot open a UDP socket for its heartbeats (%s); a lost rank is not found", rank_,
         strerror(errno));
    if (sock_ >= 0) close(sock_);
    sock_ = -1;
  } else {
    me.port = any.sin_port;
    me.naddrs = (uint16_t)own_addresses(me.addrs, kMaxAddrs);
  }
  if (rank_ == 0 && getrandom(&job_key_, sizeof job_key_, 0) != (ssize_t)sizeof job_key_) job_key_ = now_ns();
  check(MPI_Bcast(&job_key_, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
  peers_.resize((size_t)nodes_);
  check(MPI_Allgather(&me, (int)sizeof me, MPI_BYTE, peers_.data(), (int)sizeof me, MPI_BYTE, MPI_COMM_WORLD),
        "MPI_Allgather");
  to_.resize((size_t)nodes_);
  for (int r = 0; r < nodes_; ++r) {
    const Peer &p = peers_[(size_t)r];
    if (r == rank_ || p.port == 0) continue;
    auto add = [&](uint32_t addr) {
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_port = p.port;
      a.sin_addr.s_addr = addr;
      to_[(size_t)r].push_back(a);
    };
    for (int i = 0; i < std::min<int>(p.naddrs, kMaxAddrs); ++i) add(p.addrs[i]);
    // A host without a network: its ranks reach each other by loopback.
    if (p.naddrs == 0 && !strncmp(p.host, me.host, sizeof me.host)) add(htonl(INADDR_LOOPBACK));
  }
  if (pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) fatal("mpi fabric: cannot make a pipe: %s", strerror(errno));
}

MpiWatchdog::~MpiWatchdog() {
  stop();
  if (sock_ >= 0) close(sock_);
  close(wake_[0]);
  close(wake_[1]);
}

void MpiWatchdog::start() {
  if (thread_.joinable() || timeout_ns_ == 0 || nodes_ < 2 || sock_ < 0) return;
  // A rank that cannot be sent to cannot be watched: said once, by node 0.
  last_seen_.assign((size_t)nodes_, 0);
  heard_.assign((size_t)nodes_, false);
  for (int r = 0; r < nodes_; ++r) {
    bool reachable = r == rank_ || (peers_[(size_t)r].port != 0 && !to_[(size_t)r].empty());
    if (!reachable) {
      last_seen_[(size_t)r] = kLeft;
      if (rank_ == 0)
        warn("mpi fabric: %s has no IPv4 address to send heartbeats to; it is not watched (a lost rank there is "
             "not found)",
             describe(r).c_str());
    }
  }
  last_seen_[(size_t)rank_] = kLeft;
  stopping_.store(false);
  thread_ = std::thread([this] { loop(); });
}

void MpiWatchdog::stop() {
  if (!thread_.joinable()) return;
  stopping_.store(true);
  char c = 0;
  ssize_t w = write(wake_[1], &c, 1);
  (void)w;
  thread_.join();
  for (int i = 0; i < kFarewells; ++i) send_all(kLeaving);
}

void MpiWatchdog::send_all(uint32_t kind) {
  Datagram d{kMagic, kind, job_key_, rank_, 0};
  for (int r = 0; r < nodes_; ++r) {
    if (r == rank_) continue;
    d.to = r;
    // Unreachable (a link is down) or a full buffer: the silence is the news.
    for (const sockaddr_in &a : to_[(size_t)r])
      sendto(sock_, &d, sizeof d, MSG_DONTWAIT | MSG_NOSIGNAL, reinterpret_cast<const sockaddr *>(&a), sizeof a);
  }
}

void MpiWatchdog::receive(uint64_t now) {
  for (;;) {
    Datagram d;
    ssize_t n = recv(sock_, &d, sizeof d, MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return;
    if (n != (ssize_t)sizeof d || d.magic != kMagic || d.job_key != job_key_ || d.to != rank_ || d.from < 0 ||
        d.from >= nodes_ || d.from == rank_)
      continue;
    uint64_t &seen = last_seen_[(size_t)d.from];
    heard_[(size_t)d.from] = true;
    if (d.kind == kLeaving)
      seen = kLeft;
    else if (seen != kLeft)
      seen = now;
  }
}

// No MPI call here: this thread must judge even when MPI never returns.
void MpiWatchdog::loop() {
  block_signals();
  uint64_t t = now_ns();
  for (uint64_t &s : last_seen_)
    if (s != kLeft) s = t;
  uint64_t next_beat = t, last_turn = t;
  while (!stopping_.load()) {
    t = now_ns();
    // This thread did not run for a while (the process was stopped, or
    // starved): the others' silence in that time says nothing about them.
    if (t - last_turn > timeout_ns_ / 2)
      for (uint64_t &s : last_seen_)
        if (s != kLeft) s = t;
    last_turn = t;
    if (t >= next_beat) {
      send_all(kAlive);
      next_beat = t + kBeatPeriodNs;
    }
    std::vector<int> lost;
    for (int r = 0; r < nodes_; ++r) {
      uint64_t s = last_seen_[(size_t)r];
      if (s == kLeft || t <= s || t - s <= timeout_ns_) continue;
      if (heard_[(size_t)r]) {
        lost.push_back(r);
        continue;
      }
      // Silent from the start: more likely a firewall than a lost rank.
      warn("mpi fabric: no heartbeat from %s reached node %d since the job started (is UDP between their hosts "
           "blocked?); it is not watched, and should it be lost, the job waits for it",
           describe(r).c_str(), rank_);
      last_seen_[(size_t)r] = kLeft;
    }
    if (!lost.empty()) end_job(lost);
    pollfd p[2] = {{sock_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    int ms = (int)((next_beat > t ? next_beat - t : 0) / 1000000) + 1;
    poll(p, 2, ms);
    receive(now_ns());
  }
}

std::string MpiWatchdog::describe(int r) const {
  const Peer &p = peers_[(size_t)r];
  char buf[160];
  snprintf(buf, sizeof buf, "node %d (pid %d on host %.64s)", r, (int)p.pid, p.host);
  return buf;
}

void MpiWatchdog::end_job(const std::vector<int> &lost) {
  char secs[32];
  snprintf(secs, sizeof secs, "%g", ns_to_s(timeout_ns_));
  std::string text;
  for (int r : lost)
    text += "rdsm[node " + std::to_string(rank_) + "]: error: " + describe(r) + kLostNodeWords + secs +
            " s: no heartbeat from it reached node " + std::to_string(rank_) +
            " (the process is stopped or frozen, or its host or the network link to it is down); --hang-timeout "
            "sets the limit; ending the job\n";
  ssize_t w = write(STDERR_FILENO, text.data(), text.size());
  (void)w;
  // MPI_Abort ends every rank MPI can reach; should it wait for one it
  // cannot, this process ends anyway.
  std::thread([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(kAbortGraceMs));
    _exit(kLostExitStatus);
  }).detach();
  MPI_Abort(MPI_COMM_WORLD, kLostExitStatus);
  _exit(kLostExitStatus);
}

}  // namespace rdsm::fabric
