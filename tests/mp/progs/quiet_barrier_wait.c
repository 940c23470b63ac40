/* quiet_barrier_wait: a node waiting in a barrier of remote atomics
 * (barrier=atomic) waits on a word of its own memory, which the last node
 * to arrive moves (sync/atomic_barrier.cpp), and makes no operation on the
 * network meanwhile.  Polling a word at node 0 instead costs a round trip
 * per poll, and where one-sided operations need the target's CPU (MPI over
 * TCP) wakes node 0's progress thread each time.
 *
 * Node 0 computes 100 ms before each of 3 barriers; the other nodes arrive
 * at once and wait.  A waiting node's operations in those barriers (its
 * arrival, its count, the departure's reads, its share of the protocol's
 * barrier work) must stay under kMostPerBarrier a barrier; polling node 0
 * for 100 ms makes hundreds.
 *
 *   rdsm run -n 2 --protocol rdsm quiet_barrier_wait
 * Prints PASS or FAIL (exit status 1 on FAIL). */
#include <time.h>

#include "schedule_test.h"

enum { kBarriers = 3, kMostPerBarrier = 40 };

static void compute_ms(long ms) {
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do clock_gettime(CLOCK_MONOTONIC, &t);
  while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank();
  if (rdsm_nodes() < 2) require_nodes(2, "quiet_barrier_wait");
  rdsm_barrier();
  rdsm_stats before, after;
  rdsm_get_stats(&before);
  for (int b = 0; b < kBarriers; ++b) {
    if (me == 0) compute_ms(100);
    rdsm_barrier();
  }
  rdsm_get_stats(&after);
  const uint64_t ops = after.one_sided_ops - before.one_sided_ops;
  int bad = me != 0 && ops > (uint64_t)kBarriers * kMostPerBarrier;
  if (bad)
    printf("FAIL quiet_barrier_wait: node %d made %llu one-sided operations in %d barriers it waited 100 ms in "
           "(at most %d expected)\n",
           me, (unsigned long long)ops, kBarriers, kBarriers * kMostPerBarrier);
  /* Everyone learns whether anyone failed: node 0 prints the verdict. */
  int *failed = (int *)rdsm_malloc_all(sizeof(int) * 64, RDSM_PLACE_DEFAULT);
  if (me < 64) failed[me] = bad;
  rdsm_barrier();
  int any = 0;
  for (int i = 0; i < rdsm_nodes() && i < 64; ++i) any |= failed[i];
  if (me == 0 && !any) printf("PASS quiet_barrier_wait: %d nodes, %d barriers, no polling while waiting\n",
                              rdsm_nodes(), kBarriers);
  rdsm_finalize();
  return any ? 1 : 0;
}
