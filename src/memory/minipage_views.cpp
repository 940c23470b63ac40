#include "memory/minipage_views.hpp"

#include <cerrno>
#include <cstring>
#include <sys/mman.h>

#include <algorithm>

#include "common/error.hpp"
#include "memory/backend.hpp"
#include "memory/region.hpp"

namespace rdsm {

ViewLayout minipage_layout(const Options &opt, size_t phys_pages) {
  ViewLayout l;
  l.phys_pages = phys_pages;
  if (opt.minipages == MinipageMode::off) return l;
  size_t area = std::min(kDefaultAreaPages, phys_pages / 4);
  if (choose_memory_backend(opt) == MemoryBackend::mprotect)
    area = std::min(area, mprotect_region_ceiling() / kPageBytes / 4 / (size_t)opt.minipage_views);
  if (area == 0)
    fatal("no room for minipages: a region of %zu pages%s leaves no page for %d views of a minipage area; use a "
          "larger --region-size, fewer RDSM_MINIPAGE_VIEWS, or RDSM_MINIPAGES=off",
          phys_pages,
          choose_memory_backend(opt) == MemoryBackend::mprotect ? " under the mprotect backend (vm.max_map_count)" : "",
          opt.minipage_views);
  l.area_pages = area;
  l.views = (size_t)opt.minipage_views;
  return l;
}

void map_minipage_views(uint8_t *app, const ViewLayout &layout, int fd, uint64_t fd_offset, int prot) {
  const size_t area_bytes = layout.area_pages * kPageBytes;
  const off_t area_offset = (off_t)(fd_offset + layout.area_first() * kPageBytes);
  for (size_t k = 0; k < layout.views; ++k) {
    uint8_t *want = app + layout.vpage(k, layout.area_first()) * kPageBytes;
    void *p = mmap(want, area_bytes, prot, MAP_SHARED | MAP_FIXED_NOREPLACE, fd, area_offset);
    if (p == MAP_FAILED || p != want) {
      int e = errno;
      if (p != MAP_FAILED) munmap(p, area_bytes);
      // The views mapped so far go with the main view (~SharedRegion unmaps the whole range).
      fatal("cannot map view %zu of the minipage area at %p (%zu MiB): %s; choose another RDSM_REGION_BASE, fewer "
            "RDSM_MINIPAGE_VIEWS, or RDSM_MINIPAGES=off",
            k, static_cast<void *>(want), area_bytes >> 20,
            p == MAP_FAILED ? (e == EEXIST ? "the address range is in use" : strerror(e)) : "placed elsewhere");
    }
  }
}

}  // namespace rdsm
