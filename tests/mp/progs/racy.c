/* racy: data races on purpose, for the race report's test (rdsm run
 * --races, tests/mp/races.sh).  Two nodes write the same bytes without
 * synchronisation four times, each in its own epoch; around those races
 * they make writes the report must not name: bytes of one page written by
 * different nodes (false sharing), a counter under one lock, writes
 * ordered by a barrier.  Node 0 prints one line per race the report must
 * show, on stdout:
 *
 *   expect ADDRESS BYTES NODE NODE EPOCH ALLOCATION SIZE LINE
 *
 * (LINE: the line of the allocating call).  Pauses order the writes in
 * time, not by synchronisation, so that another node's diff arrives while
 * a home is writing the same page: the report must still tell whose bytes
 * are whose. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "rdsm.h"

static void pause_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Barriers this node has passed: the epoch of what it writes now. */
static unsigned long long epoch(void) {
  rdsm_stats s;
  rdsm_get_stats(&s);
  return (unsigned long long)s.barriers;
}

static void expect(const void *at, size_t bytes, const void *base, size_t size, int line) {
  if (rdsm_rank() == 0) printf("expect %p %zu 0 1 %llu %p %zu %d\n", at, bytes, epoch(), base, size, line);
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int rank = rdsm_rank();
  if (rdsm_nodes() != 2) {
    if (rank == 0) fprintf(stderr, "racy: run it on 2 nodes\n");
    rdsm_finalize();
    return 1;
  }
  int home0_line, pair_line, small_line = 0;
  /* One page homed at node 0; two pages, the second homed at node 1. */
  unsigned char *home0 = rdsm_malloc_all(4096, RDSM_PLACE_LOCAL); home0_line = __LINE__;
  unsigned char *pair = rdsm_malloc_all(2 * 4096, RDSM_PLACE_BLOCK); pair_line = __LINE__;
  unsigned char *far = pair + 4096;
  /* A small allocation, carved from a chunk of node 0's. */
  if (rank == 0) {
    int32_t *s = rdsm_malloc(24); small_line = __LINE__;
    rdsm_publish_root(0, s);
  }
  rdsm_barrier();
  int32_t *small = rdsm_root(0);

  /* 1: the home writes, and node 1's diff of the same bytes arrives while
   * the home's interval is still open; bytes only node 1 writes arrive
   * with it. */
  expect(home0 + 16, 8, home0, 4096, home0_line);
  if (rank == 0) {
    memset(home0 + 16, 0xa0, 8);
    pause_ms(200);
  } else {
    pause_ms(50);
    memset(home0 + 16, 0xb1, 8);
    memset(home0 + 100, 0xb1, 8);
  }
  rdsm_barrier();

  /* 2: a page falsely shared (node 0 writes its first 64 bytes, node 1 the
   * next 64), on which both also write bytes 1000..1003; node 1, the home,
   * writes first. */
  expect(far + 1000, 4, pair, 2 * 4096, pair_line);
  if (rank == 1) {
    memset(far + 64, 2, 64);
    memset(far + 1000, 0x21, 4);
    pause_ms(200);
  } else {
    pause_ms(50);
    memset(far, 1, 64);
    memset(far + 1000, 0x10, 4);
  }
  rdsm_barrier();

  /* 3: both write one int of the small allocation (every byte changes:
   * a byte written with the value it held is no write to a diff). */
  expect(&small[1], 4, small, 24, small_line);
  small[1] = rank ? 0x22222222 : 0x11111111;
  rdsm_barrier();

  /* 4: each node holds a lock while it writes, but not the same lock. */
  expect(home0 + 200, 8, home0, 4096, home0_line);
  if (rank == 1) pause_ms(100);
  rdsm_lock(2 + rank);
  memset(home0 + 200, 0x40 + rank, 8);
  rdsm_unlock(2 + rank);
  rdsm_barrier();

  /* Not races: a counter under one lock; a word written by one node, then
   * by the other after a barrier. */
  int64_t *counter = (int64_t *)(home0 + 304);
  for (int i = 0; i < 3; ++i) {
    rdsm_lock(1);
    *counter += 1;
    rdsm_unlock(1);
  }
  if (rank == 0) memset(home0 + 400, 5, 8);
  rdsm_barrier();
  if (rank == 1) memset(home0 + 400, 6, 8);
  rdsm_barrier();
  int ok = *counter == 6;
  if (rank == 0) printf("%s racy: counter %lld\n", ok ? "PASS" : "FAIL", (long long)*counter);
  fflush(stdout);
  rdsm_finalize();
  return ok ? 0 : 1;
}
