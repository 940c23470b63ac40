/* The master's private globals reach its workers as fork would give them,
 * whether the workers are forked on this host or are ranks of an MPI job on
 * other hosts (which get a copy of the master's .data and .bss at each
 * CREATE): values set during the sequential set-up and changed between two
 * rounds of CREATE, in initialised and zeroed globals, file-static ones,
 * large arrays, structures, pointers to shared memory, to strings of the
 * program and to its functions.  A global pointing into the master's heap
 * is only used by the master (on the mpi fabric the runtime warns about
 * it).  Built through m4 with splash/c.m4.rdsm.
 *
 *   usage: globals [-p PROCESSES]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

MAIN_ENV

#define MAX_PROCS 64
#define TABLE 100000

struct shared {
  LOCKDEC(lock)
  BARDEC(bar)
  long next_id;
  long failures;
  long checked[MAX_PROCS];
  char first_failure[160];
};

struct settings {
  long n;
  double scale;
  char name[24];
  long weights[64];
};

struct shared *S;
long P = 4;
long round_no;                   /* zero until set: .bss */
int initialised = 7;             /* .data */
static double file_static = 1.5; /* a symbol local to this file */
struct settings settings;
int big_table[TABLE];            /* 400 KB of .bss */
double *shared_values;           /* points into shared memory */
const char *label = "unset";     /* points to a string of the program */
long (*op)(long);                /* points to a function of the program */
char *master_notes;              /* points into the master's heap: only the master uses it */

long twice(long x) { return 2 * x; }
long thrice(long x) { return 3 * x; }

static void fail(long id, const char *what, long got, long want) {
  LOCK(S->lock)
  if (S->failures++ == 0)
    snprintf(S->first_failure, sizeof S->first_failure, "worker %ld, round %ld: %s is %ld, want %ld", id, round_no,
             what, got, want);
  UNLOCK(S->lock)
}

/* What the master set for round r, checked by every worker. */
static void check(long id, long r) {
  long i, bad = 0;
  if (initialised != (r == 1 ? 11 : 13)) fail(id, "initialised", initialised, r == 1 ? 11 : 13);
  if (file_static != 2.5 * (double)r) fail(id, "file_static x 10", (long)(file_static * 10), (long)(25 * r));
  if (settings.n != 100 * r) fail(id, "settings.n", settings.n, 100 * r);
  if (settings.scale != 0.25 * (double)r) fail(id, "settings.scale x 100", (long)(settings.scale * 100), 25 * r);
  if (strcmp(settings.name, r == 1 ? "first" : "second") != 0) fail(id, "settings.name's length", (long)strlen(settings.name), 0);
  for (i = 0; i < 64; i++)
    if (settings.weights[i] != i * r) bad++;
  if (bad) fail(id, "wrong settings.weights", bad, 0);
  bad = 0;
  for (i = 0; i < TABLE; i++)
    if (big_table[i] != (int)(i * r + 1)) bad++;
  if (bad) fail(id, "wrong big_table entries", bad, 0);
  if (strcmp(label, r == 1 ? "round one" : "round two") != 0) fail(id, "label's length", (long)strlen(label), 9);
  if (op(21) != (r == 1 ? 42 : 63)) fail(id, "op(21)", op(21), r == 1 ? 42 : 63);
  for (i = 0; i < 1000; i++)
    if (shared_values[i] != (double)(i * r)) bad++;
  if (bad) fail(id, "wrong shared values", bad, 0);
}

void worker(void) {
  long id;
  LOCK(S->lock)
  id = S->next_id++;
  UNLOCK(S->lock)
  check(id, round_no);
  S->checked[id] = round_no;
  BARRIER(S->bar, P)
}

/* The master's set-up of round r: its private globals, and shared values. */
static void set_round(long r) {
  long i;
  round_no = r;
  initialised = r == 1 ? 11 : 13;
  file_static = 2.5 * (double)r;
  settings.n = 100 * r;
  settings.scale = 0.25 * (double)r;
  strcpy(settings.name, r == 1 ? "first" : "second");
  for (i = 0; i < 64; i++) settings.weights[i] = i * r;
  for (i = 0; i < TABLE; i++) big_table[i] = (int)(i * r + 1);
  label = r == 1 ? "round one" : "round two";
  op = r == 1 ? twice : thrice;
  for (i = 0; i < 1000; i++) shared_values[i] = (double)(i * r);
  snprintf(master_notes, 64, "round %ld set", r);
  S->next_id = 0;
}

int main(int argc, char **argv) {
  long i, r;
  int c;
  while ((c = getopt(argc, argv, "p:")) != -1) {
    switch (c) {
      case 'p': P = atol(optarg); break;
      default: printf("usage: globals [-p PROCESSES]\n"); exit(2);
    }
  }
  if (P < 1 || P > MAX_PROCS) {
    printf("globals: -p must be 1..%d\n", MAX_PROCS);
    exit(2);
  }
  MAIN_INITENV(, 1000000)
  S = (struct shared *)G_MALLOC(sizeof(struct shared));
  memset(S, 0, sizeof *S);
  LOCKINIT(S->lock)
  BARINIT(S->bar, P)
  shared_values = (double *)G_MALLOC(1000 * sizeof(double));
  master_notes = (char *)malloc(64);
  for (r = 1; r <= 2; r++) {
    set_round(r);
    for (i = 1; i < P; i++) CREATE(worker)
    worker();
    WAIT_FOR_END(P - 1)
  }
  for (i = 0; i < P; i++)
    if (S->checked[i] != 2) {
      printf("FAIL globals: worker %ld checked round %ld last, not 2\n", i, S->checked[i]);
      exit(1);
    }
  if (S->failures) {
    printf("FAIL globals: %ld failed checks, the first: %s\n", S->failures, S->first_failure);
    exit(1);
  }
  printf("PASS globals: %ld processes, two rounds of private globals (%s)\n", P, master_notes);
  MAIN_END
}
