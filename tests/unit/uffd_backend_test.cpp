// The uffd backend: protections are page mappings, faults are SIGBUS, data
// lives in the file whatever the protection, and no VMA is split.
#include <gtest/gtest.h>

#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <vector>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "memory/protection_batch.hpp"
#include "test_region.hpp"
#include "memory/uffd_sys.hpp"

using namespace rdsm;

namespace {

// A region of `pages` pages under the uffd backend.
struct UffdRegion : TestRegion {
  explicit UffdRegion(size_t pages, bool scan = false) : TestRegion(pages, "uffd", 0x320000000000ull, scan) {}
};

// Whether the access completes without SIGBUS.
bool try_access(volatile uint8_t *p, bool write) { return rdsm::try_access(p, write, SIGBUS); }

// Mappings of the process that overlap [p, p + bytes).
int vmas_over(const void *p, size_t bytes) {
  FILE *f = fopen("/proc/self/maps", "r");
  uintptr_t lo = reinterpret_cast<uintptr_t>(p), hi = lo + bytes;
  int n = 0;
  unsigned long a, b;
  char line[512];
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "%lx-%lx", &a, &b) == 2 && a < hi && b > lo) ++n;
  fclose(f);
  return n;
}

bool skip() { return !uffd::unavailable_reason().empty(); }

}  // namespace

TEST(UffdBackend, ProtectionsHoldAndDataStaysInTheFile) {
  if (skip()) GTEST_SKIP() << uffd::unavailable_reason();
  UffdRegion t(8);
  SharedRegion &r = *t.region;
  EXPECT_EQ(r.memory_backend(), MemoryBackend::uffd);
  EXPECT_FALSE(try_access(r.app_page(0), false));
  r.sys_page(0)[0] = 42;
  r.protect(0, 1, Prot::read);
  EXPECT_TRUE(try_access(r.app_page(0), false));
  EXPECT_EQ(r.app_page(0)[0], 42);
  EXPECT_FALSE(try_access(r.app_page(0), true));
  r.protect(0, 1, Prot::read_write);
  EXPECT_TRUE(try_access(r.app_page(0), true));
  r.app_page(0)[1] = 7;
  EXPECT_EQ(r.sys_page(0)[1], 7);
  r.protect(0, 1, Prot::none);
  EXPECT_FALSE(try_access(r.app_page(0), false));
  r.sys_page(0)[2] = 9;  // written while invalid, seen when valid again
  r.protect(0, 1, Prot::read);
  EXPECT_EQ(r.app_page(0)[2], 9);
  EXPECT_EQ(r.app_page(0)[1], 7);
  EXPECT_FALSE(try_access(r.app_page(0), true));
}

TEST(UffdBackend, PagesNeverWrittenCanBeMapped) {
  if (skip()) GTEST_SKIP() << uffd::unavailable_reason();
  UffdRegion t(8);
  SharedRegion &r = *t.region;
  r.protect(2, 3, Prot::read);  // holes in the file
  for (size_t p = 2; p < 5; ++p) {
    EXPECT_TRUE(try_access(r.app_page(p), false));
    EXPECT_EQ(r.app_page(p)[0], 0);
    EXPECT_FALSE(try_access(r.app_page(p), true));
  }
  r.protect(5, 1, Prot::read_write);
  EXPECT_TRUE(try_access(r.app_page(5), true));
}

TEST(UffdBackend, AlternatingProtectionsKeepOneMapping) {
  if (skip()) GTEST_SKIP() << uffd::unavailable_reason();
  UffdRegion t(256);
  SharedRegion &r = *t.region;
  ProtectionBatch b(r);
  for (size_t p = 0; p < 256; ++p) b.set(p, p % 3 == 0 ? Prot::read : p % 3 == 1 ? Prot::read_write : Prot::none);
  b.apply();
  EXPECT_EQ(vmas_over(r.app(), r.bytes()), 1);
  for (size_t p = 0; p < 12; ++p) {
    EXPECT_EQ(try_access(r.app_page(p), false), p % 3 != 2) << p;
    EXPECT_EQ(try_access(r.app_page(p), true), p % 3 == 1) << p;
  }
}

// Pages dropped in pairs with unmapped pages between them (the copies a
// node read of every other pair of another node's pages) go in one change;
// a mapped page between two runs keeps them apart and stays mapped.
TEST(UffdBackend, DropsAcrossUnmappedPagesInOneChange) {
  if (skip()) GTEST_SKIP() << uffd::unavailable_reason();
  UffdRegion t(32);
  SharedRegion &r = *t.region;
  const std::vector<size_t> copies = {2, 3, 6, 7, 10, 11};
  for (size_t p : copies) {
    r.sys_page(p)[0] = uint8_t(p);
    r.protect(p, 1, Prot::read);
  }
  ProtectionBatch b(r);
  for (size_t p : copies) b.set(p, Prot::none);
  EXPECT_EQ(b.apply(), 1u);
  for (size_t p = 0; p < 16; ++p) EXPECT_FALSE(try_access(r.app_page(p), false)) << p;
  for (size_t p : copies) EXPECT_EQ(r.sys_page(p)[0], uint8_t(p));  // the file keeps the data
  r.protect(20, 2, Prot::read);
  r.protect(23, 1, Prot::read);  // stays
  r.protect(26, 2, Prot::read);
  for (size_t p : {20, 21, 26, 27}) b.set(p, Prot::none);
  EXPECT_EQ(b.apply(), 2u);
  EXPECT_TRUE(try_access(r.app_page(23), false));
  for (size_t p : {20, 21, 26, 27}) EXPECT_FALSE(try_access(r.app_page(p), false)) << p;
  // Back again: each page maps with its data.
  r.protect(6, 1, Prot::read);
  EXPECT_EQ(r.app_page(6)[0], 6);
}

TEST(UffdBackend, WholeRegionReadWriteIsAPlainMapping) {
  if (skip()) GTEST_SKIP() << uffd::unavailable_reason();
  UffdRegion t(16);
  SharedRegion &r = *t.region;
  r.protect(0, 16, Prot::read_write);
  EXPECT_FALSE(r.expects_faults());
  for (size_t p = 0; p < 16; ++p) EXPECT_TRUE(try_access(r.app_page(p), true));
  r.protect(3, 1, Prot::none);  // protections again
  EXPECT_TRUE(r.expects_faults());
  EXPECT_FALSE(try_access(r.app_page(3), false));
  EXPECT_TRUE(try_access(r.app_page(4), true));
}

// Which pages a reader may read in the view without a fault reaching the
// protocol: any page of a plain mapping; under protections, the mapped ones.
TEST(UffdBackend, SaysWhichPagesReadInPlace) {
  if (skip()) GTEST_SKIP() << uffd::unavailable_reason();
  UffdRegion t(8);
  SharedRegion &r = *t.region;
  for (size_t p = 0; p < 8; ++p) EXPECT_FALSE(r.mapped_readable(p)) << "page " << p;
  r.protect(1, 1, Prot::read);
  r.protect(2, 1, Prot::read_write);
  for (size_t p = 0; p < 8; ++p) EXPECT_EQ(r.mapped_readable(p), p == 1 || p == 2) << "page " << p;
  r.protect(2, 1, Prot::none);
  EXPECT_FALSE(r.mapped_readable(2));
  r.protect(0, 8, Prot::read_write);  // a plain mapping
  for (size_t p = 0; p < 8; ++p) EXPECT_TRUE(r.mapped_readable(p)) << "page " << p;
  for (size_t p = 0; p < 8; ++p) EXPECT_TRUE(try_access(r.app_page(p), false));
}

// Whether page `p` of `r` is mapped with its write protection lifted (a
// write went through since it was last protected), read from the page
// tables without protecting anything.
bool written_unprotected(SharedRegion &r, size_t p) {
  int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  std::vector<uint32_t> v;
  bool ok = uffd::scan_written(pm, r.app_page(0), r.app_page(p), 4096, v, false);
  close(pm);
  return ok && v == std::vector<uint32_t>{(uint32_t)p};
}

// Scan mode: writes to read-only pages go through, a scan finds exactly the
// pages written since they were last watched and watches them again;
// unwatched pages stay writable, are never found, and the scan leaves them
// alone even between watched ones; rearm watches them again.
TEST(UffdBackend, ScanModeFindsTheWrittenPages) {
  if (!uffd::scan_unavailable_reason().empty()) GTEST_SKIP() << uffd::scan_unavailable_reason();
  UffdRegion t(1200, true);  // three page tables' worth
  SharedRegion &r = *t.region;
  ASSERT_TRUE(r.writes_async());
  r.protect(0, 1000, Prot::read);
  std::vector<uint32_t> found;
  r.collect_written(found);
  EXPECT_TRUE(found.empty());  // mapped read-only: nothing written yet
  for (size_t p : {3, 4, 700, 999}) EXPECT_TRUE(try_access(r.app_page(p), true)) << p;
  EXPECT_TRUE(try_access(r.app_page(5), false));  // read: not found
  r.collect_written(found);
  EXPECT_EQ(found, (std::vector<uint32_t>{3, 4, 700, 999}));
  EXPECT_FALSE(written_unprotected(r, 3));  // protected again by the scan
  found.clear();
  r.collect_written(found);  // nothing written since
  EXPECT_TRUE(found.empty());
  r.app_page(5)[0] = 1;
  r.collect_written(found);
  EXPECT_EQ(found, (std::vector<uint32_t>{5}));
  found.clear();
  r.app_page(5)[0] = 2;  // found again: still watched
  r.collect_written(found);
  EXPECT_EQ(found, (std::vector<uint32_t>{5}));
  // Unwatched, between watched pages: writable, never found, and not
  // protected by the scans of its neighbours.
  r.unwatch({5});
  found.clear();
  r.app_page(4)[0] = 1;
  r.app_page(5)[0] = 3;
  r.app_page(6)[0] = 1;
  r.collect_written(found);
  EXPECT_EQ(found, (std::vector<uint32_t>{4, 6}));
  EXPECT_TRUE(written_unprotected(r, 5));
  found.clear();
  r.app_page(5)[0] = 4;
  r.collect_written(found);
  EXPECT_TRUE(found.empty());
  r.rearm({5});
  EXPECT_FALSE(written_unprotected(r, 5));
  r.collect_written(found);
  EXPECT_TRUE(found.empty());
  r.app_page(5)[1] = 1;
  r.collect_written(found);
  EXPECT_EQ(found, (std::vector<uint32_t>{5}));
  // Invalid pages are not found, and still fault.
  r.app_page(700)[0] = 3;
  r.app_page(999)[0] = 3;
  r.protect(700, 1, Prot::none);
  r.protect(1100, 1, Prot::none);
  found.clear();
  r.collect_written(found);
  EXPECT_EQ(found, (std::vector<uint32_t>{999}));
  EXPECT_FALSE(try_access(r.app_page(700), true));
  EXPECT_FALSE(try_access(r.app_page(1100), false));
}
