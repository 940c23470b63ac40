/* Where the homes of the data the master sets up start.  Before it creates
 * the workers the master fills two arrays: INPUT with values and OUTPUT
 * with a marker.  Each process then reads its own block of whole pages of
 * INPUT (by its number, GET_PID) and overwrites the same block of OUTPUT.
 * The master checks every element after each join, then takes INPUT off
 * OUTPUT; a second job adds INPUT again (OUTPUT += INPUT), so its data
 * comes from the master's memory as the first job's workers and then the
 * master left it.  The master's arrays are spread over the
 * processes in blocks, so a worker reads and writes its block at home: no
 * fetches and no twins, which tests/splash/seeded_input.sh checks in the
 * statistics.  Built through m4 with splash/c.m4.rdsm.
 *
 *   usage: seeded_input [-p PROCESSES] [-k PAGES_PER_PROCESS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

MAIN_ENV

#include "pages_options.h"

struct shared {
  LOCKDEC(lock)
  BARDEC(bar)
  long next_id;
};

struct shared *S;
long P = 2, K = 64;
long *input, *output;

static long value(long i) { return i * 7919 + 13; }

void Work(void) {
  long id, i, lo, hi, times;
  GET_PID(id) /* the process's own number: its block is the one homed at its node */
  LOCK(S->lock)
  times = ++S->next_id > P ? 4 : 3; /* the second job adds to the first's */
  UNLOCK(S->lock)
  lo = id * K * (long)PAGE_LONGS;
  hi = lo + K * (long)PAGE_LONGS;
  for (i = lo; i < hi; i++) output[i] = times == 3 ? input[i] * 3 : output[i] + input[i];
  BARRIER(S->bar, P)
}

static long check(long n, long times) {
  long i, bad = 0;
  for (i = 0; i < n; i++)
    if (output[i] != value(i) * times) bad++;
  return bad;
}

int main(int argc, char **argv) {
  long i, n, job, bad;
  parse_pages_options(argc, argv, "seeded_input", &P, &K);
  n = P * K * (long)PAGE_LONGS;
  MAIN_INITENV(, 2 * (size_t)n * sizeof(long) + (4u << 20))
  S = (struct shared *)G_MALLOC(sizeof(struct shared));
  LOCKINIT(S->lock)
  BARINIT(S->bar)
  S->next_id = 0;
  /* Whole pages (allocations of a page or more are page aligned): a block of pages is one process's. */
  input = (long *)G_MALLOC((size_t)n * sizeof(long));
  output = (long *)G_MALLOC((size_t)n * sizeof(long));
  for (i = 0; i < n; i++) {
    input[i] = value(i);
    output[i] = -1;
  }

  for (job = 0; job < 2; job++) {
    for (i = 1; i < P; i++) CREATE(Work)
    Work();
    WAIT_FOR_END(P - 1)
    bad = check(n, 3);
    if (bad) {
      printf("FAIL seeded_input: job %ld: %ld elements wrong after the join\n", job + 1, bad);
      return 1;
    }
    /* The master changes the workers' blocks between the jobs (mapped from
     * their memory as the first job left them): the second job must start
     * from this. */
    for (i = 0; i < n; i++) output[i] -= input[i];
  }
  printf("PASS seeded_input: %ld processes, %ld pages each, 2 jobs\n", P, K);
  MAIN_END
}
