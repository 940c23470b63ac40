// Tests of the strided-run tracker behind the strided prefetch and the
// strided write-ahead (protocol/stride_run.hpp).
#include <gtest/gtest.h>

#include "protocol/stride_run.hpp"

namespace {

using rdsm::StrideRun;

TEST(StrideRun, ThirdFaultAtConstantStrideStartsARun) {
  StrideRun r;
  EXPECT_EQ(r.observe(100), 0);
  EXPECT_EQ(r.observe(108), 0);
  EXPECT_EQ(r.observe(116), 8);
  EXPECT_EQ(r.window(16, 64), 16);  // 3 covered: the floor
}

TEST(StrideRun, DescendingStridesCountToo) {
  StrideRun r;
  r.observe(500);
  r.observe(480);
  EXPECT_EQ(r.observe(460), -20);
}

TEST(StrideRun, NeighboursAndFarJumpsAreNoStride) {
  StrideRun a;
  a.observe(10);
  a.observe(11);
  EXPECT_EQ(a.observe(12), 0);  // a sequential stream, handled elsewhere
  StrideRun b;
  b.observe(0);
  b.observe(StrideRun::kMaxStride + 1);
  EXPECT_EQ(b.observe(2 * (StrideRun::kMaxStride + 1)), 0);
  StrideRun c;
  c.observe(0);
  c.observe(8);
  EXPECT_EQ(c.observe(20), 0);  // not constant
}

TEST(StrideRun, FaultPastThePagesBroughtContinuesAndGrows) {
  StrideRun r;
  r.observe(0);
  r.observe(4);
  ASSERT_EQ(r.observe(8), 4);
  size_t w = r.window(8, 64);
  EXPECT_EQ(w, 8u);
  r.advanced(8, w);  // pages 12 .. 40 brought
  EXPECT_EQ(r.observe(8 + 4 * (w + 1)), 4);  // 44: the run goes on
  EXPECT_EQ(r.window(8, 64), 24u);            // 12 covered, twice that
  r.advanced(44, 24);
  EXPECT_EQ(r.observe(44 + 4 * 25), 4);
  EXPECT_EQ(r.window(8, 64), 64u);  // capped
}

TEST(StrideRun, FaultElsewhereEndsTheRun) {
  StrideRun r;
  r.observe(0);
  r.observe(4);
  ASSERT_EQ(r.observe(8), 4);
  r.advanced(8, 8);
  EXPECT_EQ(r.observe(1000), 0);
  EXPECT_EQ(r.stride(), 0);
  EXPECT_EQ(r.window(8, 64), 8u);
}

TEST(StrideRun, RunStoppedShortExpectsTheNextPageAlongIt) {
  StrideRun r;
  r.observe(0);
  r.observe(4);
  ASSERT_EQ(r.observe(8), 4);
  r.advanced(8, 0);  // nothing could be brought
  EXPECT_EQ(r.observe(12), 4);
}

}  // namespace
