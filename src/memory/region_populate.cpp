// Memory for copies given ahead of the first fetch (region.hpp, populate).
//
// Measured on shmem: a page written into the memory file for the first
// time (pwrite or a copy through the system view) costs about 3 us; the
// same copy into a page that already has memory and a page-table entry
// costs 0.4 us.  A node fetches a page at the point where the program needs
// it, so that difference is paid in the program's critical path, once per
// page and node.  Giving the memory when the pages are allocated moves it to
// where programs set up their data.
#include <fcntl.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdio>

#include "common/available_memory.hpp"
#include "memory/madvise_populate.hpp"
#include "memory/region.hpp"

namespace rdsm {

namespace {
constexpr size_t kRereadBytes = size_t(64) << 20;
}  // namespace

bool SharedRegion::populate(size_t first, size_t count, int copies_of_each_page) {
  if (count == 0) return true;
  const size_t data_pages = bytes_ / kPageBytes;  // the minipage views share these
  if (first >= data_pages || count > data_pages - first) return false;
  size_t bytes = count * kPageBytes;
  // /proc/meminfo is read again only after a large step: programs allocate
  // small blocks by the thousand (a 64 KiB chunk each time).
  if (populated_since_read_ >= kRereadBytes || bytes >= kRereadBytes) {
    available_ = available_memory_bytes();
    populated_since_read_ = 0;
  }
  // Every node holding a copy may populate the same range: together they
  // must leave half of what is available to the program's own use.
  double copies = copies_of_each_page > 0 ? copies_of_each_page : 1;
  if (copies * (double)(populated_since_read_ + bytes) > (double)available_ / 2) return false;
  // Allocating first keeps a full memory file (a size-limited tmpfs) an
  // error code here instead of a SIGBUS in the populate.
  if (fallocate(fd_, 0, (off_t)(fd_offset_ + first * kPageBytes), (off_t)bytes) != 0) return false;
  populated_since_read_ += bytes;
  return true;
}

size_t SharedRegion::populate_within(size_t first, size_t count, int copies_of_each_page, size_t budget_bytes) {
  const size_t data_pages = bytes_ / kPageBytes;
  if (first >= data_pages || populated_within_ >= budget_bytes) return 0;
  count = std::min({count, data_pages - first, (budget_bytes - populated_within_) / kPageBytes});
  if (count == 0 || !populate(first, count, copies_of_each_page)) return 0;
  populated_within_ += count * kPageBytes;
  return count;
}

void SharedRegion::premap_system(size_t first, size_t count) {
  if (count) (void)madvise(sys_page(first), count * kPageBytes, MADV_POPULATE_WRITE);
}

// The peer's pages were given memory by the peer's own populate (or are
// about to be: a hole is filled here as it would be there, within the same
// budget, which counts every node's copies).  A read populate of a shared
// mapping maps them writable, so a one-sided diff does not fault either.
void SharedRegion::premap_peer(uint8_t *peer_pages, size_t bytes) {
  if (bytes) (void)madvise(peer_pages, bytes, MADV_POPULATE_READ);
}

void SharedRegion::populate_private(uint8_t *addr, size_t bytes) {
  if (bytes) (void)madvise(addr, bytes, MADV_POPULATE_WRITE);
}

}  // namespace rdsm
