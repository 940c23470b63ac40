// A node's heartbeat: a thread that ticks a counter in the node's block
// every kHeartbeatPeriodMs while the node is in a job, so that the launcher
// can tell a node that stopped (SIGSTOP, a frozen process) from one that
// computes for a long time without calling rdsm: the thread ticks through
// any compute phase, and stops only when the whole process does.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

namespace rdsm {

constexpr int kHeartbeatPeriodMs = 100;

class Heartbeat {
 public:
  explicit Heartbeat(std::atomic<uint64_t> &counter);
  // Stops ticking and sets the counter to 0: "not watched".
  ~Heartbeat();
  Heartbeat(const Heartbeat &) = delete;
  Heartbeat &operator=(const Heartbeat &) = delete;

 private:
  std::atomic<uint64_t> &counter_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace rdsm
