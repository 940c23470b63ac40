/* sparse MIB [MARKER [STRIDE_KIB [block]]]: a shared array of MIB MiB, one
 * word written per STRIDE_KIB (default 256) KiB by alternating nodes (with
 * "block": each node a contiguous share), read back everywhere, then
 * rewritten by the other nodes: pages spread over a region larger than
 * page-granular mprotect can cover within vm.max_map_count (or, with a
 * stride of 4, every page of it touched).  Prints PASS or FAIL. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdsm.h"

static size_t STRIDE_WORDS = 256 * 1024 / sizeof(uint64_t);

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
  if (argc > 3) STRIDE_WORDS = strtoul(argv[3], NULL, 10) * 1024 / sizeof(uint64_t);
  if (STRIDE_WORDS == 0) STRIDE_WORDS = 1;
  size_t points = (mib << 20) / (STRIDE_WORDS * sizeof(uint64_t));
  int block = argc > 4 && !strcmp(argv[4], "block");
  uint64_t *a = rdsm_malloc_all(mib << 20, RDSM_PLACE_DEFAULT);
  int rank = rdsm_rank(), nodes = rdsm_nodes(), bad = 0;
  for (int round = 0; round < 2; ++round) {
    for (size_t i = 0; i < points; ++i)
      if ((int)(((block ? i * (size_t)nodes / points : i) + (size_t)round) % (size_t)nodes) == rank) a[i * STRIDE_WORDS] = i * 7 + 1 + (uint64_t)round * 1000003;
    rdsm_barrier();
    bad |= check(a, points, round);
    rdsm_barrier();
  }
  if (!bad && rank == 0) printf("PASS sparse: %zu MiB, %zu pages touched on %d nodes\n", mib, points, nodes);
  rdsm_finalize();
  return bad;
}
