#include "api/heartbeat.hpp"

#include <csignal>
#include <pthread.h>

namespace rdsm {

Heartbeat::Heartbeat(std::atomic<uint64_t> &counter) : counter_(counter) {
  counter_.store(1, std::memory_order_relaxed);
  thread_ = std::thread([this] {
    // Never the thread that takes the process's asynchronous signals.
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, nullptr);
    std::unique_lock<std::mutex> g(mu_);
    while (!cv_.wait_for(g, std::chrono::milliseconds(kHeartbeatPeriodMs), [this] { return stopping_; }))
      counter_.fetch_add(1, std::memory_order_relaxed);
  });
}

Heartbeat::~Heartbeat() {
  {
    std::lock_guard<std::mutex> g(mu_);
    stopping_ = true;
  }
  cv_.notify_one();
  thread_.join();
  counter_.store(0, std::memory_order_relaxed);
}

}  // namespace rdsm
