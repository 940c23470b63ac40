// The synchronisation-object table: one id per address, the same id when the
// same address is asked again, and a clear end when ids run out.  (That
// every process finds the same ids is shown by tests/splash: locks only
// exclude each other across processes if it holds.)
#include <gtest/gtest.h>

#include <set>

#include "api/sync_registry.hpp"
#include "bootstrap/node_file.hpp"
#include "fabric/shm_fabric.hpp"

namespace {

std::unique_ptr<rdsm::fabric::ShmFabric> one_node_fabric() {
  rdsm::Options opt;
  return std::make_unique<rdsm::fabric::ShmFabric>(opt, rdsm::create_node_files(1));
}

TEST(SyncRegistry, SameAddressSameIdDistinctAddressesDistinctIds) {
  auto f = one_node_fabric();
  rdsm::SyncRegistry reg(*f, 1000);
  std::set<int> ids;
  for (uint64_t off = 0; off < 900 * 64; off += 64) {
    int id = reg.id_for(off, "TEST");
    ASSERT_GE(id, 0);
    ASSERT_LT(id, 1000);
    ids.insert(id);
  }
  EXPECT_EQ(ids.size(), 900u);
  // Asked again (initialising the same objects again): no new ids.
  for (uint64_t off = 0; off < 900 * 64; off += 64) ids.insert(reg.id_for(off, "TEST"));
  EXPECT_EQ(ids.size(), 900u);
}

TEST(SyncRegistryDeathTest, RunningOutOfIdsNamesTheCallAndTheRemedy) {
  EXPECT_EXIT(
      {
        auto f = one_node_fabric();
        rdsm::SyncRegistry reg(*f, 8);
        for (uint64_t off = 0; off < 9 * 64; off += 64) reg.id_for(off, "CONDVARINIT");
      },
      testing::ExitedWithCode(2), "CONDVARINIT: all 8 lock ids are taken.*RDSM_LOCKS");
}

}  // namespace
