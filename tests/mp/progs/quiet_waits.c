/* quiet_waits: a node waiting in a barrier of remote atomics
 * (barrier=atomic) or for a lock of remote atomics (lock=atomic) waits on a
 * word of its own memory, which the last node to arrive or the releaser
 * moves (sync/atomic_barrier.cpp, sync/atomic_lock.cpp), and makes no
 * operation on the network meanwhile.  Polling a word at node 0 instead
 * costs a round trip per poll, and where one-sided operations need the
 * target's CPU (MPI over TCP) wakes node 0's progress thread each time.
 *
 * Barriers: node 0 computes 100 ms before each of 3; the other nodes
 * arrive at once and wait.  Locks: node 0 holds lock 0 (managed by node 0)
 * for 100 ms, 3 times, while the other nodes ask for it and wait.  A
 * waiting node's operations in those waits (its arrival, its count, the
 * departure's reads, its share of the protocol's barrier work; its ticket,
 * its name in the lock's slot, a look at the counter when woken, the
 * lock's record) must stay under kMostPerWait a wait; polling node 0 for
 * 100 ms makes hundreds.
 *
 *   rdsm run -n 3 --protocol rdsm quiet_waits
 * Prints PASS or FAIL (exit status 1 on FAIL). */
#include <time.h>

#include "schedule_test.h"

enum { kWaits = 3, kMostPerWait = 40 };

static void compute_ms(long ms) {
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do clock_gettime(CLOCK_MONOTONIC, &t);
  while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

static uint64_t ops_now(void) {
  rdsm_stats s;
  rdsm_get_stats(&s);
  return s.one_sided_ops;
}

/* A waiting node's verdict on `what`; returns 1 on FAIL. */
static int check(const char *what, uint64_t ops) {
  if (rdsm_rank() == 0 || ops <= (uint64_t)kWaits * kMostPerWait) return 0;
  printf("FAIL quiet_waits: node %d made %llu one-sided operations in %d %s it waited 100 ms in (at most %d "
         "expected)\n",
         rdsm_rank(), (unsigned long long)ops, kWaits, what, kWaits * kMostPerWait);
  return 1;
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank(), nodes = rdsm_nodes();
  if (nodes < 2) require_nodes(2, "quiet_waits");
  int *failed = (int *)rdsm_malloc_all(sizeof(int) * 64, RDSM_PLACE_DEFAULT);
  rdsm_barrier();

  uint64_t before = ops_now();
  for (int b = 0; b < kWaits; ++b) {
    if (me == 0) compute_ms(100);
    rdsm_barrier();
  }
  int bad = check("barriers", ops_now() - before);

  for (int round = 0; round < kWaits; ++round) {
    if (me == 0) rdsm_lock(0);
    rdsm_barrier();  /* node 0 holds it: the others ask for it now */
    if (me == 0) {
      compute_ms(100);
      rdsm_unlock(0);
    } else {
      before = ops_now();
      rdsm_lock(0);
      const uint64_t ops = ops_now() - before;
      rdsm_unlock(0);
      /* The others after the first waited in line behind each other: each
       * wait counted alone, the largest checked. */
      if (check("lock waits", ops * kWaits)) bad = 1;
    }
    rdsm_barrier();
  }

  if (me < 64) failed[me] = bad;
  rdsm_barrier();
  int any = 0;
  for (int i = 0; i < nodes && i < 64; ++i) any |= failed[i];
  if (me == 0 && !any)
    printf("PASS quiet_waits: %d nodes, %d barriers and %d lock waits, no polling while waiting\n", nodes, kWaits,
           kWaits);
  rdsm_finalize();
  return any ? 1 : 0;
}
