#include "api/sync_registry.hpp"

#include "common/error.hpp"

namespace rdsm {

namespace {
constexpr int kTableNode = 0;

uint64_t mix(uint64_t x) {  // splitmix64 finaliser: spreads nearby addresses
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
}  // namespace

SyncRegistry::SyncRegistry(fabric::Fabric &f, int ids) : f_(f), ids_(ids) {
  table_ = f_.register_segment((size_t)ids_ * sizeof(uint64_t));
}

int SyncRegistry::id_for(uint64_t region_offset, const char *call) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = known_.find(region_offset);
  if (it != known_.end()) return it->second;
  const uint64_t key = region_offset + 1;  // 0 marks a free slot
  uint64_t slot = mix(region_offset) % (uint64_t)ids_;
  for (int probe = 0; probe < ids_; ++probe) {
    uint64_t old = f_.cas(kTableNode, table_.id, slot * sizeof(uint64_t), 0, key);
    if (old == 0 || old == key) {
      known_.emplace(region_offset, (int)slot);
      return (int)slot;
    }
    slot = (slot + 1) % (uint64_t)ids_;
  }
  api_error(call,
            "all %d lock ids are taken by locks, barriers, pause flags and condition variables; start the "
            "program with more (RDSM_LOCKS=N, or `rdsm run --locks N`)",
            ids_);
}

}  // namespace rdsm
