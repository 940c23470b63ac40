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
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "common/available_memory.hpp"
#include "memory/madvise_populate.hpp"
#include "memory/region.hpp"

namespace rdsm {

namespace {
constexpr size_t kRereadBytes = size_t(64) << 20;
// Past this many holes in one range, the rest is given in one call.
constexpr int kMaxHoleCalls = 64;

// Gives the holes of [off, off + len) of the file their memory.  A page the
// file has already (a fork-join worker's file prepared ahead,
// spare_worker_file.hpp; what the master wrote) costs fallocate 0.13-0.18
// us to look at, against 0.03 us to skip as part of a run found by
// SEEK_HOLE (12,310 pages, measured on shmem).  (A page given memory by
// fallocate and never written still reads as a hole: given again, which
// costs what it did before.)
bool allocate_holes(int fd, off_t off, off_t len) {
  const off_t end = off + len;
  for (int calls = 0; off < end; ++calls) {
    const off_t hole = lseek(fd, off, SEEK_HOLE);
    if (hole < 0 || calls == kMaxHoleCalls) return fallocate(fd, 0, off, end - off) == 0;
    if (hole >= end) return true;
    const off_t data = lseek(fd, hole, SEEK_DATA);
    const off_t stop = data < 0 || data > end ? end : data;  // ENXIO: holes to the end of the file
    if (fallocate(fd, 0, hole, stop - hole) != 0) return false;
    off = stop;
  }
  return true;
}
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
  if (!allocate_holes(fd_, (off_t)(fd_offset_ + first * kPageBytes), (off_t)bytes)) return false;
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

// A read populate maps a shared memory file's pages writable (the kernel
// tracks no writes to it), at half the cost of a write populate where the
// pages have their memory (0.39 against 0.84 us a page, measured on shmem);
// where a kernel maps them read-only, the first write takes a fault of the
// kernel's own, and nothing else changes.
void SharedRegion::premap_system(size_t first, size_t count) { premap_shared(sys_page(first), count * kPageBytes); }

// A peer's pages were given memory by the peer's own populate (or are
// about to be: a hole is filled here as it would be there, within the same
// budget, which counts every node's copies).  A read populate of a shared
// mapping maps them writable, so a one-sided diff does not fault either.
void SharedRegion::premap_shared(uint8_t *pages, size_t bytes) {
  if (bytes) (void)madvise(pages, bytes, MADV_POPULATE_READ);
}

void SharedRegion::populate_private(uint8_t *addr, size_t bytes) {
  if (bytes) (void)madvise(addr, bytes, MADV_POPULATE_WRITE);
}

}  // namespace rdsm
