// Where a fork-join master's data is homed at CREATE: its allocations as
// wholes, block by default when it wrote them (or always, where homes
// migrate), as asked otherwise; and
// which of the held pages each node copies.
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <tuple>
#include <vector>

#include "api/seed_homes.hpp"

using namespace rdsm;

namespace {

using Range = std::tuple<uint64_t, uint64_t, int>;  // first, count, placement
using PagesAt = std::pair<uint64_t, uint64_t>;

std::vector<Range> ranges(const SeedPlan &plan) {
  std::vector<Range> out;
  for (const SeededRange &r : plan.placed) out.emplace_back(r.first, r.count, (int)r.placement);
  return out;
}

std::vector<PagesAt> share(const SeedPlan &plan, int nodes, int node) {
  std::vector<PagesAt> out;
  for (const PageRun &r : seeded_share(plan, nodes, node)) out.emplace_back(r.first, r.count);
  return out;
}

}  // namespace

TEST(SeedHomes, WrittenFirstTouchAllocationsAreBlocksUnwrittenAreLeft) {
  // [0,16) written in part, [16,32) never written, [32,40) written whole.
  std::vector<AllocationSpan> spans{{0, 16, RDSM_PLACE_FIRST_TOUCH},
                                    {16, 16, RDSM_PLACE_FIRST_TOUCH},
                                    {32, 8, RDSM_PLACE_FIRST_TOUCH}};
  SeedPlan plan = plan_seeded_homes({{4, 4}, {32, 8}}, spans, false);
  EXPECT_EQ(ranges(plan), (std::vector<Range>{{0, 16, RDSM_PLACE_BLOCK}, {32, 8, RDSM_PLACE_BLOCK}}));
  // Node 1 holds the second half of each: of the held pages, [36,40) only
  // ([4,8) is in the first half of [0,16)).
  EXPECT_EQ(share(plan, 2, 1), (std::vector<PagesAt>{{36, 4}}));
  EXPECT_EQ(share(plan, 2, 0), (std::vector<PagesAt>{{4, 4}, {32, 4}}));
}

TEST(SeedHomes, WhereHomesMigrateUnwrittenAllocationsAreBlocksToo) {
  // The same master as above: [16,32), never written, goes in blocks too,
  // and there is nothing of it to copy.
  std::vector<AllocationSpan> spans{{0, 16, RDSM_PLACE_FIRST_TOUCH},
                                    {16, 16, RDSM_PLACE_FIRST_TOUCH},
                                    {32, 8, RDSM_PLACE_FIRST_TOUCH}};
  SeedPlan plan = plan_seeded_homes({{4, 4}, {32, 8}}, spans, true);
  EXPECT_EQ(ranges(plan), (std::vector<Range>{{0, 16, RDSM_PLACE_BLOCK},
                                              {16, 16, RDSM_PLACE_BLOCK},
                                              {32, 8, RDSM_PLACE_BLOCK}}));
  EXPECT_EQ(share(plan, 2, 1), (std::vector<PagesAt>{{36, 4}}));
  EXPECT_EQ(share(plan, 2, 0), (std::vector<PagesAt>{{4, 4}, {32, 4}}));
  // An asked placement stays what it was.
  SeedPlan asked = plan_seeded_homes({}, {{0, 4, RDSM_PLACE_CYCLIC}, {4, 4, RDSM_PLACE_LOCAL}}, true);
  EXPECT_EQ(ranges(asked), (std::vector<Range>{{0, 4, RDSM_PLACE_CYCLIC}, {4, 4, RDSM_PLACE_LOCAL}}));
}

TEST(SeedHomes, AskedPlacementsAreKeptWrittenOrNot) {
  std::vector<AllocationSpan> spans{{0, 4, RDSM_PLACE_CYCLIC}, {4, 4, RDSM_PLACE_LOCAL}, {8, 6, RDSM_PLACE_BLOCK}};
  SeedPlan plan = plan_seeded_homes({{0, 4}, {4, 4}}, spans, false);
  EXPECT_EQ(ranges(plan), (std::vector<Range>{{0, 4, RDSM_PLACE_CYCLIC},
                                              {4, 4, RDSM_PLACE_LOCAL},
                                              {8, 6, RDSM_PLACE_BLOCK}}));
  // Cyclic: page p at node p % 3; local: the master; the block
  // allocation holds nothing to copy.
  EXPECT_EQ(share(plan, 3, 1), (std::vector<PagesAt>{{1, 1}}));
  EXPECT_EQ(share(plan, 3, 2), (std::vector<PagesAt>{{2, 1}}));
  EXPECT_EQ(share(plan, 3, 0), (std::vector<PagesAt>{{0, 1}, {3, 5}}));
}

TEST(SeedHomes, HeldPagesOutsideAllocationsStayAtTheMaster) {
  // Small blocks in chunks before, between and after the master's arrays.
  std::vector<AllocationSpan> spans{{10, 10, RDSM_PLACE_FIRST_TOUCH}, {30, 4, RDSM_PLACE_FIRST_TOUCH}};
  SeedPlan plan = plan_seeded_homes({{0, 2}, {8, 30}, {50, 1}}, spans, false);
  EXPECT_EQ(ranges(plan), (std::vector<Range>{{0, 2, RDSM_PLACE_LOCAL},
                                              {8, 2, RDSM_PLACE_LOCAL},
                                              {10, 10, RDSM_PLACE_BLOCK},
                                              {20, 10, RDSM_PLACE_LOCAL},
                                              {30, 4, RDSM_PLACE_BLOCK},
                                              {34, 4, RDSM_PLACE_LOCAL},
                                              {50, 1, RDSM_PLACE_LOCAL}}));
  EXPECT_EQ(share(plan, 2, 1), (std::vector<PagesAt>{{15, 5}, {32, 2}}));
}

TEST(SeedHomes, EveryHeldPageHasExactlyOneNode) {
  std::vector<AllocationSpan> spans{{0, 7, RDSM_PLACE_FIRST_TOUCH}, {7, 13, RDSM_PLACE_CYCLIC}};
  SeedPlan plan = plan_seeded_homes({{0, 20}}, spans, false);
  std::vector<int> seen(20, 0);
  for (int node = 0; node < 4; ++node)
    for (const PagesAt &r : share(plan, 4, node))
      for (uint64_t p = r.first; p < r.first + r.second; ++p) ++seen[p];
  for (uint64_t p = 0; p < 20; ++p) EXPECT_EQ(seen[p], 1) << "page " << p;
}

TEST(SeedHomes, AWorkerCopiesItsShareOnly) {
  constexpr uint64_t kPage = 4096, kOffset = 2 * kPage;
  int master = memfd_create("seed_master", 0), worker = memfd_create("seed_worker", 0);
  ASSERT_EQ(ftruncate(master, (off_t)(kOffset + 8 * kPage)), 0);
  ASSERT_EQ(ftruncate(worker, (off_t)(kOffset + 8 * kPage)), 0);
  std::vector<uint8_t> page(kPage);
  for (uint64_t p = 0; p < 8; ++p) {
    std::fill(page.begin(), page.end(), uint8_t(p + 1));
    ASSERT_EQ(pwrite(master, page.data(), kPage, (off_t)(kOffset + p * kPage)), (ssize_t)kPage);
  }
  SeedPlan plan = plan_seeded_homes({{0, 8}}, {{0, 8, RDSM_PLACE_FIRST_TOUCH}}, false);
  plan.data_offset = kOffset;
  copy_seeded_pages(plan, 2, 1, master, worker, SharePart::all);
  for (uint64_t p = 0; p < 8; ++p) {
    ASSERT_EQ(pread(worker, page.data(), kPage, (off_t)(kOffset + p * kPage)), (ssize_t)kPage);
    const uint8_t want = p >= 4 ? uint8_t(p + 1) : 0;
    EXPECT_EQ(page[0], want) << "page " << p;
    EXPECT_EQ(page[kPage - 1], want) << "page " << p;
  }
  close(master);
  close(worker);
}

// The master copies the first 1/nodes of a worker's share, the worker the
// rest: each part alone lands only its own pages, and the two make the
// whole share, across runs of the share (pages of two allocations).
TEST(SeedHomes, TheMasterAndTheWorkerCopyTheShareBetweenThem) {
  constexpr uint64_t kPage = 4096, kOffset = 2 * kPage, kPages = 24;
  int master = memfd_create("seed_master", 0);
  ASSERT_EQ(ftruncate(master, (off_t)(kOffset + kPages * kPage)), 0);
  std::vector<uint8_t> page(kPage);
  for (uint64_t p = 0; p < kPages; ++p) {
    std::fill(page.begin(), page.end(), uint8_t(p + 1));
    ASSERT_EQ(pwrite(master, page.data(), kPage, (off_t)(kOffset + p * kPage)), (ssize_t)kPage);
  }
  // Two allocations of 12 pages over 3 nodes: node 2 homes pages 8-11 and 20-23.
  SeedPlan plan = plan_seeded_homes({{0, kPages}}, {{0, 12, RDSM_PLACE_FIRST_TOUCH}, {12, 12, RDSM_PLACE_FIRST_TOUCH}},
                                    false);
  plan.data_offset = kOffset;
  auto copied = [&](SharePart part) {
    int worker = memfd_create("seed_worker", 0);
    EXPECT_EQ(ftruncate(worker, (off_t)(kOffset + kPages * kPage)), 0);
    copy_seeded_pages(plan, 3, 2, master, worker, part);
    std::vector<uint64_t> pages;
    for (uint64_t p = 0; p < kPages; ++p) {
      EXPECT_EQ(pread(worker, page.data(), kPage, (off_t)(kOffset + p * kPage)), (ssize_t)kPage);
      if (page[0] == 0) continue;
      EXPECT_EQ(page[0], uint8_t(p + 1)) << "page " << p;
      EXPECT_EQ(page[kPage - 1], uint8_t(p + 1)) << "page " << p;
      pages.push_back(p);
    }
    close(worker);
    return pages;
  };
  // 8 pages in the share: the master's 8 / 3 = 2, the first of them.
  EXPECT_EQ(copied(SharePart::master), (std::vector<uint64_t>{8, 9}));
  EXPECT_EQ(copied(SharePart::worker), (std::vector<uint64_t>{10, 11, 20, 21, 22, 23}));
  EXPECT_EQ(copied(SharePart::all), (std::vector<uint64_t>{8, 9, 10, 11, 20, 21, 22, 23}));
  close(master);
}
