/* Blocked dense LU factorisation without pivoting, in the SPLASH-2 macro
 * dialect, shaped like the SPLASH-2 LU kernel.
 *
 * The n x n matrix is cut into B x B blocks of contiguous doubles (row-major
 * inside a block).  Block (I, J) belongs to process (I mod pr) * pc + (J mod
 * pc) of a pr x pc grid of processes, pr the largest divisor of P not above
 * sqrt(P).  The master allocates the matrix and fills it alone before any
 * worker exists, so every page starts out at the master; the workers then
 * factor it in place, each block updated only by its owner:
 *
 *   for every diagonal step K:
 *     the owner of (K, K) factors it (unit lower L, upper U);    barrier
 *     owners of (K, J), J > K: A_KJ <- L_KK^-1 A_KJ, and
 *     owners of (I, K), I > K: A_IK <- A_IK U_KK^-1;              barrier
 *     owners of (I, J), I, J > K: A_IJ <- A_IJ - A_IK A_KJ;       barrier
 *
 * Two layouts of the blocks: -c (default) gives each process one chunk of
 * its own holding all its blocks, so a page is written by one process only;
 * -g lays the blocks out in matrix order, so neighbouring blocks of different
 * owners share pages (false sharing the protocol has to merge).
 *
 * The matrix is strictly diagonally dominant, so no pivoting is needed.
 * Every block goes through the same kernels in the same order in the
 * sequential reference, so the parallel result must match it bit for bit.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

MAIN_ENV

#define MAX_PROCS 64

static const char *usage_text =
    "usage: splash_lu [-pP] [-nN] [-bB] [-c | -g] [-t] [-h]\n"
    "  blocked LU factorisation (no pivoting) of an N x N diagonally dominant matrix\n"
    "  -pP  processes (1..64, default 1)\n"
    "  -nN  matrix order (default 2048; a multiple of B)\n"
    "  -bB  block order (default 16)\n"
    "  -c   each process's blocks in one chunk of their own (default)\n"
    "  -g   blocks in matrix order, whoever owns them\n"
    "  -t   check the result (always done)\n"
    "  -h   this help\n";

struct GlobalMemory {
  LOCKDEC(idlock)
  long id;
  BARDEC(start)
};

struct GlobalMemory *Global;
double **blocks; /* shared table: blocks[I * nblocks + J] -> block (I, J) */

long P = 1;
long n = 2048;
long bsize = 16;
long nblocks;
long prows, pcols;
int contiguous = 1;
unsigned long start_time; /* the master's, from the moment the work starts */

#define SPLASH_PROGRAM "splash_lu"
#include "splash_args.h"

static long block_owner(long I, long J) { return (I % prows) * pcols + (J % pcols); }

/* ---- the matrix ----------------------------------------------------------- */

static double element(long i, long j) {
  /* A hash of the position: any process (and the check) can regenerate an
   * element without storing the original matrix. */
  unsigned long long h = (unsigned long long)i * 0x9E3779B97F4A7C15ull ^ (unsigned long long)j * 0xC2B2AE3D27D4EB4Full;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 32;
  {
    double u = (double)(h >> 11) * (1.0 / 9007199254740992.0);
    return i == j ? (double)n + 2.0 + u : 2.0 * u - 1.0;
  }
}

static void fill_block(double *a, long I, long J) {
  long r, c;
  for (r = 0; r < bsize; r++)
    for (c = 0; c < bsize; c++) a[r * bsize + c] = element(I * bsize + r, J * bsize + c);
}

/* ---- kernels, shared by the parallel and the sequential run --------------- */

static void factor_diagonal(double *a) {
  long k, i, j, b = bsize;
  for (k = 0; k < b; k++) {
    double pivot = a[k * b + k];
    for (i = k + 1; i < b; i++) {
      double l = a[i * b + k] / pivot;
      a[i * b + k] = l;
      for (j = k + 1; j < b; j++) a[i * b + j] -= l * a[k * b + j];
    }
  }
}

/* a <- L^-1 a, L the unit lower triangle of d. */
static void solve_lower(const double *d, double *a) {
  long k, i, j, b = bsize;
  for (i = 1; i < b; i++)
    for (k = 0; k < i; k++) {
      double l = d[i * b + k];
      for (j = 0; j < b; j++) a[i * b + j] -= l * a[k * b + j];
    }
}

/* a <- a U^-1, U the upper triangle of d. */
static void solve_upper(const double *d, double *a) {
  long k, i, j, b = bsize;
  for (i = 0; i < b; i++) {
    double *row = a + i * b;
    for (k = 0; k < b; k++) {
      double x = row[k] / d[k * b + k];
      row[k] = x;
      for (j = k + 1; j < b; j++) row[j] -= x * d[k * b + j];
    }
  }
}

/* c <- c - a x */
static inline void subtract_product_b(double *restrict c, const double *restrict a, const double *restrict x,
                                      long b) {
  long i, k, j;
  for (i = 0; i < b; i++) {
    double *crow = c + i * b;
    for (k = 0; k < b; k++) {
      double f = a[i * b + k];
      const double *xrow = x + k * b;
      for (j = 0; j < b; j++) crow[j] -= f * xrow[j];
    }
  }
}

static void subtract_product(double *restrict c, const double *restrict a, const double *restrict x) {
  /* Almost all the work is here: with the usual block orders known at
   * compile time the compiler vectorises the inner loop. */
  if (bsize == 16) subtract_product_b(c, a, x, 16);
  else if (bsize == 32) subtract_product_b(c, a, x, 32);
  else if (bsize == 8) subtract_product_b(c, a, x, 8);
  else subtract_product_b(c, a, x, bsize);
}

/* The first index above "after" congruent to "residue" modulo "step". */
static long first_after(long after, long residue, long step) {
  long v = after + 1;
  long r = v % step;
  return v + (residue - r + step) % step;
}

/* One phase of step K for the process at grid position (prow, pcol); with
 * every = 1, all blocks (the sequential run). */
static void lu_phase(double **tab, long K, int phase, long prow, long pcol, int every) {
  long nb = nblocks, I, J;
  long istep = every ? 1 : prows, jstep = every ? 1 : pcols;
  double *diag = tab[K * nb + K];
  if (phase == 0) {
    if (every || block_owner(K, K) == prow * pcols + pcol) factor_diagonal(diag);
  } else if (phase == 1) {
    if (every || K % prows == prow)
      for (J = every ? K + 1 : first_after(K, pcol, pcols); J < nb; J += jstep) solve_lower(diag, tab[K * nb + J]);
    if (every || K % pcols == pcol)
      for (I = every ? K + 1 : first_after(K, prow, prows); I < nb; I += istep) solve_upper(diag, tab[I * nb + K]);
  } else {
    for (I = every ? K + 1 : first_after(K, prow, prows); I < nb; I += istep) {
      const double *left = tab[I * nb + K];
      for (J = every ? K + 1 : first_after(K, pcol, pcols); J < nb; J += jstep)
        subtract_product(tab[I * nb + J], left, tab[K * nb + J]);
    }
  }
}

/* ---- the parallel part ---------------------------------------------------- */

void SlaveStart(void) {
  long id, pid, K;
  int phase;

  LOCK(Global->idlock)
  id = Global->id;
  Global->id++;
  UNLOCK(Global->idlock)

  BARRIER(Global->start, P)
  GET_PID(pid)
  if (pid == 0) CLOCK(start_time)

  for (K = 0; K < nblocks; K++)
    for (phase = 0; phase < 3; phase++) {
      lu_phase(blocks, K, phase, id / pcols, id % pcols, 0);
      BARRIER(Global->start, P)
    }
}

/* ---- set-up and check ----------------------------------------------------- */

/* || L (U x) - A x ||_inf / (||A||_inf ||x||_inf) for a fixed x: a check of
 * the kernels themselves, independent of the comparison with the reference. */
static double residual(double **tab) {
  long nb = nblocks, i, j;
  double *x = (double *)malloc(sizeof(double) * (size_t)n), *y = (double *)malloc(sizeof(double) * (size_t)n);
  double err = 0.0, anorm = 0.0;
#define AT(i, j) (tab[((i) / bsize) * nb + (j) / bsize][((i) % bsize) * bsize + (j) % bsize])
  for (i = 0; i < n; i++) x[i] = 1.0 + (double)(i % 5) * 0.25;
  for (i = 0; i < n; i++) {
    double s = 0.0;
    for (j = i; j < n; j++) s += AT(i, j) * x[j];
    y[i] = s;
  }
  for (i = n - 1; i >= 0; i--) {
    double s = y[i], ax = 0.0, rownorm = 0.0;
    for (j = 0; j < i; j++) s += AT(i, j) * y[j];
    for (j = 0; j < n; j++) {
      double e = element(i, j);
      ax += e * x[j];
      rownorm += fabs(e);
    }
    if (fabs(s - ax) > err) err = fabs(s - ax);
    if (rownorm > anorm) anorm = rownorm;
  }
#undef AT
  free(x);
  free(y);
  return err / (anorm * 2.0);
}

int main(int argc, char **argv) {
  int c;
  long i, I, J, nb, bb;
  unsigned long create_time, end_time, seq_start, seq_end;

  const char *const options = "p:n:b:cgth";
  opterr = 0;
  while ((c = getopt(argc, argv, options)) != -1) {
    switch (c) {
      case 'p': P = parse_long("-p", optarg, 1, MAX_PROCS); break;
      case 'n': n = parse_long("-n", optarg, 1, 32768); break;
      case 'b': bsize = parse_long("-b", optarg, 1, 1024); break;
      case 'c': contiguous = 1; break;
      case 'g': contiguous = 0; break;
      case 't': break;
      case 'h': printf("%s", usage_text); exit(0);
      default: bad_option(options);
    }
  }
  if (optind < argc) usage_error("unexpected argument '%s'", argv[optind]);
  if (n % bsize) {
    char what[96];
    snprintf(what, sizeof what, "-n %ld is not a multiple of the block order -b %ld", n, bsize);
    usage_error("%s", what);
  }

  nblocks = nb = n / bsize;
  bb = bsize * bsize;
  for (prows = 1, i = 1; i * i <= P; i++)
    if (P % i == 0) prows = i;
  pcols = P / prows;

  /* The matrix, the block table, one page of rounding per chunk, slack. */
  MAIN_INITENV(, (size_t)n * (size_t)n * sizeof(double) + (size_t)nb * (size_t)nb * sizeof(double *) +
                     (size_t)(P + 16) * 4096 + (4u << 20))

  Global = (struct GlobalMemory *)G_MALLOC(sizeof(struct GlobalMemory));
  Global->id = 0;
  LOCKINIT(Global->idlock)
  BARINIT(Global->start)
  blocks = (double **)G_MALLOC((size_t)nb * (size_t)nb * sizeof(double *));

  if (contiguous) {
    long p;
    for (p = 0; p < P; p++) {
      long prow = p / pcols, pcol = p % pcols, mine = 0;
      double *chunk;
      for (I = prow; I < nb; I += prows)
        for (J = pcol; J < nb; J += pcols) mine++;
      if (mine == 0) continue;
      chunk = (double *)G_MALLOC((size_t)mine * (size_t)bb * sizeof(double));
      for (I = prow; I < nb; I += prows)
        for (J = pcol; J < nb; J += pcols) {
          blocks[I * nb + J] = chunk;
          chunk += bb;
        }
    }
  } else {
    double *all = (double *)G_MALLOC((size_t)n * (size_t)n * sizeof(double));
    for (I = 0; I < nb; I++)
      for (J = 0; J < nb; J++) blocks[I * nb + J] = all + (I * nb + J) * bb;
  }
  for (I = 0; I < nb; I++)
    for (J = 0; J < nb; J++) fill_block(blocks[I * nb + J], I, J);

  CLOCK(create_time) /* the job forms at the first CREATE: its start is counted from here */
  for (i = 1; i < P; i++) CREATE(SlaveStart)
  SlaveStart();
  WAIT_FOR_END(P - 1)
  CLOCK(end_time)

  {
    double **ref = (double **)malloc((size_t)nb * (size_t)nb * sizeof(double *));
    double *store = (double *)malloc((size_t)n * (size_t)n * sizeof(double));
    long K, differ = 0, first_i = -1, first_j = -1;
    int phase;
    double res, checksum = 0.0;
    if (!ref || !store) {
      printf("FAIL splash_lu: cannot allocate %ld bytes for the sequential reference\n", n * n * 8);
      exit(1);
    }
    for (I = 0; I < nb; I++)
      for (J = 0; J < nb; J++) {
        ref[I * nb + J] = store + (I * nb + J) * bb;
        fill_block(ref[I * nb + J], I, J);
      }
    CLOCK(seq_start)
    for (K = 0; K < nb; K++)
      for (phase = 0; phase < 3; phase++) lu_phase(ref, K, phase, 0, 0, 1);
    CLOCK(seq_end)

    for (I = 0; I < nb; I++)
      for (J = 0; J < nb; J++) {
        const double *got = blocks[I * nb + J], *want = ref[I * nb + J];
        long k;
        for (k = 0; k < bb; k++) checksum += got[k];
        if (memcmp(got, want, (size_t)bb * sizeof(double)) != 0)
          for (k = 0; k < bb; k++)
            if (memcmp(&got[k], &want[k], sizeof(double)) != 0 && differ++ == 0) {
              first_i = I * bsize + k / bsize;
              first_j = J * bsize + k % bsize;
            }
      }
    res = residual(ref);
    if (differ) {
      printf("FAIL splash_lu: %ld of %ld elements differ from the sequential reference, the first at (%ld, %ld)\n",
             differ, n * n, first_i, first_j);
    } else if (!(res < 1e-12)) {
      printf("FAIL splash_lu: residual %.3g of the factors is too large\n", res);
    } else {
      printf("PASS splash_lu: n %ld, block %ld, %ld processes (%ld x %ld), %s, checksum %.17g, residual %.3g\n", n,
             bsize, P, prows, pcols, contiguous ? "contiguous blocks" : "blocks in matrix order", checksum, res);
    }
    print_times(start_time, create_time, end_time, seq_start, seq_end);
    fflush(stdout);
    if (differ || !(res < 1e-12)) exit(1);
    free(ref);
    free(store);
  }
  MAIN_END
}
