/* A SPLASH-style program that fails on purpose, one way per mode, for the
 * failure tests (tests/splash/failure.sh):
 *   crash    workers that got ids >= 2 die of SIGSEGV while the others wait
 *            in a barrier
 *   exit     those workers call exit(0) in their function instead of returning
 *   huge     the master asks G_MALLOC for 40 GiB
 *   estimate G_MALLOC before MAIN_INITENV, then an estimate of 40 GiB: more
 *            than the region the G_MALLOC set up
 *   barrier  a BARRIER for more processes than the program created
 *   ok       nothing fails
 *   leave    the master calls exit(0) while its workers still run: the
 *            program ends normally, workers included (as with threads)
 *   usage: failures MODE MARKER   (MARKER only marks the processes)
 */
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

MAIN_ENV

struct shared {
  LOCKDEC(idlock)
  int next_id;
  BARDEC(bar)
};
struct shared *G;
const char *mode;
pid_t master_pid; /* set before CREATE: every worker inherits it */
int P = 4;

void work(void) {
  int id;
  LOCK(G->idlock)
  id = G->next_id++;
  UNLOCK(G->idlock)
  if (id >= 2 && getpid() != master_pid && !strcmp(mode, "crash")) {
    /* A page without access, not a null pointer: sanitizers check stores
     * through null pointers before they happen. */
    volatile int *nowhere = (volatile int *)mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    *nowhere = 1;
  }
  if (id >= 2 && getpid() != master_pid && !strcmp(mode, "exit")) exit(0);
  BARRIER(G->bar, P)
  if (!strcmp(mode, "barrier")) BARRIER(G->bar, P + 1)
  if (!strcmp(mode, "leave")) {
    if (getpid() == master_pid) {
      printf("PASS failures: leave\n");
      exit(0);
    }
    for (;;) BARRIER(G->bar, P) /* waits for the master, which is gone */
  }
}

int main(int argc, char **argv) {
  int i;
  if (argc < 2) {
    printf("usage: failures crash|exit|huge|estimate|barrier|ok|leave [MARKER]\n");
    exit(2);
  }
  mode = argv[1];
  master_pid = getpid();
  if (!strcmp(mode, "estimate")) {
    G = (struct shared *)G_MALLOC(sizeof(struct shared));
    MAIN_INITENV(, (size_t)40 << 30)
    printf("failures: the estimate went through\n");
    exit(0);
  }
  MAIN_INITENV()
  G = (struct shared *)G_MALLOC(sizeof(struct shared));
  G->next_id = 0;
  LOCKINIT(G->idlock)
  BARINIT(G->bar, P)
  if (!strcmp(mode, "huge")) {
    char *big = (char *)G_MALLOC((size_t)40 << 30);
    big[0] = 1;
  }
  for (i = 1; i < P; i++) CREATE(work)
  work();
  WAIT_FOR_END(P - 1)
  printf("PASS failures: %s\n", mode);
  MAIN_END
}
