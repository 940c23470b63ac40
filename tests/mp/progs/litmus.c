/* litmus [ROUNDS [LOCK_ROUNDS]]: racy litmus tests on plain shared
 * variables, no locks.
 *
 * Nodes 0 and 1 race, ROUNDS rounds (default 1000) of each test, every
 * round started by a barrier of all nodes (the others only take part in the
 * barriers, and are the managers of some of the pages); each variable has
 * a page of its own, so every access may need the protocol:
 *   store buffering  node 0: x = r; a = y     node 1: y = r; b = x
 *                    sequential consistency forbids a < r and b < r
 *                    together: one of the stores came first.
 *   message passing  node 0: data = r; flag = r     node 1: f = flag; d = data
 *                    sequential consistency forbids f == r with d < r.
 *   whole page       node 0 writes r into every word of a page, first to
 *                    last; every other node reads the last word, then the
 *                    first: sequential consistency forbids a first word
 *                    older than the last.  With more than two nodes some
 *                    readers find the page being handed to another, and
 *                    a copy taken while node 0 still writes is torn.
 * A short delay of its own before each access varies which node comes
 * first.  Under sc (sequential consistency) any outcome sequential
 * consistency forbids is a failure; under the release-consistency presets,
 * which promise it only to data-race-free programs, the outcomes are
 * counted and reported, not judged.
 *   Peterson's lock  (LOCK_ROUNDS > 0; sc only) nodes 0 and 1 each enter a
 *                    critical section LOCK_ROUNDS times through Peterson's
 *                    algorithm (two flags and a turn, spinning on them)
 *                    and increment a counter there, which must end at
 *                    2 x LOCK_ROUNDS.  It needs sequential consistency
 *                    (under release consistency a spinning node may never
 *                    see the other's writes) and the interrupt handler
 *                    mode (in poll mode a node spinning in the program
 *                    serves no page requests).
 * Prints PASS on node 0 with the counts, or FAIL (and exits 1). */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdsm.h"

/* A delay of 0..63 spins, different for every round, test and node. */
static void jitter(long round, int test, int rank) {
  uint64_t h = (uint64_t)round * 0x9E3779B97F4A7C15ull ^ (uint64_t)(test * 2 + rank) * 0xC2B2AE3D27D4EB4Full;
  h ^= h >> 29;
  for (volatile unsigned i = (unsigned)(h & 63); i > 0; --i) {
  }
}

/* Peterson's mutual exclusion for nodes 0 and 1 (`me`), each variable on
 * a page of its own. */
static void peterson_enter(volatile long *flag[2], volatile long *turn, int me) {
  *flag[me] = 1;
  *turn = 1 - me;
  /* Yielding leaves the core to the other node's protocol threads (more
   * nodes than cores here): the spin itself costs no protocol action. */
  while (*flag[1 - me] && *turn == 1 - me) sched_yield();
}

/* One round's observations by node 1 (store buffering b, message passing f
 * and d), written to shared memory and read by node 0 after the last
 * barrier; node 0's (store buffering a) are in an array of their own, so
 * that writing them costs no page transfers. */
typedef struct observed {
  long b, f, d;
} observed;

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int rank = rdsm_rank();
  const long rounds = argc > 1 ? atol(argv[1]) : 1000;
  if (rounds < 1) {
    if (rank == 0) printf("FAIL litmus: ROUNDS must be a positive number, not '%s'\n", argv[1]);
    rdsm_finalize();
    return 1;
  }
  const long lock_rounds = argc > 2 ? atol(argv[2]) : 0;
  const char *protocol = rdsm_protocol_name();
  const int sc = strcmp(protocol, "sc") == 0 || strncmp(protocol, "sc+", 3) == 0;
  if (lock_rounds < 0 || (lock_rounds > 0 && !sc)) {
    if (rank == 0)
      printf("FAIL litmus: LOCK_ROUNDS must be 0, or positive under protocol sc only (this is %s), not '%s'\n",
             protocol, argv[2]);
    rdsm_finalize();
    return 1;
  }
  const size_t page = rdsm_page_size();
  /* Cyclic placement, page k at node k % nodes.  Each node's store goes to
   * a page placed at the other node and its load to a page placed at
   * itself (data: at node 1; flag: at node 0): under home-based release
   * consistency a store to a copy reaches the home only at the writer's
   * next release, while the home reads its own copy, so these are the
   * places where racy loads see old values. */
  const int nodes = rdsm_nodes();
  char *vars = rdsm_malloc_all(2 * (size_t)nodes * page, RDSM_PLACE_CYCLIC);
  volatile long *x = (volatile long *)(vars + page), *y = (volatile long *)vars;
  volatile long *data = (volatile long *)(vars + (size_t)(nodes + 1) * page);
  volatile long *flag = (volatile long *)(vars + (size_t)nodes * page);
  observed *seen = rdsm_malloc_all(sizeof(observed) * (size_t)rounds, RDSM_PLACE_BLOCK);
  long *seen_a = rdsm_malloc_all(sizeof(long) * (size_t)rounds, RDSM_PLACE_BLOCK);
  char *lock_vars = rdsm_malloc_all(4 * page, RDSM_PLACE_CYCLIC);
  volatile long *record = (volatile long *)rdsm_malloc_all(page, RDSM_PLACE_CYCLIC);
  const size_t words = page / sizeof(long);
  long *torn_at = rdsm_malloc_all(sizeof(long) * (size_t)nodes, RDSM_PLACE_BLOCK);
  long torn = 0;
  volatile long *flag_of[2] = {(volatile long *)lock_vars, (volatile long *)(lock_vars + page)};
  volatile long *turn = (volatile long *)(lock_vars + 2 * page), *counter = (volatile long *)(lock_vars + 3 * page);

  if (nodes >= 2) {
    for (long r = 1; r <= rounds; ++r) {
      rdsm_barrier();
      jitter(r, 0, rank);
      if (rank == 0) {
        *x = r;
        seen_a[r - 1] = *y;
      } else if (rank == 1) {
        *y = r;
        seen[r - 1].b = *x;
      }
      rdsm_barrier();
      jitter(r, 1, rank);
      if (rank == 0) {
        *data = r;
        *flag = r;
      } else if (rank == 1) {
        long f = *flag;
        long d = *data;
        seen[r - 1].f = f;
        seen[r - 1].d = d;
      }
      rdsm_barrier();
      jitter(r, 2, rank);
      if (rank == 0) {
        for (size_t i = 0; i < words; ++i) record[i] = r;
      } else {
        long last = record[words - 1];
        long first = record[0];
        torn += first < last;
      }
    }
    rdsm_barrier();
    for (long i = 0; i < lock_rounds && rank < 2; ++i) {
      peterson_enter(flag_of, turn, rank);
      *counter = *counter + 1;
      *flag_of[rank] = 0;
    }
  }
  torn_at[rank] = torn;
  rdsm_barrier();
  int failed = 0;
  if (rank == 0) {
    long whole = 0;
    for (int n = 1; n < nodes; ++n) whole += torn_at[n];
    long sb = 0, mp = 0, first_sb = 0, first_mp = 0;
    for (long r = 1; r <= rounds && nodes >= 2; ++r) {
      const observed *o = &seen[r - 1];
      if (seen_a[r - 1] < r && o->b < r && !sb++) first_sb = r;
      if (o->f == r && o->d < r && !mp++) first_mp = r;
    }
    if (nodes < 2) {
      printf("PASS litmus (%s): one node, nothing races\n", protocol);
    } else if (sc && (sb || mp || whole)) {
      printf("FAIL litmus (%s): outcomes sequential consistency forbids: store buffering %ld of %ld rounds (first: "
             "round %ld), message passing %ld of %ld rounds (first: round %ld), whole page %ld reads\n",
             protocol, sb, rounds, first_sb, mp, rounds, first_mp, whole);
      failed = 1;
    } else if (*counter != 2 * lock_rounds) {
      printf("FAIL litmus (%s): Peterson's lock let both nodes in: %ld increments of its counter, not %ld\n",
             protocol, *counter, 2 * lock_rounds);
      failed = 1;
    } else {
      printf("PASS litmus (%s): outcomes sequential consistency forbids: store buffering %ld of %ld rounds, "
             "message passing %ld of %ld rounds, whole page %ld of %ld reads%s",
             protocol, sb, rounds, mp, rounds, whole, rounds * (nodes - 1),
             sc ? "" : " (reported only: this protocol promises sequential consistency to data-race-free programs)");
      if (lock_rounds) printf("; Peterson's lock: %ld entries, exclusive", 2 * lock_rounds);
      printf("\n");
    }
    fflush(stdout);
  }
  rdsm_finalize();
  return failed;
}
