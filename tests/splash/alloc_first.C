/* Shared memory allocated before MAIN_INITENV: the program builds its input
 * in G_MALLOC'd memory during its sequential set-up and calls MAIN_INITENV
 * only afterwards, with its estimate.  The workers then read that input and
 * write their results next to it.  Built through m4 with splash/c.m4.rdsm.
 *
 *   usage: alloc_first [-p PROCESSES] [-n VALUES]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

MAIN_ENV

#define MAX_PROCS 64

struct input {
  long n;
  long *values;         /* G_MALLOC'd before MAIN_INITENV */
  double *weights;      /* NU_MALLOC'd before MAIN_INITENV */
};

struct results {
  LOCKDEC(lock)
  BARDEC(bar)
  long next_id;
  long sums[MAX_PROCS];
  double total_weight;
};

struct input *In;
struct results *Out;
long P = 4;

/* The set-up: everything it allocates is shared. */
static void make_input(long n) {
  long i;
  In = (struct input *)G_MALLOC(sizeof(struct input));
  In->n = n;
  In->values = (long *)G_MALLOC(n * sizeof(long))
  In->weights = (double *)NU_MALLOC(n * sizeof(double));
  for (i = 0; i < n; i++) {
    In->values[i] = (i * 7919) % 1000 + 1;
    In->weights[i] = 0.5;
  }
}

void work(void) {
  long id, i, sum = 0;
  double w = 0;
  LOCK(Out->lock)
  id = Out->next_id++;
  UNLOCK(Out->lock)
  for (i = id; i < In->n; i += P) {
    sum += In->values[i];
    w += In->weights[i];
  }
  Out->sums[id] = sum;
  LOCK(Out->lock)
  Out->total_weight += w;
  UNLOCK(Out->lock)
  BARRIER(Out->bar, P)
}

int main(int argc, char **argv) {
  long n = 100000, i, got = 0, want = 0;
  int c;
  while ((c = getopt(argc, argv, "p:n:")) != -1) {
    switch (c) {
      case 'p': P = atol(optarg); break;
      case 'n': n = atol(optarg); break;
      default: printf("usage: alloc_first [-p PROCESSES] [-n VALUES]\n"); exit(2);
    }
  }
  if (P < 1 || P > MAX_PROCS || n < 1) {
    printf("alloc_first: -p must be 1..%d, -n at least 1\n", MAX_PROCS);
    exit(2);
  }
  make_input(n);
  MAIN_INITENV(, 2 * n * (sizeof(long) + sizeof(double)) + 1000000)
  Out = (struct results *)G_MALLOC(sizeof(struct results));
  memset(Out, 0, sizeof *Out);
  LOCKINIT(Out->lock)
  BARINIT(Out->bar, P)
  for (i = 1; i < P; i++) CREATE(work)
  work();
  WAIT_FOR_END(P - 1)
  for (i = 0; i < n; i++) want += (i * 7919) % 1000 + 1;
  for (i = 0; i < P; i++) got += Out->sums[i];
  if (got != want || Out->total_weight != 0.5 * n) {
    printf("FAIL alloc_first: sum %ld, want %ld; weight %g, want %g\n", got, want, Out->total_weight, 0.5 * n);
    exit(1);
  }
  printf("PASS alloc_first: %ld processes, %ld values allocated during the set-up\n", P, n);
  MAIN_END
}
