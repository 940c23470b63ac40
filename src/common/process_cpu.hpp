// CPU time a process has used so far, from /proc/PID/stat (user + system,
// all threads, in clock ticks), or UINT64_MAX if it cannot be read; with
// `stopped`, also whether it is stopped (SIGSTOP, or stopped by a tracer).
//
// Hang detection uses it to tell a frozen node from a starved one: a node
// whose heartbeat has not moved for the timeout is hung only if none of
// its threads ran meanwhile either (stopped, frozen in the kernel).  On a
// machine with many more runnable threads than cores, a live node can miss
// a few heartbeats but still gets CPU time.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <sys/types.h>

namespace rdsm {

inline uint64_t process_cpu_ticks(pid_t pid, bool *stopped = nullptr) {
  if (stopped) *stopped = false;
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) return UINT64_MAX;
  char buf[1024];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  // The command name (field 2) may hold spaces and parentheses: the fields
  // after it start past the last ')'.  utime and stime are fields 14, 15.
  const char *p = strrchr(buf, ')');
  if (!p) return UINT64_MAX;
  unsigned long long utime = 0, stime = 0;
  char state = 0;
  if (sscanf(p + 1, " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &state, &utime, &stime) != 3)
    return UINT64_MAX;
  if (stopped) *stopped = state == 'T' || state == 't';
  return utime + stime;
}

}  // namespace rdsm
