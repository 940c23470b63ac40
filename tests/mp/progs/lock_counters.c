/* lock_counters: every node increments counters at random, each under its
 * own lock, round after round; after each round node 0 checks the total.
 * Three pages of counters, each taken by every node over and over: the
 * shortest program that shows a lock-protected update lost (a node reading
 * a counter older than the last holder of its lock left it).  A node that
 * reads a counter below a value it wrote there itself says so at once; on
 * a wrong total every node publishes how often it incremented each
 * counter, and node 0 lists the counters that lost increments with their
 * page and each node's count.
 *
 *   usage: lock_counters [ROUNDS [INCREMENTS_PER_ROUND]]
 *
 * Under tools/compaction_stress.sh it runs with its nodes held at random
 * memory accesses; second_copy.c builds one schedule that lost such
 * updates (a copy its home did not learn of, first_copy_log.cpp).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdsm.h"

#define COUNTERS 1000

/* The counters start 512 bytes into the block and run over three pages,
 * the last of which also holds node 0's verdict. */
struct shared {
  long header[64];
  long counters[COUNTERS];
  long failed; /* node 0's verdict on the last round */
};

static unsigned long next_random(unsigned long *s) {
  *s = *s * 6364136223846793005ul + 1442695040888963407ul;
  return *s >> 33;
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank(), nodes = rdsm_nodes();
  const long rounds = argc > 1 ? atol(argv[1]) : 20, per_round = argc > 2 ? atol(argv[2]) : 250;
  if (rounds < 1 || per_round < 1) {
    fprintf(stderr, "usage: lock_counters [ROUNDS [INCREMENTS_PER_ROUND]] (both at least 1)\n");
    return 2;
  }
  if (rdsm_lock_count() < COUNTERS) {
    fprintf(stderr, "lock_counters: needs %d locks, the job has %d\n", COUNTERS, rdsm_lock_count());
    return 2;
  }
  if (me == 0) {
    struct shared *s = rdsm_malloc(sizeof *s);
    long *made = rdsm_malloc(sizeof(long) * COUNTERS * (size_t)nodes);
    memset(s, 0, sizeof *s);
    memset(made, 0, sizeof(long) * COUNTERS * (size_t)nodes);
    rdsm_publish_root(0, s);
    rdsm_publish_root(1, made);
  }
  rdsm_barrier();
  struct shared *s = rdsm_root(0);
  long *made = rdsm_root(1);
  long *mine = calloc(COUNTERS, sizeof(long)), *wrote = calloc(COUNTERS, sizeof(long)), stale = 0;
  if (!mine || !wrote) {
    fprintf(stderr, "lock_counters: out of memory\n");
    return 2;
  }
  unsigned long seed = 12345 + 977ul * (unsigned long)me;
  long round = 0;
  for (; round < rounds; ++round) {
    for (long i = 0; i < per_round; ++i) {
      int c = (int)(next_random(&seed) % COUNTERS);
      /* A load, then a store: as most programs increment, and unlike one
       * read-modify-write instruction, the value read is taken before the
       * page may fault for the write. */
      volatile long *counter = &s->counters[c];
      rdsm_lock(c);
      long v = *counter;
      *counter = v + 1;
      rdsm_unlock(c);
      if (v < wrote[c] && stale++ < 3)
        printf("FAIL lock_counters: node %d read counter %d (byte %lu of its page) as %ld under its lock, below the "
               "%ld it wrote there itself\n",
               me, c, (unsigned long)&s->counters[c] % 4096, v, wrote[c]);
      wrote[c] = v + 1;
      mine[c]++;
    }
    rdsm_barrier();
    if (me == 0) {
      long total = 0;
      for (int c = 0; c < COUNTERS; ++c) total += s->counters[c];
      long want = (round + 1) * per_round * nodes;
      if (total != want) printf("FAIL lock_counters: after round %ld the counters sum to %ld, want %ld\n", round, total, want);
      s->failed = total != want;
    }
    rdsm_barrier();
    if (s->failed) break;
  }
  const int failed = round < rounds;
  if (failed) {
    memcpy(made + (size_t)me * COUNTERS, mine, sizeof(long) * COUNTERS);
    rdsm_barrier();
    if (me == 0) {
      int wrong = 0;
      for (int c = 0; c < COUNTERS; ++c) {
        long sum = 0;
        for (int n = 0; n < nodes; ++n) sum += made[(size_t)n * COUNTERS + c];
        if (sum == s->counters[c]) continue;
        if (++wrong <= 20) {
          printf("  counter %d (page %#lx, byte %lu): %ld, incremented %ld times:", c,
                 (unsigned long)&s->counters[c] / 4096, (unsigned long)&s->counters[c] % 4096, s->counters[c], sum);
          for (int n = 0; n < nodes; ++n) printf(" %ld", made[(size_t)n * COUNTERS + c]);
          printf(" (by node)\n");
        }
      }
      printf("  %d counters wrong\n", wrong);
    }
  } else if (me == 0) {
    printf("PASS lock_counters: %d nodes, %ld rounds of %ld increments each\n", nodes, rounds, per_round);
  }
  free(mine);
  free(wrote);
  rdsm_finalize();
  return failed || stale;
}
