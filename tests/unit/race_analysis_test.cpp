// The race logs and their analysis, without a job: two nodes' recorders
// write logs as a job's would, and the analysis must find exactly the
// writes of the same bytes that no clock orders.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "races/race_analysis.hpp"
#include "races/race_job.hpp"
#include "races/race_recorder.hpp"

using namespace rdsm::races;

namespace {

constexpr uint64_t kBase = 0x200000000000ull;
constexpr uint64_t kPage = 4096;

class RaceLogs : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    ASSERT_TRUE(make_log_dir(&dir_, &error)) << error;
  }
  void TearDown() override { remove_log_dir(dir_); }

  RecorderSetup setup(int rank, uint64_t cap = 1 << 20) {
    RecorderSetup s;
    s.dir = dir_;
    s.job = 1;
    s.rank = rank;
    s.nodes = 2;
    s.cap_bytes = cap;
    s.region_base = kBase;
    s.page_bytes = kPage;
    return s;
  }

  std::string dir_;
};

}  // namespace

TEST_F(RaceLogs, ConcurrentWritesOfTheSameBytesAreARace) {
  RaceRecorder a(setup(0)), b(setup(1));
  a.add_bytes(3, 10, 4);  // bytes 10..13
  a.seal(1);
  b.add_bytes(3, 12, 4);  // bytes 12..15
  b.seal(1);
  a.finish();
  b.finish();
  RaceFindings f = analyse_race_logs(dir_);
  ASSERT_EQ(f.races.size(), 1u);
  EXPECT_EQ(f.races[0].address, kBase + 3 * kPage + 12);
  EXPECT_EQ(f.races[0].bytes, 2u);
  EXPECT_EQ(f.races[0].node_a, 0);
  EXPECT_EQ(f.races[0].node_b, 1);
  EXPECT_EQ(f.races[0].epoch, 0u);
  EXPECT_TRUE(f.gaps.empty());
  EXPECT_EQ(f.intervals, 2u);
}

TEST_F(RaceLogs, FalseSharingIsNoRace) {
  RaceRecorder a(setup(0)), b(setup(1));
  a.add_bytes(5, 0, 8);
  a.seal(1);
  b.add_bytes(5, 8, 8);
  b.seal(1);
  a.finish();
  b.finish();
  EXPECT_TRUE(analyse_race_logs(dir_).races.empty());
}

// Every other 8-byte word of a page: more runs than the mask is long, so
// the page is logged as its mask, and a page with the same pattern as a
// reference to it.
TEST_F(RaceLogs, PagesLoggedAsMasksAndReferences) {
  RaceRecorder a(setup(0)), b(setup(1));
  uint64_t red[kPage / 64], black[kPage / 64];
  for (size_t w = 0; w < kPage / 64; ++w) {
    red[w] = 0x00ff00ff00ff00ffull;
    black[w] = ~red[w];
  }
  for (uint32_t p = 10; p < 14; ++p) a.add_mask(p, red);
  a.seal(1);
  for (uint32_t p = 10; p < 13; ++p) b.add_mask(p, black);  // false sharing: no race
  b.add_bytes(13, 4, 16);  // bytes 4..19: 4..7 and 16..19 are red
  b.seal(1);
  a.finish();
  b.finish();
  RaceFindings f = analyse_race_logs(dir_);
  ASSERT_EQ(f.races.size(), 2u);
  EXPECT_EQ(f.races[0].address, kBase + 13 * kPage + 4);
  EXPECT_EQ(f.races[0].bytes, 4u);
  EXPECT_EQ(f.races[1].address, kBase + 13 * kPage + 16);
  EXPECT_EQ(f.races[1].bytes, 4u);
  EXPECT_EQ(f.page_writes, 8u);
}

TEST_F(RaceLogs, ALockPassesTheReleasersClockOn) {
  RaceRecorder a(setup(0)), b(setup(1));
  // Node 0 writes under a lock and releases it; node 1 acquires it (the
  // clock the release passed on) and writes the same bytes: ordered.
  a.add_bytes(4, 0, 8);
  a.seal(1);
  a.lock_released(7);
  b.merge(a.lock_clock(7));
  b.add_bytes(4, 0, 8);
  b.seal(1);
  // Node 0 writes them again, not having acquired anything from node 1:
  // that write and node 1's are concurrent.
  a.add_bytes(4, 4, 2);
  a.seal(2);
  a.finish();
  b.finish();
  RaceFindings f = analyse_race_logs(dir_);
  ASSERT_EQ(f.races.size(), 1u);
  EXPECT_EQ(f.races[0].address, kBase + 4 * kPage + 4);
  EXPECT_EQ(f.races[0].bytes, 2u);
}

TEST_F(RaceLogs, ABarrierOrdersEverythingBeforeIt) {
  RaceRecorder a(setup(0)), b(setup(1));
  a.add_bytes(6, 0, 8);
  a.seal(1);
  Clock target{1, 0};
  a.barrier_passed(target);
  b.barrier_passed(target);
  b.add_bytes(6, 0, 8);
  b.seal(1);
  a.finish();
  b.finish();
  RaceFindings f = analyse_race_logs(dir_);
  EXPECT_TRUE(f.races.empty());
  EXPECT_EQ(f.intervals, 2u);
}

TEST_F(RaceLogs, ALogPastItsCapSaysWhereItStopped) {
  RaceRecorder a(setup(0, 200)), b(setup(1));
  for (uint32_t i = 1; i <= 20; ++i) {
    a.add_bytes(i, 0, 8);
    a.seal(i);
  }
  b.add_bytes(20, 0, 8);
  b.seal(1);
  a.finish();
  b.finish();
  RaceFindings f = analyse_race_logs(dir_);
  ASSERT_EQ(f.gaps.size(), 1u);
  EXPECT_NE(f.gaps[0].find("node 0's race log reached its cap of 200 bytes in epoch 0"), std::string::npos)
      << f.gaps[0];
}

TEST_F(RaceLogs, AMissingLogIsAGap) {
  RaceRecorder a(setup(0)), b(setup(1));
  a.add_bytes(1, 0, 8);
  a.seal(1);
  b.add_bytes(1, 0, 8);
  b.seal(1);
  a.finish();
  // node 1 never finishes: its log is never written
  RaceFindings f = analyse_race_logs(dir_);
  ASSERT_EQ(f.gaps.size(), 1u);
  EXPECT_NE(f.gaps[0].find("node 1 left no race log"), std::string::npos) << f.gaps[0];
}
