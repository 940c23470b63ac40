// How much memory the kernel can give without swapping.
#pragma once
#include <cstddef>
#include <cstdio>

namespace rdsm {

// MemAvailable of /proc/meminfo, in bytes; 0 when the kernel does not say.
inline size_t available_memory_bytes() {
  FILE *f = fopen("/proc/meminfo", "r");
  if (!f) return 0;
  char line[256];
  long kb = -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %ld kB", &kb) == 1) break;
  fclose(f);
  return kb > 0 ? (size_t)kb * 1024 : 0;
}

}  // namespace rdsm
