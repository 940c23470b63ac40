/* A SPLASH-style program that uses every macro of splash/c.m4.rdsm and checks
 * what each one promises.  Written in the SPLASH dialect (m4 macros, a
 * master that sets up alone and then CREATEs workers), built through m4 like
 * a SPLASH program.
 *
 * Round 1 (SPLASH-2 style): CREATE(worker) P-1 times, the master runs the
 * worker too, WAIT_FOR_END(P-1).  Round 2 (Splash-3 style): CREATE(fn, P).
 *
 *   usage: every_macro [-p PROCESSES] [-n ITERATIONS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

EXTERN_ENV
MAIN_ENV

#define MAX_PROCS 64
#define NLOCKS 4096   /* an array of locks inside a shared structure */
#define NCELLS 1000
#define NCONDVARS 5000
#define SLOTS 8
#define NSUBS 100

struct shared_state {
  LOCKDEC(idlock)
  int next_id;
  BARDEC(all)
  BARDEC(some)
  ALOCKDEC(cell_locks, NLOCKS)
  long cells[NCELLS];          /* cell c is guarded by lock c only */
  long agetl_cell;             /* guarded by lock NLOCKS - 1 only */
  long *blocks[MAX_PROCS];     /* G_MALLOC'd by the workers themselves */
  long *unread[MAX_PROCS];     /* written in round 1, read by nobody until round 2 */
  PAUSEDEC(baton[MAX_PROCS])   /* a token passed around the processes */
  long baton_value;
  LOCKDEC(queue_lock)
  CONDVARDEC(not_empty)
  CONDVARDEC(not_full)
  CONDVARDEC(go)
  int started;
  long queue[SLOTS];
  int head, tail, count;
  long consumed_sum;
  long fence_data;
  long fence_flag;
  int failures;
  unsigned long clock_start, clock_end;
  long round2_sum;
  GSDEC(gs)
  long taken[2][NSUBS];
  long *no_semicolon;
  long *cell_counts;           /* [process][cell]: each process's own increments */
};

struct condvar_pool {
  CONDVARDEC(cv[NCONDVARS])
};

struct shared_state *G;
struct condvar_pool *Pool;
int P = 4;
long N = 2000;
long private_magic;         /* set by the master before CREATE: inherited */
long round2_magic;          /* set between the rounds: inherited by round 2 */

static void fail(const char *what, long got, long want) {
  printf("FAIL every_macro: %s: got %ld, want %ld\n", what, got, want);
  fflush(stdout);
  LOCK(G->idlock)
  G->failures++;
  UNLOCK(G->idlock)
}

static unsigned long next_random(unsigned long *s) {
  *s = *s * 6364136223846793005ul + 1442695040888963407ul;
  return *s >> 33;
}

void worker(void) {
  int id;
  long i;
  LOCK(G->idlock)
  id = G->next_id++;
  UNLOCK(G->idlock)
  if (private_magic != 4242) fail("private global set before CREATE", private_magic, 4242);

  BARRIER(G->all, P)

  /* Locks: increments of shared cells, each under its cell's lock.  A
   * process never reads a cell below the value it wrote there itself (it
   * holds the lock, so the cell is at least that new); each counts its own
   * increments, so that a lost one is found with its cell. */
  {
    unsigned long seed = 12345 + (unsigned long)id;
    long *mine = (long *)calloc(NCELLS, sizeof(long)), *wrote = (long *)calloc(NCELLS, sizeof(long));
    long stale = 0;
    if (!mine || !wrote) {
      printf("every_macro: out of memory\n");
      exit(1);
    }
    for (i = 0; i < N; i++) {
      long c = (long)(next_random(&seed) % NCELLS), v;
      ALOCK(G->cell_locks, c % NLOCKS)
      v = G->cells[c];
      G->cells[c] = v + 1;
      AULOCK(G->cell_locks, c % NLOCKS)
      if (v < wrote[c] && stale++ < 3)
        printf("FAIL every_macro: process %d, increment %ld: cell %ld (byte %ld of its page) read as %ld under its "
               "lock, below the %ld this process wrote there\n",
               id, i, c, (long)((unsigned long)&G->cells[c] % 4096), v, wrote[c]);
      wrote[c] = v + 1;
      mine[c]++;
    }
    if (stale) fail("reads of a cell below a value written before under its lock", stale, 0);
    for (i = 0; i < NCELLS; i++) G->cell_counts[id * NCELLS + i] = mine[i];
    free(mine);
    free(wrote);
    /* AGETL names a lock of the array for the plain lock macros.  Its
     * cell is its own: a cell written under two different locks would be a
     * data race, and an update could be lost under any memory model. */
    LOCK(AGETL(G->cell_locks, NLOCKS - 1))
    G->agetl_cell += 1;
    UNLOCK(AGETL(G->cell_locks, NLOCKS - 1))
  }

  /* Allocation by workers after CREATE. */
  {
    long *mine = (long *)G_MALLOC(3 * PAGE_SIZE);
    long *other = (long *)NU_MALLOC(100 * sizeof(long), id);
    for (i = 0; i < 3 * PAGE_SIZE / (long)sizeof(long); i++) mine[i] = id * 1000000L + i;
    other[0] = id;
    G->blocks[id] = mine;
    G->unread[id] = (long *)G_MALLOC(2 * PAGE_SIZE);
    for (i = 0; i < 2 * PAGE_SIZE / (long)sizeof(long); i++) G->unread[id][i] = id * 7 + i;
  }
  BARRIER(G->all, P)
  {
    int peer = (id + 1) % P;
    long *theirs = G->blocks[peer];
    for (i = 0; i < 3 * PAGE_SIZE / (long)sizeof(long); i++)
      if (theirs[i] != peer * 1000000L + i) {
        fail("block G_MALLOC'd by another process", theirs[i], peer * 1000000L + i);
        break;
      }
  }

  /* A barrier of part of the processes (not every process of the job). */
  if (P > 2 && id < P - 1) {
    for (i = 0; i < 5; i++) BARRIER(G->some, P - 1)
  }

  /* Pause flags: a baton passed 0 -> 1 -> ... -> P-1 -> 0, twice. */
  {
    int lap;
    for (lap = 0; lap < 2; lap++) {
      if (id != 0 || lap != 0) WAITPAUSE(G->baton[id])
      G->baton_value += id + 1;
      SETPAUSE(G->baton[(id + 1) % P])
    }
    if (id == 0) {
      WAITPAUSE(G->baton[0])
      if (G->baton_value != (long)P * (P + 1)) fail("baton value after two laps", G->baton_value, (long)P * (P + 1));
      CLEARPAUSE(G->baton[0])
    }
  }
  BARRIER(G->all, P)

  /* Condition variables: process 0 starts everyone with a broadcast, then a
   * bounded buffer: process 0 consumes what the others produce. */
  LOCK(G->queue_lock)
  if (id == 0) {
    G->started = 1;
    CONDVARBCAST(G->go)
  } else {
    while (!G->started) CONDVARWAIT(G->go, G->queue_lock)
  }
  UNLOCK(G->queue_lock)
  if (id == 0) {
    long items = (long)(P - 1) * 50, got = 0, sum = 0;
    while (got < items) {
      LOCK(G->queue_lock)
      while (G->count == 0) CONDVARWAIT(G->not_empty, G->queue_lock)
      sum += G->queue[G->head];
      G->head = (G->head + 1) % SLOTS;
      G->count--;
      got++;
      CONDVARSIGNAL(G->not_full)
      UNLOCK(G->queue_lock)
    }
    G->consumed_sum = sum;
  } else {
    for (i = 1; i <= 50; i++) {
      LOCK(G->queue_lock)
      while (G->count == SLOTS) CONDVARWAIT(G->not_full, G->queue_lock)
      G->queue[G->tail] = id * 100 + i;
      G->tail = (G->tail + 1) % SLOTS;
      G->count++;
      CONDVARSIGNAL(G->not_empty)
      UNLOCK(G->queue_lock)
    }
  }
  BARRIER(G->all, P)

  /* Fences: the last process publishes a value, process 0 waits for it. */
  if (id == P - 1) {
    G->fence_data = 777;
    RELEASE_FENCE
    G->fence_flag = 1;
    FULL_FENCE
  }
  if (id == 0) {
    long spins = 0;
    for (;;) {
      ACQUIRE_FENCE
      if (G->fence_flag) break;
      if (++spins > 2000000) {
        fail("flag published with RELEASE_FENCE never seen with ACQUIRE_FENCE", 0, 1);
        break;
      }
      usleep(50);
    }
    if (G->fence_flag && G->fence_data != 777) fail("data before RELEASE_FENCE", G->fence_data, 777);
  }
  BARRIER(G->all, P)

  /* Self-scheduled subscripts: each of 0..NSUBS-1 handed out exactly once,
   * in two passes (the counter starts again once every process got -1). */
  {
    int pass;
    long s;
    for (pass = 0; pass < 2; pass++) {
      for (;;) {
        GETSUB(G->gs, s, NSUBS - 1, P)
        if (s < 0) break;
        G->taken[pass][s] += 1;
      }
      BARRIER(G->all, P)
    }
  }
  {
    long pid;
    GET_PID(pid)
    if (pid < 0 || pid >= P) fail("GET_PID out of range", pid, P - 1);
  }
  AUG_OFF
  BAREXCLUDE(G->all)
  BARINCLUDE(G->all)
  AUG_ON
}

void second_round(void) {
  int id, c;
  long i, sum = 0;
  LOCK(G->idlock)
  id = G->next_id++;
  UNLOCK(G->idlock)
  if (round2_magic != 99) fail("private global set between the rounds", round2_magic, 99);
  /* Round 1's results, including pages that were homed at round 1's workers. */
  for (i = 0; i < 3 * PAGE_SIZE / (long)sizeof(long); i += 17) {
    long *b = G->blocks[(id + 1) % P];
    if (b[i] != ((id + 1) % P) * 1000000L + i) {
      fail("round 1 block seen in round 2", b[i], ((id + 1) % P) * 1000000L + i);
      break;
    }
  }
  for (c = 0; c < P; c++)
    for (i = 0; i < 2 * PAGE_SIZE / (long)sizeof(long); i++)
      if (G->unread[c][i] != c * 7 + i) {
        fail("round 1 data nobody read before round 2", G->unread[c][i], c * 7 + i);
        c = P;
        break;
      }
  for (i = 0; i < NCELLS; i++) sum += G->cells[i];
  LOCK(G->idlock)
  G->round2_sum += sum;
  UNLOCK(G->idlock)
  BARRIER(G->all, P)
}

int main(int argc, char **argv) {
  int c, i, round;
  unsigned long t0, t1;
  while ((c = getopt(argc, argv, "p:n:h")) != -1) {
    switch (c) {
      case 'p': P = atoi(optarg); break;
      case 'n': N = atol(optarg); break;
      default: printf("usage: every_macro [-p PROCESSES] [-n ITERATIONS]\n"); exit(c == 'h' ? 0 : 2);
    }
  }
  if (P < 1 || P > MAX_PROCS) {
    printf("every_macro: -p must be 1..%d\n", MAX_PROCS);
    exit(2);
  }
  MAIN_INITENV(, 64000000)
  CLOCK(t0)
  G = (struct shared_state *)G_MALLOC(sizeof(struct shared_state));
  memset(G, 0, sizeof *G);
  LOCKINIT(G->idlock)
  LOCKINIT(G->queue_lock)
  BARINIT(G->all, P)
  BARINIT(G->some, P - 1)
  ALOCKINIT(G->cell_locks, NLOCKS)
  for (i = 0; i < MAX_PROCS; i++) PAUSEINIT(G->baton[i])
  CONDVARINIT(G->not_empty)
  CONDVARINIT(G->not_full)
  CONDVARINIT(G->go)
  GSINIT(G->gs)
  G->no_semicolon = (long *) G_MALLOC(64 * sizeof(long))  /* as some SPLASH programs write it */
  G->no_semicolon[63] = 1;
  G->cell_counts = (long *)G_MALLOC(MAX_PROCS * NCELLS * sizeof(long));
  memset(G->cell_counts, 0, MAX_PROCS * NCELLS * sizeof(long));

  /* Thousands of condition variables, initialised three times over: the
   * same addresses keep their identities (no lock ids are used up). */
  Pool = (struct condvar_pool *)G_MALLOC(sizeof(struct condvar_pool));
  for (round = 0; round < 3; round++)
    for (i = 0; i < NCONDVARS; i++) CONDVARINIT(Pool->cv[i])

  private_magic = 4242;
  SPLASH3_ROI_BEGIN
  for (i = 1; i < P; i++) CREATE(worker)
  worker();
  WAIT_FOR_END(P - 1)
  SPLASH3_ROI_END

  {
    long total = 0, want = (long)P * N;
    for (i = 0; i < NCELLS; i++) total += G->cells[i];
    if (total != want) {
      int shown = 0, k;
      fail("sum of the lock-protected cells", total, want);
      for (i = 0; i < NCELLS && shown < 10; i++) {
        long made = 0;
        for (k = 0; k < P; k++) made += G->cell_counts[k * NCELLS + i];
        if (G->cells[i] == made) continue;
        shown++;
        printf("  cell %d (byte %ld of its page): %ld, but the processes made %ld increments:", i,
               (long)((unsigned long)&G->cells[i] % 4096), G->cells[i], made);
        for (k = 0; k < P; k++) printf(" %ld", G->cell_counts[k * NCELLS + i]);
        printf("\n");
      }
    }
    if (G->agetl_cell != P) fail("cell under the lock named by AGETL", G->agetl_cell, P);
    if (G->next_id != P) fail("ids handed out under a lock", G->next_id, P);
    {
      int pass, k;
      for (pass = 0; pass < 2; pass++)
        for (k = 0; k < NSUBS; k++)
          if (G->taken[pass][k] != 1) fail("GETSUB handed out a subscript", G->taken[pass][k], 1);
    }
    if (P > 1) {
      long want_sum = 0, k, j;
      for (k = 1; k < P; k++)
        for (j = 1; j <= 50; j++) want_sum += k * 100 + j;
      if (G->consumed_sum != want_sum) fail("sum through the condition-variable queue", G->consumed_sum, want_sum);
    }
  }

  /* Round 2: Splash-3's CREATE(fn, P) runs fn in the master too. */
  round2_magic = 99;
  G->next_id = 0;
  CREATE(second_round, P)
  WAIT_FOR_END(P - 1)
  {
    long total = 0;
    for (i = 0; i < NCELLS; i++) total += G->cells[i];
    if (G->round2_sum != total * P) fail("round 2 sums of round 1's cells", G->round2_sum, total * P);
  }

  CLOCK(t1)
  if (t1 < t0) fail("CLOCK went backwards", (long)t1, (long)t0);
  if (G->failures == 0)
    printf("PASS every_macro: %d processes, %ld lock increments each, two rounds, %.0f us\n", P, N,
           (double)(t1 - t0));
  else
    printf("FAIL every_macro: %d failures\n", G->failures);
  fflush(stdout);
  MAIN_END
}
