// Intervals, vector timestamps and the notice wire format.
#include <gtest/gtest.h>

#include "protocol/notices.hpp"

using namespace rdsm;

TEST(VClock, MergeTakesElementwiseMaximum) {
  VClock a{1, 5, 0}, b{3, 2, 0};
  vc_merge(a, b);
  EXPECT_EQ(a, (VClock{3, 5, 0}));
}

TEST(VClock, MergeGrowsShorterClock) {
  VClock a{1};
  vc_merge(a, VClock{0, 4});
  EXPECT_EQ(a, (VClock{1, 4}));
}

TEST(NoticeSet, EncodeDecodeRoundTrip) {
  NoticeSet s;
  s.vc = {3, 1, 7};
  s.intervals = {{0, 3, {1, 2, 99}}, {2, 7, {}}, {1, 1, {4096}}};
  auto bytes = s.encode();
  NoticeSet t;
  ASSERT_TRUE(t.decode(bytes.data(), bytes.size()));
  EXPECT_EQ(t.vc, s.vc);
  ASSERT_EQ(t.intervals.size(), 3u);
  EXPECT_EQ(t.intervals[0].pages, (std::vector<uint32_t>{1, 2, 99}));
  EXPECT_EQ(t.intervals[2].writer, 1u);
  EXPECT_EQ(t.intervals[2].pages, (std::vector<uint32_t>{4096}));
}

TEST(NoticeSet, RejectsTruncatedAndTrailingBytes) {
  NoticeSet s;
  s.vc = {1, 2};
  s.intervals = {{1, 2, {5, 6}}};
  auto bytes = s.encode();
  NoticeSet t;
  for (size_t cut = 0; cut < bytes.size(); ++cut) EXPECT_FALSE(t.decode(bytes.data(), cut)) << cut;
  bytes.push_back(0);
  EXPECT_FALSE(t.decode(bytes.data(), bytes.size()));
}

TEST(NoticeStore, LearnsOnlyNewIntervalsInOrder) {
  NoticeStore st(3);
  st.add_own(0, 1, {10});
  auto fresh = st.learn({{1, 1, {1}}, {1, 2, {2}}, {0, 1, {10}}});
  ASSERT_EQ(fresh.size(), 2u);  // own interval 1 of node 0 was known
  EXPECT_EQ(st.vc(), (VClock{1, 2, 0}));
  fresh = st.learn({{1, 2, {2}}, {1, 3, {3}}});
  ASSERT_EQ(fresh.size(), 1u);
  EXPECT_EQ(fresh[0].id, 3u);
}

TEST(NoticeStore, SinceReturnsWhatTheAcquirerLacks) {
  NoticeStore st(2);
  st.add_own(0, 1, {1});
  st.add_own(0, 2, {2});
  st.learn({{1, 1, {3}}});
  NoticeSet s = st.since(VClock{1, 0});
  EXPECT_EQ(s.vc, (VClock{2, 1}));
  ASSERT_EQ(s.intervals.size(), 2u);
  EXPECT_EQ(s.intervals[0].id, 2u);
  EXPECT_EQ(s.intervals[1].writer, 1u);
  EXPECT_TRUE(st.since(VClock{2, 1}).intervals.empty());
}

TEST(NoticeStore, OfWriterAndForget) {
  NoticeStore st(2);
  for (uint32_t i = 1; i <= 5; ++i) st.add_own(1, i, {i});
  EXPECT_EQ(st.of_writer(1, 3).intervals.size(), 2u);
  st.forget_up_to(VClock{0, 4});
  EXPECT_EQ(st.of_writer(1, 0).intervals.size(), 1u);
  EXPECT_EQ(st.vc_of(1), 5u);  // forgetting keeps the clock
}
