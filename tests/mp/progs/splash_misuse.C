/* A SPLASH-style program (built through m4 with splash/c.m4.rdsm) that
 * misuses the PARMACS macros in one way per case.  The runtime must end it
 * with a message naming the macro, the cause and what to do; if the misuse
 * goes through instead, the program says so and exits with status 0, which
 * the tests count as a failure.
 *   initenv_twice      MAIN_INITENV twice
 *   create_before_init CREATE before MAIN_INITENV
 *   create_too_many    CREATE(worker) 64 times: more workers than a job holds
 *   create_n_too_many  CREATE(worker, 65) (Splash-3)
 *   create_by_worker   a worker calls CREATE
 *   create_running     CREATE while the workers of an earlier CREATE run
 *   wait_negative      WAIT_FOR_END(-1)
 *   malloc_zero        G_MALLOC(0)
 *   lock_private       LOCKINIT of a lock that is not in shared memory
 *   usage: splash_misuse CASE [MARKER]   (MARKER only marks the processes)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

MAIN_ENV

struct shared {
  BARDEC(bar)
  int unused;
};
struct shared *G;
const char *mode;
LOCKDEC(private_lock)

void idle(void) {}

void worker_creates(void) {
  CREATE(idle)
  printf("splash_misuse: creating a worker from a worker went through\n");
}

static int went_through(const char *what) {
  printf("splash_misuse: %s went through instead of ending the program\n", what);
  fflush(stdout);
  return 0;
}

int main(int argc, char **argv) {
  int i;
  if (argc < 2) {
    printf("usage: splash_misuse CASE [MARKER]\n");
    exit(64);
  }
  mode = argv[1];
  if (!strcmp(mode, "create_before_init")) {
    CREATE(idle)
    return went_through("creating a worker before the set-up");
  }
  MAIN_INITENV()
  G = (struct shared *)G_MALLOC(sizeof(struct shared));
  BARINIT(G->bar)
  if (!strcmp(mode, "initenv_twice")) {
    MAIN_INITENV()
    return went_through("a second set-up");
  }
  if (!strcmp(mode, "create_too_many")) {
    for (i = 0; i < 64; i++) CREATE(idle)
    return went_through("creating 64 workers");
  }
  if (!strcmp(mode, "create_n_too_many")) {
    CREATE(idle, 65)
    return went_through("asking for 65 processes");
  }
  if (!strcmp(mode, "create_by_worker")) {
    CREATE(worker_creates)
    WAIT_FOR_END(1)
    return went_through("creating a worker from a worker");
  }
  if (!strcmp(mode, "create_running")) {
    CREATE(idle)
    BARRIER(G->bar, 2) /* forms the job: the worker runs */
    CREATE(idle)
    return went_through("creating workers while others run");
  }
  if (!strcmp(mode, "wait_negative")) {
    WAIT_FOR_END(-1)
    return went_through("waiting for -1 workers");
  }
  if (!strcmp(mode, "malloc_zero")) {
    char *p = (char *)G_MALLOC(0);
    printf("splash_misuse: got %p\n", (void *)p);
    return went_through("allocating 0 bytes");
  }
  if (!strcmp(mode, "lock_private")) {
    LOCKINIT(private_lock)
    return went_through("initialising a private lock");
  }
  printf("splash_misuse: unknown case '%s'\n", mode);
  exit(64);
}
