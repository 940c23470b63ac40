// Protection changes are coalesced into runs, and the runs really protect.
#include <gtest/gtest.h>

#include <csetjmp>
#include <csignal>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bootstrap/node_file.hpp"
#include "memory/region.hpp"
#include "memory/uffd_sys.hpp"
#include "memory/protection_batch.hpp"
#include "test_region.hpp"

using namespace rdsm;

namespace {
// A region of `pages` pages under the mprotect backend (these tests look for SIGSEGV).
struct MprotectRegion : TestRegion {
  explicit MprotectRegion(size_t pages) : TestRegion(pages, "mprotect", 0x310000000000ull) {}
};

bool readable(const volatile uint8_t *p) { return try_access(const_cast<volatile uint8_t *>(p), false, SIGSEGV); }
}  // namespace

TEST(ProtectionBatch, CoalescesAdjacentPagesWithEqualProtection) {
  MprotectRegion t(16);
  ProtectionBatch b(*t.region);
  for (size_t p : {5, 3, 4, 9, 10}) b.set(p, Prot::read);
  b.set(6, Prot::none);
  auto runs = b.runs();
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].first, 3u);
  EXPECT_EQ(runs[0].count, 3u);
  EXPECT_EQ(runs[1].first, 6u);
  EXPECT_EQ(runs[1].prot, Prot::none);
  EXPECT_EQ(runs[2].first, 9u);
  EXPECT_EQ(runs[2].count, 2u);
}

TEST(ProtectionBatch, LastChangeOfAPageWins) {
  MprotectRegion t(4);
  ProtectionBatch b(*t.region);
  b.set(1, Prot::read);
  b.set(1, Prot::none);
  b.set(2, Prot::none);
  auto runs = b.runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].first, 1u);
  EXPECT_EQ(runs[0].count, 2u);
  EXPECT_EQ(runs[0].prot, Prot::none);
}

TEST(ProtectionBatch, MovedChangesFollowTheOnesThereAndKeepOnlyFilters) {
  // A barrier's release hands its write protections to a batch applied
  // after the barrier's invalidations, which drops the pages they changed.
  MprotectRegion t(8);
  ProtectionBatch later(*t.region), release(*t.region);
  later.set(2, Prot::none);
  release.set(2, Prot::read);
  release.set(3, Prot::read);
  release.set(5, Prot::read);
  release.move_to(later);
  EXPECT_TRUE(release.empty());
  auto runs = later.runs();  // the moved change of page 2 comes after the one there
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].first, 2u);
  EXPECT_EQ(runs[0].count, 2u);
  EXPECT_EQ(runs[0].prot, Prot::read);
  for (size_t p : {2, 3, 5}) later.set(p, Prot::read);
  later.keep_only([](size_t p) { return p != 3; });
  runs = later.runs();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].first, 2u);
  EXPECT_EQ(runs[0].count, 1u);
  EXPECT_EQ(runs[1].first, 5u);
}

TEST(ProtectionBatch, ApplyProtectsTheApplicationViewOnly) {
  MprotectRegion t(8);
  ProtectionBatch b(*t.region);
  for (size_t p = 0; p < 8; ++p) b.set(p, p % 3 == 0 ? Prot::read : Prot::none);
  EXPECT_EQ(b.apply(), 6u);  // R N N R N N R N -> 6 runs
  EXPECT_TRUE(readable(t.region->app_page(0)));
  EXPECT_FALSE(readable(t.region->app_page(1)));
  EXPECT_TRUE(readable(t.region->app_page(3)));
  t.region->sys_page(1)[0] = 42;  // the system view stays read-write
  b.set(1, Prot::read_write);
  b.apply();
  EXPECT_EQ(t.region->app_page(1)[0], 42);
  t.region->app_page(1)[1] = 7;
  EXPECT_EQ(t.region->sys_page(1)[1], 7);
}

TEST(SharedRegion, ReportsAnAddressRangeInUse) {
  MprotectRegion t(4);
  EXPECT_EXIT(
      {
        fabric::Segment s = t.seg;
        SharedRegion again(t.opt, s);
      },
      ::testing::ExitedWithCode(2), "already in use");
}

// Memory given ahead of fetches stays within the job's budget
// (RDSM_PREPOPULATE), counted over all of a node's calls.
TEST(SharedRegion, PopulateWithinStopsAtTheBudget) {
  MprotectRegion t(16);
  const size_t budget = 5 * kPageBytes;
  EXPECT_EQ(t.region->populate_within(0, 4, 1, budget), 4u);
  EXPECT_EQ(t.region->populate_within(8, 4, 1, budget), 1u);  // one page left
  EXPECT_EQ(t.region->populate_within(12, 4, 1, budget), 0u);
  EXPECT_EQ(t.region->populate_within(16, 1, 1, size_t(1) << 30), 0u);  // past the region's end
  struct stat st;
  ASSERT_EQ(fstat(t.seg.fd, &st), 0);
  EXPECT_EQ((size_t)st.st_blocks * 512, budget) << "the memory file holds another amount than was populated";
}

// Populating a range the file holds parts of already gives every hole its
// memory (however many: past a few dozen, the rest in one call) and leaves
// the pages it had as they were.
TEST(SharedRegion, PopulateFillsTheHolesAndKeepsWhatTheFileHas) {
  for (size_t every : {3, 2}) {  // 16 holes, then 100: past the call limit
    MprotectRegion t(200);
    const size_t pages = every == 3 ? 48 : 200;
    for (size_t p = 0; p < pages; p += every) {
      const uint8_t mark = (uint8_t)(p + 1);
      ASSERT_EQ(pwrite(t.seg.fd, &mark, 1, (off_t)(p * kPageBytes + 7)), 1);
    }
    ASSERT_TRUE(t.region->populate(0, pages, 1));
    struct stat st;
    ASSERT_EQ(fstat(t.seg.fd, &st), 0);
    EXPECT_EQ((size_t)st.st_blocks * 512, pages * kPageBytes) << "every " << every;
    for (size_t p = 0; p < pages; ++p) {
      uint8_t b = 0xff;
      ASSERT_EQ(pread(t.seg.fd, &b, 1, (off_t)(p * kPageBytes + 7)), 1);
      EXPECT_EQ(b, p % every == 0 ? (uint8_t)(p + 1) : 0) << "page " << p;
    }
  }
}

TEST(Preflight, NamesMaxMapCountWhenTheRegionNeedsMoreMappings) {
  Options o;
  o.memory = "mprotect";
  o.region_bytes = size_t(200) << 30;  // 50 Mi pages: more than any vm.max_map_count
  EXPECT_EXIT(resolve_region_bytes(o), ::testing::ExitedWithCode(2), "vm.max_map_count");
}

TEST(Preflight, RejectsARegionPastTheUserAddressSpace) {
  Options o;
  o.region_bytes = size_t(64) << 20;
  o.region_base = 0x7ffff0000000ull;
  EXPECT_EXIT(resolve_region_bytes(o), ::testing::ExitedWithCode(2), "does not fit");
}

TEST(Preflight, RejectsARegionLargerThanSupported) {
  Options o;
  o.region_bytes = kMaxRegionBytes + (size_t(1) << 30);
  EXPECT_EXIT(resolve_region_bytes(o), ::testing::ExitedWithCode(2), "larger than rdsm supports.*--region-size");
}

TEST(Preflight, KeepsARegionAskedFor) {
  Options o;
  o.region_bytes = size_t(6) << 20;
  EXPECT_EQ(resolve_region_bytes(o), size_t(6) << 20);
}

TEST(DefaultRegion, MprotectTakesWhatMaxMapCountAllows) {
  Options o;
  o.memory = "mprotect";
  size_t bytes = default_region_bytes(o);
  EXPECT_LE(bytes, std::max(mprotect_region_ceiling(), size_t(2) << 20));
  EXPECT_GE(bytes, size_t(2) << 20);
  EXPECT_EQ(resolve_region_bytes(o), bytes);  // and it passes its own checks
}

TEST(DefaultRegion, UffdReservesTheFullDefault) {
  if (!uffd::unavailable_reason().empty()) GTEST_SKIP() << uffd::unavailable_reason();
  Options o;
  o.memory = "uffd";
  o.nodes = 4;
  EXPECT_EQ(default_region_bytes(o), kDefaultRegionBytes);
}

TEST(DefaultRegion, FitsBelowTheTopOfTheAddressSpace) {
  Options o;
  o.memory = "mprotect";
  o.region_base = 0x7ff000000000ull - (size_t(8) << 20);
  EXPECT_LE(default_region_bytes(o), size_t(8) << 20);
}
