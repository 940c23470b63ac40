// Which memory backend a process uses, decided once.
#include <cstdio>
#include <cstring>

#include "common/error.hpp"
#include "memory/backend.hpp"
#include "memory/region.hpp"
#include "memory/uffd_sys.hpp"

namespace rdsm {

namespace {

// Without RDSM_MEMORY: uffd where the kernel allows it, or mprotect always.
constexpr bool kDefaultIsUffd = true;

long max_map_count() {
  long v = -1;
  if (FILE *f = fopen("/proc/sys/vm/max_map_count", "r")) {
    if (fscanf(f, "%ld", &v) != 1) v = -1;
    fclose(f);
  }
  return v;
}

}  // namespace

const char *memory_backend_name(MemoryBackend b) { return b == MemoryBackend::uffd ? "uffd" : "mprotect"; }

MemoryBackend choose_memory_backend(const Options &opt) {
  if (opt.memory == "mprotect" || (opt.memory.empty() && !kDefaultIsUffd)) return MemoryBackend::mprotect;
  const std::string &why = uffd::unavailable_reason();
  if (opt.memory == "uffd") {
    if (!why.empty()) fatal("the uffd memory backend cannot run here: %s; use --memory mprotect (RDSM_MEMORY=mprotect for a "
                            "program started without rdsm run)",
                            why.c_str());
    return MemoryBackend::uffd;
  }
  if (why.empty()) return MemoryBackend::uffd;
  // Said once per process (a fork-join master's workers inherit the answer),
  // and by node 0 only.
  static bool said = false;
  if (!said && opt.rank == 0)
    warn("memory backend mprotect, not uffd: %s; the shared region is limited to about %ld MiB by "
         "vm.max_map_count=%ld",
         why.c_str(), (long)(mprotect_region_ceiling() >> 20), max_map_count());
  said = true;
  return MemoryBackend::mprotect;
}

}  // namespace rdsm
