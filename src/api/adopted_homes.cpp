#include "api/adopted_homes.hpp"

#include <cerrno>
#include <cstring>
#include <sys/mman.h>
#include <vector>

#include "common/error.hpp"
#include "memory/region.hpp"

namespace rdsm {

namespace {
// 64 KiB and longer: a mapping costs a system call and the page faults of
// reading through it, the copy about 0.2 us a page, so shorter runs are
// not worth a mapping of their own.
constexpr size_t kMinRunPages = 16;
// Each run splits the application view's mapping in up to three.
constexpr size_t kMaxRuns = 512;

struct Run {
  size_t first, count;
  int fd;
};
std::vector<Run> g_runs;
bool g_mapped = false;  // the runs are mapped over the current job's view

void map_file(SharedRegion &region, const Run &r, int fd, uint64_t data_offset, const char *why) {
  void *at = region.app_page(r.first);
  void *p = mmap(at, r.count * kPageBytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
                 (off_t)(data_offset + r.first * kPageBytes));
  if (p == MAP_FAILED)
    fatal("%s: cannot map %zu pages of shared memory at page %zu: %s (raise vm.max_map_count if it says out of "
          "memory)",
          why, r.count, r.first, strerror(errno));
}
}  // namespace

bool adopt_home_run(size_t first, size_t count, int fd) {
  if (g_mapped) fatal("internal error: a job ends while the last one's pages are still mapped from its workers");
  if (count < kMinRunPages || g_runs.size() >= kMaxRuns) return false;
  g_runs.push_back({first, count, fd});
  return true;
}

void map_adopted_runs(SharedRegion &region, uint64_t data_offset) {
  for (const Run &r : g_runs) map_file(region, r, r.fd, data_offset, "WAIT_FOR_END");
  g_mapped = !g_runs.empty();
}

void materialize_adopted_runs(SharedRegion &region, uint64_t data_offset, int file0) {
  for (const Run &r : g_runs) {
    memcpy(region.sys_page(r.first), region.app_page(r.first), r.count * kPageBytes);
    map_file(region, r, file0, data_offset, "CREATE");
  }
  g_runs.clear();
  g_mapped = false;
}

}  // namespace rdsm
