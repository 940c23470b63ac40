/* The workers' part of shapes: its own file, the header first, then
 * EXTERN_ENV. */
#include "shapes.h"
#include <stdio.h>

EXTERN_ENV

#define ITERATIONS 200

void work(void) {
  long id, i, s;
  LOCK(G->q.lock)
  id = G->q.count++;
  UNLOCK(G->q.lock)
  BARRIER(G->bar, P)
  for (i = 0; i < ITERATIONS; i++) {
    long c = (id + i) % NCELLS;
    LOCK(G->cells[c].lock)
    G->cells[c].value++;
    UNLOCK(G->cells[c].lock)
    ALOCK(G->locks, c)
    G->counts[c]++;
    AULOCK(G->locks, c)
  }
  for (;;) {
    GETSUB(G->gs, s, 99, P)
    if (s < 0) break;
    LOCK(G->q.lock)
    G->taken[s]++;
    UNLOCK(G->q.lock)
  }
  BARRIER(G->bar, P)
  /* Process 0 hands a token to every other one: a pause and a condition
   * variable declared inside the shared structure. */
  if (id == 0) {
    for (i = 1; i < P; i++) SETPAUSE(G->ready)
    LOCK(G->q.lock)
    G->q.items[0] = 42;
    CONDVARBCAST(G->q.nonempty)
    UNLOCK(G->q.lock)
  } else {
    WAITPAUSE(G->ready)
    LOCK(G->q.lock)
    while (G->q.items[0] != 42) CONDVARWAIT(G->q.nonempty, G->q.lock)
    G->received++;
    UNLOCK(G->q.lock)
  }
}

long check(long iterations) {
  long i, cells = 0, counts = 0, bad = 0;
  for (i = 0; i < NCELLS; i++) {
    cells += G->cells[i].value;
    counts += G->counts[i];
  }
  if (cells != P * iterations || counts != P * iterations) {
    printf("FAIL shapes: cells %ld, counts %ld, want %ld\n", cells, counts, P * iterations);
    bad++;
  }
  for (i = 0; i < 100; i++)
    if (G->taken[i] != 1) {
      printf("FAIL shapes: subscript %ld taken %ld times\n", i, G->taken[i]);
      bad++;
      break;
    }
  if (G->received != P - 1) {
    printf("FAIL shapes: %ld processes got the token, want %ld\n", G->received, P - 1);
    bad++;
  }
  return bad;
}
