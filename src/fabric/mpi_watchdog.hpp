// Finding a lost rank in an mpi job: one that stopped (SIGSTOP, a debugger,
// a frozen process) or whose host or network link is down.
//
// mpirun notices a rank that ends, but not one that stops or that it can no
// longer reach: over TCP a link that goes down breaks no connection, and
// every MPI call that waits for the lost rank (a fetch, a barrier) waits for
// ever.  So a thread of every rank sends every other rank a heartbeat
// datagram (UDP, to each of the peer's IPv4 addresses) every kBeatPeriodMs
// and judges: a rank from which none arrived for the hang timeout
// (RDSM_HANG_TIMEOUT, --hang-timeout) is lost.  That thread makes no MPI
// call after the start: heartbeats sent as MPI messages were measured to
// arrive more than 5 s late from healthy ranks of a busy job (Open MPI
// 4.1, TCP, a loaded machine), and a call into MPI may never return once a
// link is down.  The judge then names the lost rank on stderr
// (lost_node.hpp) and ends the job with MPI_Abort, or, should that wait for
// a host it cannot reach, by ending this process.
//
// A rank never heard from is not judged lost but named in a warning: UDP
// between the hosts may be blocked.  A datagram carries a random number of the job and its sender's and
// receiver's ranks: one from elsewhere, or sent to an address that is
// another host's too (a container bridge), is ignored.  A rank leaving the
// job (rdsm_finalize) says so first, so that the others, which may still be
// busy after the last barrier (node 0 merging a trace), stop watching it.
#pragma once
#include <netinet/in.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace rdsm::fabric {

class MpiWatchdog {
 public:
  // Collective over MPI_COMM_WORLD: every rank learns the others' addresses,
  // pid and host name.  Watches nothing when timeout_seconds is 0.
  explicit MpiWatchdog(double timeout_seconds);
  ~MpiWatchdog();
  MpiWatchdog(const MpiWatchdog &) = delete;
  MpiWatchdog &operator=(const MpiWatchdog &) = delete;

  // Starts sending, receiving and judging.
  void start();
  // Tells the others this rank leaves and ends the thread.  Idempotent.
  void stop();

 private:
  static constexpr int kMaxAddrs = 8;
  struct Peer {  // as exchanged at the start
    int32_t pid;
    uint16_t port;  // network order
    uint16_t naddrs;
    uint32_t addrs[kMaxAddrs];  // IPv4, network order
    char host[64];
  };

  void loop();
  void send_all(uint32_t kind);
  void receive(uint64_t now);
  [[noreturn]] void end_job(const std::vector<int> &lost);
  std::string describe(int rank) const;

  int rank_ = 0;
  int nodes_ = 1;
  uint64_t timeout_ns_;
  uint64_t job_key_ = 0;  // the same in every rank, from rank 0
  int sock_ = -1;
  std::vector<Peer> peers_;
  std::vector<std::vector<sockaddr_in>> to_;  // by rank: where its heartbeats go
  std::vector<uint64_t> last_seen_;           // by rank: now_ns() of its last heartbeat; kLeft once it left
  std::vector<bool> heard_;                   // by rank: a heartbeat of it ever arrived
  int wake_[2] = {-1, -1};                    // a pipe: stop() wakes the thread
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace rdsm::fabric
