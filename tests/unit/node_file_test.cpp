// The pages of a node file that hold data: holes and pages of zeros are
// left out (they read the same in every node's file), short gaps are not.
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

#include "bootstrap/node_file.hpp"

using namespace rdsm;

namespace {
constexpr uint64_t kPage = 4096;

struct File {
  int fd = memfd_create("node_file_test", 0);
  explicit File(uint64_t pages) { EXPECT_EQ(ftruncate(fd, (off_t)(pages * kPage)), 0); }
  ~File() { close(fd); }
  // Writes page p: a value at `offset` (0: a page of zeros, written all the same).
  void write_page(uint64_t p, uint8_t value, size_t offset = 0) {
    std::vector<uint8_t> page(kPage, 0);
    page[offset] = value;
    ASSERT_EQ(pwrite(fd, page.data(), kPage, (off_t)(p * kPage)), (ssize_t)kPage);
  }
};

std::vector<std::pair<uint64_t, uint64_t>> runs_of(int fd, uint64_t off, uint64_t pages, uint64_t min_gap) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const PageRun &r : held_page_runs(fd, off, pages, min_gap)) out.emplace_back(r.first, r.count);
  return out;
}
}  // namespace

TEST(HeldPageRuns, HolesAndZeroPagesAreLeftOut) {
  File f(64);
  f.write_page(0, 1);
  f.write_page(1, 2, kPage - 1);  // its only non-zero byte is its last
  f.write_page(2, 0);             // written, but zeros
  f.write_page(4, 3);
  f.write_page(5, 4);
  f.write_page(41, 5);
  using Runs = std::vector<std::pair<uint64_t, uint64_t>>;
  EXPECT_EQ(runs_of(f.fd, 0, 64, 1), (Runs{{0, 2}, {4, 2}, {41, 1}}));
  // Gaps shorter than min_gap pages join the runs around them.
  EXPECT_EQ(runs_of(f.fd, 0, 64, 3), (Runs{{0, 6}, {41, 1}}));
  EXPECT_EQ(runs_of(f.fd, 0, 64, 64), (Runs{{0, 42}}));
  // Relative to the range asked about, and only within it.
  EXPECT_EQ(runs_of(f.fd, 4 * kPage, 10, 1), (Runs{{0, 2}}));
  EXPECT_EQ(runs_of(f.fd, 6 * kPage, 30, 1), Runs{});
}

TEST(HeldPageRuns, AFileOfZerosHoldsNothing) {
  File f(16);
  for (uint64_t p = 0; p < 16; p += 2) f.write_page(p, 0);
  EXPECT_TRUE(held_page_runs(f.fd, 0, 16, 1).empty());
  EXPECT_TRUE(held_page_runs(f.fd, 0, 0, 1).empty());
}

TEST(HeldPageRuns, PagesReadableInPlaceAreReadThere) {
  // A view of the file mapped already (the application view, where the
  // program touched its pages): the pages it offers are read there, the
  // others through the file, and the runs are the same either way.
  File f(32);
  f.write_page(0, 1);
  f.write_page(1, 2, 100);
  f.write_page(2, 0);
  f.write_page(7, 3, kPage - 1);
  f.write_page(20, 4);
  auto *view = static_cast<const uint8_t *>(mmap(nullptr, 32 * kPage, PROT_READ, MAP_SHARED, f.fd, 0));
  ASSERT_NE(view, MAP_FAILED);
  const auto want = held_page_runs(f.fd, 0, 32, 1);
  std::vector<uint64_t> asked;
  for (bool every_other : {false, true}) {
    asked.clear();
    const auto got = held_page_runs(f.fd, 0, 32, 1, [&](uint64_t p) -> const uint8_t * {
      asked.push_back(p);
      return every_other && p % 2 ? nullptr : view + p * kPage;
    });
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].first, want[i].first);
      EXPECT_EQ(got[i].count, want[i].count);
    }
    // Only pages that hold data are read (a hole read through a mapping would be filled).
    for (uint64_t p : asked) EXPECT_TRUE(p <= 2 || p == 7 || p == 20) << "page " << p;
    EXPECT_FALSE(asked.empty());
  }
  // What the view shows is what counts: a page offered in place as zeros is not held.
  static const uint8_t zeros[kPage] = {};
  const auto none = held_page_runs(f.fd, 0, 32, 1, [&](uint64_t) -> const uint8_t * { return zeros; });
  EXPECT_TRUE(none.empty());
  munmap(const_cast<uint8_t *>(view), 32 * kPage);
}
