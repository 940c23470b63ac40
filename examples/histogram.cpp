// A parallel histogram with the C++ API: every node counts its share of a
// deterministic key stream into one shared table, one lock per group of
// buckets, then node 0 checks the table against a sequential count.
//
//   rdsm run -n 2 ./histogram [KEYS] [BUCKETS]
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "rdsm.hpp"

namespace {
constexpr int kBucketsPerLock = 16;
constexpr unsigned long kChunkKeys = 16384;

unsigned key(unsigned long i) {  // a cheap, well-mixed stream
  unsigned long x = i * 0x9E3779B97F4A7C15ul;
  return (unsigned)(x >> 33);
}
}  // namespace

int main(int argc, char **argv) {
  rdsm::session job(argc, argv);
  unsigned long keys = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 8000000;
  unsigned buckets = argc > 2 ? (unsigned)std::strtoul(argv[2], nullptr, 10) : 256;
  if (buckets == 0) buckets = 1;
  auto *table = rdsm::allocate_all<unsigned long>(buckets, rdsm::placement::cyclic);

  // Count a chunk privately, then add it into the shared table under each
  // group's lock; the nodes' chunks interleave, so every addition must see
  // the ones before it.
  std::vector<unsigned long> mine(buckets);
  rdsm::barrier();  // all start together
  const unsigned long stride = (unsigned long)rdsm::nodes() * kChunkKeys;
  for (unsigned long base = (unsigned long)rdsm::rank() * kChunkKeys; base < keys; base += stride) {
    std::fill(mine.begin(), mine.end(), 0);
    for (unsigned long i = base; i < keys && i < base + kChunkKeys; ++i) ++mine[key(i) % buckets];
    for (unsigned first = 0; first < buckets; first += kBucketsPerLock) {
      rdsm::mutex group((int)(first / kBucketsPerLock) % rdsm::lock_count());
      std::lock_guard<rdsm::mutex> hold(group);
      for (unsigned b = first; b < buckets && b < first + kBucketsPerLock; ++b) table[b] += mine[b];
    }
  }
  rdsm::barrier();

  int bad = 0;
  if (rdsm::rank() == 0) {
    std::vector<unsigned long> want(buckets, 0);
    for (unsigned long i = 0; i < keys; ++i) ++want[key(i) % buckets];
    for (unsigned b = 0; b < buckets; ++b)
      if (table[b] != want[b]) {
        std::printf("FAIL histogram: bucket %u holds %lu, not %lu\n", b, table[b], want[b]);
        bad = 1;
        break;
      }
    if (!bad) std::printf("PASS histogram: %lu keys in %u buckets on %d nodes\n", keys, buckets, rdsm::nodes());
  }
  return bad;
}
