// A node's statistics line, as the mpi fabric's ranks send it to the
// launcher: what it carries comes back whole, the protocol it ran included.
#include "stats/stats_line.hpp"

#include <gtest/gtest.h>

using namespace rdsm;

TEST(StatsLine, RoundTripsTheProtocolRun) {
  NodeStatsLine n;
  n.rank = 1;
  n.pid = 4242;
  n.host = "hostb";
  n.memory = "uffd";
  n.protocol = "rdsm+fetch=message,lock=manager";
  n.region_bytes = 1 << 20;
  n.stats.read_faults = 17;
  std::string line = encode_stats_line(n);
  ASSERT_EQ(line.back(), '\n');
  line.pop_back();
  NodeStatsLine back;
  std::string error;
  ASSERT_TRUE(decode_stats_line(line, &back, &error)) << error;
  EXPECT_EQ(back.rank, 1);
  EXPECT_EQ(back.host, "hostb");
  EXPECT_EQ(back.memory, "uffd");
  EXPECT_EQ(back.protocol, "rdsm+fetch=message,lock=manager");
  EXPECT_EQ(back.region_bytes, 1u << 20);
  EXPECT_EQ(back.stats.read_faults, 17u);

  n.protocol.clear();  // a node that had no protocol
  line = encode_stats_line(n);
  line.pop_back();
  ASSERT_TRUE(decode_stats_line(line, &back, &error)) << error;
  EXPECT_EQ(back.protocol, "");
}
