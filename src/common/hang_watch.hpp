// Which silent nodes are hung: the rule the launcher applies to its nodes
// (launcher/job.cpp) and a fork-join master to its workers
// (api/worker_watch.cpp).  A node whose heartbeat has not moved for the
// hang timeout is hung only if, besides, it is stopped or its CPU time has
// stood still for a second (or the whole timeout, if shorter): a starved
// node on an overloaded machine still gets CPU time now and then, a
// stopped or frozen one none (process_cpu.hpp).
#pragma once
#include <algorithm>
#include <cstdint>
#include <sys/types.h>
#include <vector>

#include "common/process_cpu.hpp"

namespace rdsm {

class HangWatch {
 public:
  // `hang_seconds` <= 0: nobody is ever hung.
  HangWatch(size_t nodes, double hang_seconds, uint64_t now_ns)
      : limit_ns_(hang_seconds * 1e9),
        last_beat_(nodes, 0),
        since_ns_(nodes, now_ns),
        cpu_(nodes, UINT64_MAX),
        cpu_since_ns_(nodes, now_ns) {}

  // Node i (process `pid`) shows heartbeat `beat` at `now_ns`; `watched`:
  // false for a node that has ended.  A beat of 0 is a node in no job (not
  // started, between a fork-join master's jobs): not watched either.
  bool hung(size_t i, uint64_t beat, bool watched, pid_t pid, uint64_t now_ns) {
    if (limit_ns_ <= 0) return false;
    if (!watched || beat == 0 || beat != last_beat_[i]) {  // alive, or not watched: the clocks start again
      last_beat_[i] = beat;
      since_ns_[i] = cpu_since_ns_[i] = now_ns;
      cpu_[i] = UINT64_MAX;
      return false;
    }
    bool stopped = false;
    const uint64_t cpu = process_cpu_ticks(pid, &stopped);
    if (cpu == UINT64_MAX || cpu != cpu_[i]) {
      cpu_[i] = cpu;
      cpu_since_ns_[i] = now_ns;
    }
    return (double)(now_ns - since_ns_[i]) > limit_ns_ &&
           (stopped || (double)(now_ns - cpu_since_ns_[i]) > std::min(limit_ns_, kCpuStillNs));
  }

 private:
  static constexpr double kCpuStillNs = 1e9;
  double limit_ns_;
  std::vector<uint64_t> last_beat_, since_ns_, cpu_, cpu_since_ns_;
};

}  // namespace rdsm
