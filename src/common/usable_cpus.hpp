// How many CPUs this process may run on: its affinity mask (taskset, a
// cgroup's cpuset), or the online CPUs where the mask cannot be read.
// Decides whether waiting threads spin (each has a CPU of its own) and
// whether a job oversubscribes the host.
#pragma once
#include <sched.h>
#include <unistd.h>

namespace rdsm {

inline long usable_cpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? n : 1;
}

}  // namespace rdsm
