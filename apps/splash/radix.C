/* Integer radix sort in the SPLASH-2 macro dialect, shaped like the SPLASH-2
 * RADIX kernel.
 *
 * n keys in [0, M) are sorted by their digits of log2(radix) bits, least
 * significant first; each pass is a stable counting sort from one key array
 * into the other.  Every process owns a contiguous slice of the key indices.
 * A pass:
 *   1. each process counts the digits of its slice of the source keys into
 *      its own row of the shared histogram array                   barrier
 *   2. prefix sums: the digits are split among the processes; for each of
 *      its digits a process sums the column over processes (how many of
 *      that digit lie in slices before each process) and the digit's total,
 *      and adds its digits' totals                                 barrier
 *      each process adds the sums of the processes before it and writes
 *      the first rank of each of its digits                        barrier
 *   3. each process moves its keys to their ranks in the destination array
 *      (scattered writes into pages every process writes)          barrier
 * With -f the prefix sums go as the SPLASH-2 original's do, by pairwise
 * hand-offs of pause flags instead of barriers: the processes' counts are
 * summed up a binary tree (a process waits for the flag of the subtree to
 * its right, adds that subtree's sums into its own and passes the result
 * up), process 0 turns the totals into each digit's first rank, and the
 * offsets of the slices before each process come back down the tree, each
 * parent setting its right child's flag; one barrier ends the pass.
 * This works for any number of processes.  The master generates the keys
 * and initialises every shared array before any worker exists (with -o, as
 * the SPLASH-2 original does, each process makes its own slice's keys and
 * nobody sets up the destination); afterwards it checks that the result is
 * sorted and equals qsort of the input.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

MAIN_ENV

#define MAX_PROCS 64

static const char *usage_text =
    "usage: splash_radix [-pP] [-nN] [-rR] [-mM] [-sS] [-o] [-f] [-t] [-h]\n"
    "  radix sort of N integer keys in [0, M)\n"
    "  -pP  processes (1..64, default 1)\n"
    "  -nN  number of keys (default 4194304)\n"
    "  -rR  radix, a power of two, 2..65536 (default 1024)\n"
    "  -mM  keys are below M, 2..2^31-1 (default 524288)\n"
    "  -sS  seed of the keys (default 1)\n"
    "  -o   as the SPLASH-2 original: each process makes the keys of its own slice\n"
    "       (before the timed part); the master leaves both key arrays untouched\n"
    "  -f   prefix sums by pause flags up and down a tree of the processes, as the\n"
    "       SPLASH-2 original (SETPAUSE / WAITPAUSE), one barrier a pass\n"
    "  -t   check the result (always done)\n"
    "  -h   this help\n";

struct GlobalMemory {
  LOCKDEC(idlock)
  long id;
  BARDEC(bar)
  PAUSEDEC(up[MAX_PROCS])   /* -f: set by a process once its subtree's sums are ready */
  PAUSEDEC(down[MAX_PROCS]) /* -f: set by its parent once a process's offsets are ready */
};

struct GlobalMemory *Global;
int *keys[2];         /* source and destination, swapped after every pass */
long *histogram;      /* [P][row]: how many keys of each digit in a slice */
long *before;         /* [P][row]: keys of the digit in the slices before it */
long *digit_total;    /* [radix] */
long *digit_start;    /* [radix]: rank of the first key of the digit */
long *partial;        /* [P][16]: total of the digits a process sums, alone in its line */
long *subtree;        /* -f, [P][row]: sums of the digits over a process's subtree of the tree */

long P = 1;
long nkeys = 4194304;
long radix = 1024;
long max_key = 524288;
long seed = 1;
int own_keys = 0; /* -o: each process makes its own slice's keys */
int flag_tree = 0; /* -f: prefix sums by pause flags up and down a tree */
long log_radix, passes, row;
unsigned long start_time;

#define SPLASH_PROGRAM "splash_radix"
#include "splash_args.h"

static void generate(int *out) {
  unsigned long long state = 0x853C49E6748FEA9Bull ^ (unsigned long long)seed * 0x9E3779B97F4A7C15ull;
  long i;
  for (i = 0; i < nkeys; i++) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    out[i] = (int)((state >> 33) % (unsigned long long)max_key);
  }
}

/* -o: key i on its own (a hash of the seed and i), so that each process can
 * make the keys of its slice. */
static int key_at(long i) {
  unsigned long long z = (unsigned long long)seed * 0x9E3779B97F4A7C15ull + (unsigned long long)i + 1;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (int)((z ^ (z >> 31)) % (unsigned long long)max_key);
}

/* ---- one pass, for process id of nprocs (the reference: 0 of 1) ----------- */

struct sort_arrays {
  long *histogram, *before, *digit_total, *digit_start, *partial;
};

static void count_digits(const struct sort_arrays *s, const int *src, long id, long nprocs, long digit_shift) {
  long lo = id * nkeys / nprocs, hi = (id + 1) * nkeys / nprocs, i;
  long *mine = s->histogram + id * row, mask = radix - 1;
  for (i = 0; i < radix; i++) mine[i] = 0;
  for (i = lo; i < hi; i++) mine[(src[i] >> digit_shift) & mask]++;
}

static void sum_columns(const struct sort_arrays *s, long id, long nprocs) {
  long d0 = id * radix / nprocs, d1 = (id + 1) * radix / nprocs, d, q, sum = 0;
  for (d = d0; d < d1; d++) {
    long running = 0;
    for (q = 0; q < nprocs; q++) {
      s->before[q * row + d] = running;
      running += s->histogram[q * row + d];
    }
    s->digit_total[d] = running;
    sum += running;
  }
  s->partial[id * 16] = sum;
}

static void digit_ranks(const struct sort_arrays *s, long id, long nprocs) {
  long d0 = id * radix / nprocs, d1 = (id + 1) * radix / nprocs, d, q, base = 0;
  for (q = 0; q < id; q++) base += s->partial[q * 16];
  for (d = d0; d < d1; d++) {
    s->digit_start[d] = base;
    base += s->digit_total[d];
  }
}

static void permute(const struct sort_arrays *s, const int *src, int *dst, long *next, long id, long nprocs,
                    long digit_shift) {
  long lo = id * nkeys / nprocs, hi = (id + 1) * nkeys / nprocs, i, d, mask = radix - 1;
  for (d = 0; d < radix; d++) next[d] = s->digit_start[d] + s->before[id * row + d];
  for (i = lo; i < hi; i++) {
    int k = src[i];
    dst[next[(k >> digit_shift) & mask]++] = k;
  }
}

/* -f: the prefix sums of a pass by pause flags.  The tree: at level k
 * (stride s = 2^k) process id, a multiple of 2s, is the parent of id + s
 * (when there is one); a process that is id + s at level k stops climbing
 * there.  Each process leaves its slice's offsets in its row of before[]
 * and process 0 writes digit_start[]. */
static void flag_tree_sums(const struct sort_arrays *s, long id, long nprocs, long *left) {
  long *mine = subtree + id * row, *counts = s->histogram + id * row, *offsets = s->before + id * row;
  long stride, top = 0, d;
  for (d = 0; d < radix; d++) mine[d] = counts[d];
  /* Up: add the right subtrees' sums, level by level, until this process is a right child. */
  for (stride = 1; stride < nprocs; stride *= 2) {
    if (id % (2 * stride) != 0) {
      SETPAUSE(Global->up[id])
      break;
    }
    if (id + stride < nprocs) {
      const long *right = subtree + (id + stride) * row;
      WAITPAUSE(Global->up[id + stride])
      CLEARPAUSE(Global->up[id + stride])
      for (d = 0; d < radix; d++) mine[d] += right[d];
    }
    top = stride * 2;
  }
  /* Down: the offsets of the slices before this one come from the parent
   * (nothing before process 0, whose sums are the digits' totals). */
  if (id == 0) {
    long base = 0;
    for (d = 0; d < radix; d++) {
      s->digit_start[d] = base;
      base += mine[d];
      offsets[d] = 0;
    }
  } else {
    WAITPAUSE(Global->down[id])
    CLEARPAUSE(Global->down[id])
  }
  /* The sums of this process's subtree at each level, from the top down:
   * the left part of a level is the whole less its right subtree, and the
   * right child's slices come after the left part's. */
  for (d = 0; d < radix; d++) left[d] = mine[d];
  for (stride = top / 2; stride >= 1; stride /= 2) {
    if (id + stride < nprocs) {
      const long *right = subtree + (id + stride) * row;
      long *child = s->before + (id + stride) * row;
      for (d = 0; d < radix; d++) {
        left[d] -= right[d];
        child[d] = offsets[d] + left[d];
      }
      SETPAUSE(Global->down[id + stride])
    }
  }
}

/* ---- the parallel part ---------------------------------------------------- */

void SlaveStart(void) {
  long id, pid, pass;
  long *next = (long *)malloc((size_t)radix * sizeof(long));
  long *left = (long *)malloc((size_t)radix * sizeof(long));
  struct sort_arrays s;

  LOCK(Global->idlock)
  id = Global->id;
  Global->id++;
  UNLOCK(Global->idlock)

  s.histogram = histogram;
  s.before = before;
  s.digit_total = digit_total;
  s.digit_start = digit_start;
  s.partial = partial;
  if (own_keys) {
    long i, lo = id * nkeys / P, hi = (id + 1) * nkeys / P;
    for (i = lo; i < hi; i++) keys[0][i] = key_at(i);
  }

  BARRIER(Global->bar, P)
  GET_PID(pid)
  if (pid == 0) CLOCK(start_time)

  for (pass = 0; pass < passes; pass++) {
    const int *src = keys[pass % 2];
    int *dst = keys[(pass + 1) % 2];
    count_digits(&s, src, id, P, pass * log_radix);
    if (flag_tree) {
      flag_tree_sums(&s, id, P, left);
    } else {
      BARRIER(Global->bar, P)
      sum_columns(&s, id, P);
      BARRIER(Global->bar, P)
      digit_ranks(&s, id, P);
      BARRIER(Global->bar, P)
    }
    permute(&s, src, dst, next, id, P, pass * log_radix);
    BARRIER(Global->bar, P)
  }
  free(next);
  free(left);
}

/* ---- set-up and check ----------------------------------------------------- */

static int compare_ints(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  int c;
  long i, bits;
  unsigned long create_time, end_time, seq_start, seq_end;

  const char *const options = "p:n:r:m:s:ofth";
  opterr = 0;
  while ((c = getopt(argc, argv, options)) != -1) {
    switch (c) {
      case 'p': P = parse_long("-p", optarg, 1, MAX_PROCS); break;
      case 'n': nkeys = parse_long("-n", optarg, 1, 1L << 28); break;
      case 'r': radix = parse_long("-r", optarg, 2, 65536); break;
      case 'm': max_key = parse_long("-m", optarg, 2, 2147483647L); break;
      case 's': seed = parse_long("-s", optarg, 0, 2147483647L); break;
      case 'o': own_keys = 1; break;
      case 'f': flag_tree = 1; break;
      case 't': break;
      case 'h': printf("%s", usage_text); exit(0);
      default: bad_option(options);
    }
  }
  if (optind < argc) usage_error("unexpected argument '%s'", argv[optind]);
  if (radix & (radix - 1)) {
    char what[64];
    snprintf(what, sizeof what, "-r %ld: the radix must be a power of two", radix);
    usage_error("%s", what);
  }
  for (log_radix = 0; (1L << log_radix) < radix; log_radix++) {
  }
  for (bits = 0; (1L << bits) < max_key; bits++) {
  }
  passes = (bits + log_radix - 1) / log_radix;
  /* Each process's histogram row on pages of its own. */
  row = (radix * (long)sizeof(long) + 4095) / 4096 * 4096 / (long)sizeof(long);

  /* Two key arrays, three histogram arrays, the digit arrays, slack. */
  MAIN_INITENV(, 2 * (size_t)nkeys * sizeof(int) + 3 * (size_t)P * (size_t)row * sizeof(long) +
                     2 * (size_t)radix * sizeof(long) + (size_t)MAX_PROCS * 16 * sizeof(long) + (4u << 20))

  Global = (struct GlobalMemory *)G_MALLOC(sizeof(struct GlobalMemory));
  Global->id = 0;
  LOCKINIT(Global->idlock)
  BARINIT(Global->bar)
  for (i = 0; i < MAX_PROCS; i++) {
    PAUSEINIT(Global->up[i])
    PAUSEINIT(Global->down[i])
  }
  keys[0] = (int *)G_MALLOC((size_t)nkeys * sizeof(int));
  keys[1] = (int *)G_MALLOC((size_t)nkeys * sizeof(int));
  histogram = (long *)G_MALLOC((size_t)P * (size_t)row * sizeof(long));
  before = (long *)G_MALLOC((size_t)P * (size_t)row * sizeof(long));
  digit_total = (long *)G_MALLOC((size_t)radix * sizeof(long));
  digit_start = (long *)G_MALLOC((size_t)radix * sizeof(long));
  partial = (long *)G_MALLOC((size_t)P * 16 * sizeof(long));
  subtree = (long *)G_MALLOC((size_t)P * (size_t)row * sizeof(long));

  if (!own_keys) {
    generate(keys[0]);
    memset(keys[1], 0, (size_t)nkeys * sizeof(int));
  }
  memset(histogram, 0, (size_t)P * (size_t)row * sizeof(long));
  memset(before, 0, (size_t)P * (size_t)row * sizeof(long));
  memset(subtree, 0, (size_t)P * (size_t)row * sizeof(long));
  memset(digit_total, 0, (size_t)radix * sizeof(long));
  memset(digit_start, 0, (size_t)radix * sizeof(long));
  memset(partial, 0, (size_t)P * 16 * sizeof(long));

  CLOCK(create_time) /* the job forms at the first CREATE: its start is counted from here */
  for (i = 1; i < P; i++) CREATE(SlaveStart)
  SlaveStart();
  WAIT_FOR_END(P - 1)
  CLOCK(end_time)

  {
    const int *sorted = keys[passes % 2];
    int *input = (int *)malloc((size_t)nkeys * sizeof(int));
    int *ref[2];
    long *next = (long *)malloc((size_t)radix * sizeof(long));
    struct sort_arrays s;
    long pass, unsorted = 0, first_bad = -1, differ = 0;
    const char *what = NULL;
    ref[0] = (int *)malloc((size_t)nkeys * sizeof(int));
    ref[1] = (int *)malloc((size_t)nkeys * sizeof(int));
    s.histogram = (long *)malloc((size_t)row * sizeof(long));
    s.before = (long *)malloc((size_t)row * sizeof(long));
    s.digit_total = (long *)malloc((size_t)radix * sizeof(long));
    s.digit_start = (long *)malloc((size_t)radix * sizeof(long));
    s.partial = (long *)malloc(16 * sizeof(long));
    if (!input || !ref[0] || !ref[1] || !next || !s.histogram || !s.before || !s.digit_total || !s.digit_start ||
        !s.partial) {
      printf("FAIL splash_radix: cannot allocate the sequential reference\n");
      exit(1);
    }
    if (own_keys)
      for (i = 0; i < nkeys; i++) input[i] = key_at(i);
    else
      generate(input);
    memcpy(ref[0], input, (size_t)nkeys * sizeof(int));

    CLOCK(seq_start)
    for (pass = 0; pass < passes; pass++) {
      count_digits(&s, ref[pass % 2], 0, 1, pass * log_radix);
      sum_columns(&s, 0, 1);
      digit_ranks(&s, 0, 1);
      permute(&s, ref[pass % 2], ref[(pass + 1) % 2], next, 0, 1, pass * log_radix);
    }
    CLOCK(seq_end)

    qsort(input, (size_t)nkeys, sizeof(int), compare_ints);
    for (i = 1; i < nkeys; i++)
      if (sorted[i - 1] > sorted[i] && unsorted++ == 0) first_bad = i;
    for (i = 0; i < nkeys; i++) differ += sorted[i] != input[i];
    if (unsorted) what = "the keys are not sorted";
    else if (differ) what = "the sorted keys are not those of the input";
    else if (memcmp(ref[passes % 2], input, (size_t)nkeys * sizeof(int)) != 0)
      what = "the sequential reference does not sort (it is wrong)";
    if (what)
      printf("FAIL splash_radix: %s (%ld out of order, the first at %ld; %ld differ from qsort; %ld keys, %ld "
             "processes)\n",
             what, unsorted, first_bad, differ, nkeys, P);
    else
      printf("PASS splash_radix: %ld keys below %ld, radix %ld, %ld passes, %ld processes, sorted and equal to qsort\n",
             nkeys, max_key, radix, passes, P);
    print_times(start_time, create_time, end_time, seq_start, seq_end);
    fflush(stdout);
    if (what) exit(1);
  }
  MAIN_END
}
