/* Processes that number themselves under a lock, as SPLASH programs do,
 * get their worker numbers, the process-id macro's (their first
 * synchronisation of a forked job is taken in worker order:
 * src/api/splash_order.hpp), in every job of the program.  With -s worker 1
 * makes no synchronisation call at all, and its turn passes as its function
 * returns: the others take the numbers after it in order.  Built through m4
 * with splash/c.m4.rdsm.
 *
 *   usage: id_order [-p PROCESSES] [-j JOBS] [-s]
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

MAIN_ENV

#define MAX_PROCS 64

struct shared {
  LOCKDEC(idlock)
  BARDEC(bar)
  long next_id;
  long wrong;    /* processes whose number is not their worker number */
  long first_wrong_pid, first_wrong_id;
};

struct shared *S;
long P = 2, jobs = 3;
int silent = 0;

void Work(void) {
  long id, pid;
  GET_PID(pid)
  if (silent && pid == 1) return;
  LOCK(S->idlock)
  id = S->next_id++;
  if (id != (silent && pid > 1 ? pid - 1 : pid)) {
    if (S->wrong++ == 0) {
      S->first_wrong_pid = pid;
      S->first_wrong_id = id;
    }
  }
  UNLOCK(S->idlock)
  if (!silent) BARRIER(S->bar, P)
}

int main(int argc, char **argv) {
  int c;
  long i, j;
  while ((c = getopt(argc, argv, "p:j:s")) != -1) {
    if (c == 'p') P = atol(optarg);
    else if (c == 'j') jobs = atol(optarg);
    else if (c == 's') silent = 1;
    else {
      fprintf(stderr, "usage: id_order [-p PROCESSES] [-j JOBS] [-s]\n");
      exit(2);
    }
  }
  if (P < 1 || P > MAX_PROCS || jobs < 1 || jobs > 1000) {
    fprintf(stderr, "id_order: -p must be 1..%d and -j 1..1000\n", MAX_PROCS);
    exit(2);
  }
  MAIN_INITENV(, 1u << 20)
  S = (struct shared *)G_MALLOC(sizeof(struct shared));
  LOCKINIT(S->idlock)
  BARINIT(S->bar)
  S->wrong = 0;
  for (j = 0; j < jobs; j++) {
    S->next_id = 0;
    for (i = 1; i < P; i++) CREATE(Work)
    Work();
    WAIT_FOR_END(P - 1)
    if (S->wrong) {
      printf("FAIL id_order: job %ld: %ld processes numbered out of worker order (worker %ld took number %ld)\n",
             j, S->wrong, S->first_wrong_pid, S->first_wrong_id);
      return 1;
    }
  }
  printf("PASS id_order: %ld processes, %ld jobs, numbered in worker order%s\n", P, jobs,
         silent ? " (worker 1 silent)" : "");
  MAIN_END
}
