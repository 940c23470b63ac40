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

// A transpose of tiles: rows of 4 pages, a node's columns 2 pages of each;
// it reads the first page of its columns down every row, then the second.
TEST(StrideRun, NextColumnOfTheSameRowsWidensTheNextTranspose) {
  StrideRun r;
  for (size_t p : {18, 22}) r.observe(p);
  ASSERT_EQ(r.observe(26), 4);
  EXPECT_EQ(r.width(), 1u);  // nothing learnt yet
  r.advanced(26, 16);
  // The second column, from another row than the first began at.
  for (size_t p : {3, 7}) r.observe(p);
  ASSERT_EQ(r.observe(11), 4);
  EXPECT_EQ(r.width(), 1u);  // this run is that column alone
  r.advanced(11, 16);
  // The next transpose (its columns start where the first one's did, in
  // other rows): a new chain of stride 4, two pages wide at once.
  for (size_t p : {1002, 1006}) r.observe(p);
  ASSERT_EQ(r.observe(1010), 4);
  EXPECT_EQ(r.width(), 2u);
}

TEST(StrideRun, WidthIsKeptPerStrideAndBelowTheStride) {
  StrideRun r;
  // Stride 2: columns 0 and 1 of rows of 2 pages; the width stays 1 (a
  // row of the stride's own width is a sequential stream).
  for (size_t p : {0, 2, 4}) r.observe(p);
  r.advanced(4, 8);
  for (size_t p : {1, 3, 5}) r.observe(p);
  r.advanced(5, 8);
  for (size_t p : {500, 502}) r.observe(p);
  ASSERT_EQ(r.observe(504), 2);
  EXPECT_EQ(r.width(), 1u);
  // Another stride learnt nothing.
  for (size_t p : {2000, 2010}) r.observe(p);
  ASSERT_EQ(r.observe(2020), 10);
  EXPECT_EQ(r.width(), 1u);
}

TEST(StrideRun, UnrelatedRunOfTheSameStrideDoesNotWiden) {
  StrideRun r;
  for (size_t p : {16, 24}) r.observe(p);
  ASSERT_EQ(r.observe(32), 8);
  r.advanced(32, 4);
  // Same stride, but a column three pages on: not the next one.
  for (size_t p : {3, 11}) r.observe(p);
  ASSERT_EQ(r.observe(19), 8);
  for (size_t p : {4000, 4008}) r.observe(p);
  ASSERT_EQ(r.observe(4016), 8);
  EXPECT_EQ(r.width(), 1u);
}

// LU: the next column of blocks is read at the next step, in a later
// interval, after the last step rewrote the rows: not a wider row.
TEST(StrideRun, ColumnsOfDifferentIntervalsDoNotWiden) {
  StrideRun r;
  for (size_t p : {16, 80}) r.observe(p);
  ASSERT_EQ(r.observe(144), 64);
  r.advanced(144, 8);
  r.end_chain();
  for (size_t p : {17, 81}) r.observe(p);
  ASSERT_EQ(r.observe(145), 64);
  r.advanced(145, 8);
  r.end_chain();
  for (size_t p : {4112, 4176}) r.observe(p);
  ASSERT_EQ(r.observe(4240), 64);
  EXPECT_EQ(r.width(), 1u);
}

}  // namespace
