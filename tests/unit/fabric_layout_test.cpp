// With rings reserved for a fixed number of nodes, registered segments sit
// at the same offsets of a node's memory file whatever the job's size: a
// fork-join master relies on it to keep its data from one job to the next.
#include <gtest/gtest.h>

#include "bootstrap/node_file.hpp"
#include "fabric/shm_fabric.hpp"

namespace {

std::vector<uint64_t> segment_offsets(int nodes, int reserve) {
  rdsm::Options opt;
  opt.nodes = nodes;
  opt.rank = 0;
  opt.ring_reserve = reserve;
  rdsm::fabric::ShmFabric f(opt, rdsm::create_node_files(nodes));
  std::vector<uint64_t> offs;
  for (size_t bytes : {4096ul, 1ul << 20, 123456ul}) offs.push_back(f.register_segment(bytes).fd_offset);
  return offs;
}

TEST(FabricLayout, ReservedRingsMakeSegmentOffsetsIndependentOfTheJobSize) {
  auto one = segment_offsets(1, 64), four = segment_offsets(4, 64), many = segment_offsets(64, 64);
  EXPECT_EQ(one, four);
  EXPECT_EQ(one, many);
}

TEST(FabricLayout, WithoutReserveTheRingsOfMoreNodesPushSegmentsFurther) {
  EXPECT_LT(segment_offsets(1, 0)[0], segment_offsets(8, 0)[0]);
}

}  // namespace
