/* busy_home: node 0 computes, allocating and freeing on the heap in a loop
 * and never calling rdsm, while every other node hammers it with requests:
 * page fetches of pages homed at node 0 and a lock whose manager is node 0.
 *
 *   rdsm run -n N --protocol async --handler signal busy_home [SECONDS]
 *
 * Under --handler signal the requests interrupt node 0's loop and are
 * served by the message signal's handler, which must defer whenever the
 * loop is inside malloc or free (the C library's locks) and may never
 * corrupt the loop's heap.  It passes when every node read the data node 0
 * wrote, the lock kept its count, node 0's heap checks hold, and the other
 * nodes were served while node 0 still computed: each finished its
 * requests in less than 0.8 of node 0's computing time (default 1 s).
 * Under --handler poll nobody answers while node 0 computes, so it fails
 * there by design. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdsm.h"

enum { kPages = 128, kLockRounds = 200 };

typedef struct {
  long counter;
  double served_seconds[64];
} shared_state;

static int heap_round(char **live, int slots, uint64_t *x) {
  *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
  int slot = (int)(*x % (uint64_t)slots);
  size_t bytes = 16 + (size_t)((*x >> 20) % 6000);
  if (live[slot]) {
    if (live[slot][0] != (char)slot || live[slot][1] != (char)~slot) return 0;
    free(live[slot]);
  }
  live[slot] = malloc(bytes);
  if (!live[slot]) return 0;
  /* Filled by the program's own loop, not memset: the signal then also
   * lands in the program's code between the allocator's calls (under a
   * sanitizer, whose allocator is slow, most of all). */
  for (size_t i = 0; i < bytes; ++i) live[slot][i] = (char)(slot + (int)(i % 3));
  live[slot][1] = (char)~slot;
  return 1;
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const double seconds = argc > 1 ? atof(argv[1]) : 1.0;
  const int me = rdsm_rank(), nodes = rdsm_nodes();
  if (nodes < 2 || nodes > 64 || !(seconds > 0)) {
    if (me == 0) fprintf(stderr, "busy_home: run it on 2 to 64 nodes with a positive number of seconds\n");
    rdsm_finalize();
    return 2;
  }
  const size_t page = rdsm_page_size();
  /* Homed at node 0, which alone allocates and writes them. */
  long *data = NULL;
  shared_state *st = NULL;
  if (me == 0) {
    data = rdsm_malloc_placed(kPages * page, RDSM_PLACE_LOCAL);
    st = rdsm_malloc_placed(sizeof *st, RDSM_PLACE_LOCAL);
    for (size_t i = 0; i < kPages * page / sizeof(long); ++i) data[i] = (long)(i * 7 + 3);
    st->counter = 0;
    rdsm_publish_root(0, data);
    rdsm_publish_root(1, st);
  }
  rdsm_barrier();
  data = rdsm_root(0);
  st = rdsm_root(1);
  const int lock = 0; /* manager: lock id mod nodes == 0 */

  int ok = 1;
  double served = 0;
  if (me == 0) {
    char *live[64] = {0};
    uint64_t x = 88172645463325252ull;
    long rounds = 0;
    double t0 = rdsm_wtime(), now = t0;
    while (now - t0 < seconds) {
      for (int i = 0; i < 256 && ok; ++i) ok = heap_round(live, 64, &x);
      ++rounds;
      now = rdsm_wtime();
    }
    for (int i = 0; i < 64; ++i) free(live[i]);
    if (!ok) printf("FAIL busy_home: node 0's heap was corrupted after %ld rounds\n", rounds);
  } else {
    double t0 = rdsm_wtime();
    long sum = 0;
    for (size_t p = 0; p < kPages; ++p) sum += data[p * page / sizeof(long)];
    for (int r = 0; r < kLockRounds; ++r) {
      rdsm_lock(lock);
      st->counter += 1;
      rdsm_unlock(lock);
    }
    served = rdsm_wtime() - t0;
    long want = 0;
    for (size_t p = 0; p < kPages; ++p) want += (long)((p * page / sizeof(long)) * 7 + 3);
    if (sum != want) {
      printf("FAIL busy_home: node %d read %ld from node 0's pages, not %ld\n", me, sum, want);
      ok = 0;
    }
    rdsm_lock(lock);
    st->served_seconds[me] = served;
    rdsm_unlock(lock);
  }
  rdsm_barrier();
  if (me == 0) {
    rdsm_lock(lock);
    long count = st->counter;
    double slowest = 0;
    for (int q = 1; q < nodes; ++q)
      if (st->served_seconds[q] > slowest) slowest = st->served_seconds[q];
    rdsm_unlock(lock);
    if (count != (long)(nodes - 1) * kLockRounds) {
      printf("FAIL busy_home: lock counter %ld, not %ld\n", count, (long)(nodes - 1) * kLockRounds);
      ok = 0;
    }
    if (slowest > seconds * 0.8) {
      printf("FAIL busy_home: the slowest node took %.3f s for its requests while node 0 computed for %.3f s: "
             "they were not served during the computation\n", slowest, seconds);
      ok = 0;
    }
    if (ok)
      printf("PASS busy_home: %d nodes, %d page fetches and %d lock acquisitions each, served in at most %.3f s "
             "while node 0 computed with malloc and free for %.3f s\n", nodes, kPages, kLockRounds, slowest,
             seconds);
  }
  rdsm_barrier();
  rdsm_finalize();
  return ok ? 0 : 1;
}
