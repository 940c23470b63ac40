/* trylock [ROUNDS]: rdsm_trylock's mutual exclusion and acquire semantics.
 *
 *  busy     node 0 holds a lock across a barrier; every other node's
 *           rdsm_trylock of it must return 0.
 *  chain    the nodes cache the pages of a record; then node 0 writes it
 *           under that lock and unlocks, and every other node spins on
 *           rdsm_trylock until it gets the lock, and must then see the
 *           record as the previous holder left it (no barrier or acquire
 *           in between: only the try's acquire can make those writes
 *           visible), then writes it anew.  At the end the record counts
 *           every holder.
 *  counter  ROUNDS rounds (default 400) over a few locks, every third an
 *           rdsm_lock, the others rdsm_trylock: under a lock a node checks
 *           that the two pages of that lock's counter agree and increments
 *           both.  The counters must add up to the number of successful
 *           acquires, exactly.
 * Prints PASS on node 0, or FAIL naming what went wrong (and exits 1). */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "rdsm.h"

enum { kCounterLocks = 3, kFirstCounterLock = 10, kChainLock = 20, kTotalLock = 21, kChainPages = 6 };

static int rank_;

static void fail(const char *what, long got, long want) {
  printf("FAIL trylock (node %d, %s): %s: got %ld, want %ld\n", rank_, rdsm_protocol_name(), what, got, want);
  fflush(stdout);
  exit(1);
}

/* The first long of page `page` of `base`. */
static long *word(char *base, int page) { return (long *)(base + (size_t)page * rdsm_page_size()); }

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  rank_ = rdsm_rank();
  const int nodes = rdsm_nodes();
  const long rounds = argc > 1 ? atol(argv[1]) : 400;
  const size_t page = rdsm_page_size();
  /* Cyclic homes: every node is home of some pages and caches the others. */
  char *chain = rdsm_malloc_all(kChainPages * page, RDSM_PLACE_CYCLIC);
  char *counters = rdsm_malloc_all(2 * kCounterLocks * page, RDSM_PLACE_CYCLIC);
  long *totals = rdsm_malloc_all(2 * sizeof(long), RDSM_PLACE_BLOCK);
  volatile long *ready = rdsm_malloc_all(sizeof(long) * (size_t)nodes, RDSM_PLACE_BLOCK);

  /* ---- busy and chain */
  if (rank_ == 0) rdsm_lock(kChainLock);
  rdsm_barrier();
  if (rank_ != 0 && rdsm_trylock(kChainLock)) fail("rdsm_trylock of a lock node 0 holds returned", 1, 0);
  /* Every node caches the record, then says so with a release, which
   * (unlike a barrier) takes in nothing: until its try succeeds, a node's
   * copies stay the ones it read here, and only the try's acquire can
   * make it see node 0's writes. */
  for (int p = 0; p < kChainPages; ++p)
    if (*word(chain, p) != 0) fail("a fresh record is not zero", *word(chain, p), 0);
  ready[rank_] = 1;
  rdsm_release();
  if (rank_ == 0) {
    for (int n = 1; n < nodes; ++n)
      while (!ready[n]) {
        sched_yield();
        rdsm_acquire();
      }
    for (int p = 0; p < kChainPages; ++p) *word(chain, p) = 1;
    rdsm_unlock(kChainLock);
  } else {
    while (!rdsm_trylock(kChainLock)) sched_yield();
    long seen = *word(chain, 0);
    if (seen < 1 || seen >= nodes) fail("holders counted in the record when the try got the lock", seen, 1);
    for (int p = 1; p < kChainPages; ++p)
      if (*word(chain, p) != seen) fail("a page of the record the previous holder wrote", *word(chain, p), seen);
    for (int p = 0; p < kChainPages; ++p) *word(chain, p) = seen + 1;
    rdsm_unlock(kChainLock);
  }
  rdsm_barrier();
  for (int p = 0; p < kChainPages; ++p)
    if (*word(chain, p) != nodes) fail("holders counted in the record at the end", *word(chain, p), nodes);

  /* ---- counter */
  long acquired = 0, by_try = 0, busy = 0;
  for (long i = 0; i < rounds; ++i) {
    int l = (int)((rank_ * 7 + i) % kCounterLocks);
    int got;
    if (i % 3 == 0) {
      rdsm_lock(kFirstCounterLock + l);
      got = 1;
    } else {
      got = rdsm_trylock(kFirstCounterLock + l);
      by_try += got;
      busy += !got;
    }
    if (!got) continue;
    ++acquired;
    long *a = word(counters, 2 * l), *b = word(counters, 2 * l + 1);
    if (*a != *b) fail("the second page of a counter, under its lock", *b, *a);
    *a += 1;
    *b += 1;
    rdsm_unlock(kFirstCounterLock + l);
  }
  rdsm_lock(kTotalLock);
  totals[0] += acquired;
  totals[1] += by_try;
  rdsm_unlock(kTotalLock);
  rdsm_barrier();
  long sum = 0;
  for (int l = 0; l < kCounterLocks; ++l) sum += *word(counters, 2 * l);
  if (sum != totals[0]) fail("the counters' sum against the acquires made", sum, totals[0]);
  if (totals[1] == 0) fail("acquires by try in the whole job", 0, 1);
  if (rank_ == 0)
    printf("PASS trylock: %d nodes, %s: %ld acquires, %ld of them by try (%ld tries busy on node 0)\n", nodes,
           rdsm_protocol_name(), totals[0], totals[1], busy);
  rdsm_finalize();
  return 0;
}
