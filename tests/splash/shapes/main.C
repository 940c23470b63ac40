/* A SPLASH-style program whose synchronisation objects are declared in
 * headers included before the environment macros (shapes.H, decls.H), in
 * another file (work.C) and at file scope.  Built through m4 with
 * splash/c.m4.rdsm, each .H into a .h, like a SPLASH program.
 *
 *   usage: shapes [-p PROCESSES]
 */
#include "shapes.h"
#include "decls.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

MAIN_ENV

struct shared *G;
long P = 4;

/* File-scope declarations after MAIN_ENV too (private, not used for
 * synchronisation: they only have to compile). */
LOCKDEC(another_lock)
CONDVARDEC(another_cv)

int main(int argc, char **argv) {
  long i;
  int c;
  while ((c = getopt(argc, argv, "p:")) != -1) {
    if (c == 'p') P = atol(optarg);
    else { printf("usage: shapes [-p PROCESSES]\n"); exit(2); }
  }
  if (P < 1 || P > MAX_PROCS) {
    printf("shapes: -p must be 1..%d\n", MAX_PROCS);
    exit(2);
  }
  (void)&file_lock; (void)&file_locks; (void)&file_bar; (void)&file_pause; (void)&file_cv; (void)&file_gs;
  (void)&another_lock; (void)&another_cv;
  MAIN_INITENV(, 16000000)
  G = (struct shared *)G_MALLOC(sizeof(struct shared));
  memset(G, 0, sizeof *G);
  BARINIT(G->bar, P)
  ALOCKINIT(G->locks, NCELLS)
  for (i = 0; i < NCELLS; i++) LOCKINIT(G->cells[i].lock)
  LOCKINIT(G->q.lock)
  CONDVARINIT(G->q.nonempty)
  PAUSEINIT(G->ready)
  GSINIT(G->gs)
  for (i = 1; i < P; i++) CREATE(work)
  work();
  WAIT_FOR_END(P - 1)
  if (check(200) != 0) exit(1);
  printf("PASS shapes: %ld processes\n", P);
  MAIN_END
}
