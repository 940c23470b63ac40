// The file a fork-join master prepares for its first worker while it sets
// up alone: its data pages get memory up to what the master allocated,
// within the budget, and nothing else of the file does; take() hands it
// over; pause() stops the thread and keeps the file, which is closed if
// nobody takes it.
#include "api/spare_worker_file.hpp"

#include <chrono>
#include <cstring>
#include <dirent.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>
#include <gtest/gtest.h>

#include "bootstrap/node_file.hpp"

namespace rdsm::fj {
namespace {

constexpr uint64_t kDataOffset = 8 << 20;  // as a node file's data segment lies after its other segments
constexpr uint64_t kMiB = 1 << 20;

bool wait_prepared(const SpareWorkerFile &s, uint64_t bytes) {
  for (int i = 0; i < 5000 && s.prepared_bytes() < bytes; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return s.prepared_bytes() >= bytes;
}

uint64_t allocated_bytes(int fd) {
  struct stat st{};
  EXPECT_EQ(fstat(fd, &st), 0);
  return (uint64_t)st.st_blocks * 512;
}

int open_fds() {
  int n = 0;
  DIR *d = opendir("/proc/self/fd");
  while (d && readdir(d)) ++n;
  if (d) closedir(d);
  return n;
}

TEST(SpareWorkerFile, GivesTheAllocatedDataItsMemoryAndHandsTheFileOver) {
  SpareWorkerFile s;
  EXPECT_EQ(s.take(), -1);  // none started
  s.start(kDataOffset, 3 * kMiB - 100, 64 * kMiB);
  ASSERT_TRUE(wait_prepared(s, 3 * kMiB));  // rounded up to whole pages
  s.grow(5 * kMiB);
  ASSERT_TRUE(wait_prepared(s, 5 * kMiB));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(s.prepared_bytes(), 5 * kMiB);  // no further than asked
  const int fd = s.take();
  ASSERT_GE(fd, 0);
  EXPECT_EQ(s.prepared_bytes(), 0u);
  EXPECT_EQ(s.take(), -1);  // handed over once
  EXPECT_EQ(allocated_bytes(fd), 5 * kMiB);
  // Memory only where the data segment is, and its pages read as zero.
  EXPECT_EQ(lseek(fd, 0, SEEK_DATA), (off_t)kDataOffset);
  EXPECT_EQ(lseek(fd, kDataOffset, SEEK_HOLE), (off_t)(kDataOffset + 5 * kMiB));
  std::vector<char> page(4096, 1), zeros(4096, 0);
  for (uint64_t at : {kDataOffset, kDataOffset + 2 * kMiB + 4096, kDataOffset + 5 * kMiB - 4096}) {
    ASSERT_EQ(pread(fd, page.data(), page.size(), (off_t)at), 4096);
    EXPECT_EQ(memcmp(page.data(), zeros.data(), 4096), 0);
  }
  // A node file's size, as a fresh one.
  struct stat st{};
  ASSERT_EQ(fstat(fd, &st), 0);
  EXPECT_EQ((uint64_t)st.st_size, kNodeFileBytes);
  close(fd);
}

TEST(SpareWorkerFile, StaysWithinItsBudget) {
  SpareWorkerFile s;
  s.start(kDataOffset, 4 * kMiB, kMiB + 100);
  ASSERT_TRUE(wait_prepared(s, kMiB));
  s.grow(8 * kMiB);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(s.prepared_bytes(), kMiB);
  const int fd = s.take();
  ASSERT_GE(fd, 0);
  EXPECT_EQ(allocated_bytes(fd), kMiB);
  close(fd);
}

TEST(SpareWorkerFile, NoBudgetMakesNoFile) {
  SpareWorkerFile s;
  s.start(kDataOffset, 4 * kMiB, 0);
  EXPECT_EQ(s.take(), -1);
}

TEST(SpareWorkerFile, PauseStopsTheThreadAndKeepsTheFile) {
  SpareWorkerFile s;
  s.pause();  // none: nothing
  s.start(kDataOffset, 2 * kMiB, 64 * kMiB);
  ASSERT_TRUE(wait_prepared(s, 2 * kMiB));
  s.pause();
  s.pause();  // twice is nothing
  s.grow(6 * kMiB);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(s.prepared_bytes(), 2 * kMiB);  // no thread to give it more
  const int fd = s.take();
  ASSERT_GE(fd, 0);
  EXPECT_EQ(allocated_bytes(fd), 2 * kMiB);
  close(fd);
}

TEST(SpareWorkerFile, AFileNobodyTookIsClosed) {
  const int before = open_fds();
  {
    SpareWorkerFile s;
    s.start(kDataOffset, 2 * kMiB, 64 * kMiB);
    ASSERT_TRUE(wait_prepared(s, 2 * kMiB));
    EXPECT_EQ(open_fds(), before + 1);
    s.pause();
    EXPECT_EQ(open_fds(), before + 1);  // kept
  }
  EXPECT_EQ(open_fds(), before);
}

TEST(SpareWorkerFile, TakeStopsAPreparationUnderWay) {
  SpareWorkerFile s;
  s.start(kDataOffset, 48 * kMiB, 64 * kMiB);
  const auto t0 = std::chrono::steady_clock::now();
  const int fd = s.take();
  const auto waited = std::chrono::steady_clock::now() - t0;
  ASSERT_GE(fd, 0);
  EXPECT_LT(waited, std::chrono::milliseconds(200));  // one chunk, not the whole file
  EXPECT_LE(allocated_bytes(fd), 48 * kMiB);
  close(fd);
}

}  // namespace
}  // namespace rdsm::fj
