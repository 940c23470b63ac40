/* sparse MIB: a shared array of MIB MiB, one word written per 256 KiB by
 * alternating nodes, read back everywhere, then rewritten by the other
 * nodes: pages spread over a region larger than page-granular mprotect can
 * cover within vm.max_map_count.  Prints PASS or FAIL. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "rdsm.h"

#define STRIDE_WORDS (256 * 1024 / sizeof(uint64_t))

static int check(const uint64_t *a, size_t points, int round) {
  for (size_t i = 0; i < points; ++i) {
    uint64_t want = i * 7 + 1 + (uint64_t)round * 1000003;
    if (a[i * STRIDE_WORDS] != want) {
      printf("FAIL sparse: node %d, round %d: word %zu is %llu, not %llu\n", rdsm_rank(), round, i,
             (unsigned long long)a[i * STRIDE_WORDS], (unsigned long long)want);
      return 1;
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;
  size_t points = mib * 4;
  uint64_t *a = rdsm_malloc_all(mib << 20, RDSM_PLACE_DEFAULT);
  int rank = rdsm_rank(), nodes = rdsm_nodes(), bad = 0;
  for (int round = 0; round < 2; ++round) {
    for (size_t i = 0; i < points; ++i)
      if ((int)((i + (size_t)round) % (size_t)nodes) == rank) a[i * STRIDE_WORDS] = i * 7 + 1 + (uint64_t)round * 1000003;
    rdsm_barrier();
    bad |= check(a, points, round);
    rdsm_barrier();
  }
  if (!bad && rank == 0) printf("PASS sparse: %zu MiB, %zu pages touched on %d nodes\n", mib, points, nodes);
  rdsm_finalize();
  return bad;
}
