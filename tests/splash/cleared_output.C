/* Where the homes of the master's allocations start.  The master allocates
 * three arrays before it creates the workers: INPUT, which it fills, CLEARED, which it
 * sets to zero, and UNTOUCHED, which it never writes.  Each process then
 * writes its own block of whole pages of CLEARED and of UNTOUCHED from
 * INPUT and checks, after a barrier, what the next process wrote; the
 * master checks every element after the join.  The pages of CLEARED
 * and UNTOUCHED read as zero in every process, so they start in blocks
 * (where homes migrate) or with their first toucher, the writer either
 * way: a worker writes them without twins or diffs, which
 * tests/splash/cleared_output.sh checks in the statistics.
 * Built through m4 with splash/c.m4.rdsm.
 *
 *   usage: cleared_output [-p PROCESSES] [-k PAGES_PER_PROCESS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

MAIN_ENV

#include "pages_options.h"

struct shared {
  LOCKDEC(lock)
  BARDEC(bar)
  long next_id;
  long failures;
};

struct shared *S;
long P = 2, K = 64;
long *input, *cleared, *untouched;

static long value(long i) { return i * 7919 + 13; }

/* The arrays start on a page of their own: every page of a block is one process's. */
static long *page_aligned(size_t bytes) {
  char *p = (char *)G_MALLOC(bytes + 4096);
  return (long *)(p + (4096 - ((unsigned long)p % 4096)) % 4096);
}

void Work(void) {
  long id, i, next, lo, hi;
  LOCK(S->lock)
  id = S->next_id++;
  UNLOCK(S->lock)
  lo = id * K * (long)PAGE_LONGS;
  hi = lo + K * (long)PAGE_LONGS;
  for (i = lo; i < hi; i++) {
    cleared[i] = input[i] + 1;
    untouched[i] = input[i] + 2;
  }
  BARRIER(S->bar, P)
  next = (id + 1) % P;
  for (i = next * K * (long)PAGE_LONGS; i < (next + 1) * K * (long)PAGE_LONGS; i++)
    if (cleared[i] != value(i) + 1 || untouched[i] != value(i) + 2) {
      LOCK(S->lock)
      S->failures++;
      UNLOCK(S->lock)
      break;
    }
  BARRIER(S->bar, P)
}

int main(int argc, char **argv) {
  long i, n, bad = 0;
  parse_pages_options(argc, argv, "cleared_output", &P, &K);
  n = P * K * (long)PAGE_LONGS;
  MAIN_INITENV(, 3 * (size_t)n * sizeof(long) + (4u << 20))
  S = (struct shared *)G_MALLOC(sizeof(struct shared));
  LOCKINIT(S->lock)
  BARINIT(S->bar)
  S->next_id = 0;
  S->failures = 0;
  input = page_aligned((size_t)n * sizeof(long));
  cleared = page_aligned((size_t)n * sizeof(long));
  untouched = page_aligned((size_t)n * sizeof(long));
  for (i = 0; i < n; i++) input[i] = value(i);
  memset(cleared, 0, (size_t)n * sizeof(long));

  for (i = 1; i < P; i++) CREATE(Work)
  Work();
  WAIT_FOR_END(P - 1)

  for (i = 0; i < n; i++)
    if (cleared[i] != value(i) + 1 || untouched[i] != value(i) + 2) bad++;
  if (bad || S->failures) {
    printf("FAIL cleared_output: %ld elements wrong after the join, %ld processes saw a neighbour's block wrong\n",
           bad, S->failures);
    return 1;
  }
  printf("PASS cleared_output: %ld processes, %ld pages each\n", P, K);
  MAIN_END
}
