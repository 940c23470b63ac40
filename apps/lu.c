/* Blocked dense LU factorisation without pivoting ("LU, contiguous blocks").
 *
 * The n x n matrix is cut into B x B blocks; every block is stored contiguously
 * (B*B doubles, row-major inside the block).  Blocks are assigned to nodes (to
 * compute threads with --threads: rdsm_run_threads) in a
 * 2-D cyclic pattern over a pr x pc grid of nodes: block (I, J) belongs to node
 * (I mod pr) * pc + (J mod pc).  Each node's blocks are laid out together in
 * one page-aligned run of the shared matrix, and each node initialises its own
 * blocks first, so (with first-touch placement) every page is homed at the
 * only node that ever writes it.
 *
 * The matrix is generated from a seed and made strictly diagonally dominant,
 * so no pivoting is needed.  For every diagonal step K, separated by barriers:
 *   1. the owner of (K, K) factors it in place (unit lower L, upper U);
 *   2. the owners of the perimeter blocks (K, J), J > K, replace them by
 *      L_KK^-1 A_KJ, and those of (I, K), I > K, by A_IK U_KK^-1;
 *   3. the owners of the interior blocks (I, J), I, J > K, subtract
 *      A_IK * A_KJ.
 * Every block is updated by the same code in the same order whether the run
 * is parallel or sequential, so node 0's sequential recomputation in private
 * memory must equal the shared result bit for bit.  Node 0 also checks that
 * L*U reproduces A: ||L(Ux) - Ax||_inf small for a fixed vector x (and, for
 * n <= 512, the full product).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/app_util.h"
#include "rdsm.h"

static const char *kUsage =
    "[--size test|medium|paper] [-n N] [-b B] [--seed S] [--json FILE]\n"
    "  blocked LU factorisation (no pivoting) of an N x N diagonally dominant matrix\n"
    "  stored as contiguous B x B blocks, 2-D cyclic over the nodes.\n"
    "  sizes: test N=256 B=16 (default), medium N=5280 B=16 (about 10 s sequentially on a\n"
    "         2-core VM), paper N=4096 B=16 (seed 003 Table 1.3: LU-contiguous 4096x4096);\n"
    "  -n/-b override the size (N must be a multiple of B).\n"
    "  The matrix takes N*N*8 bytes of shared memory; every size fits the default region\n"
    "  (under --memory mprotect, N up to about 5300 with the default vm.max_map_count).";

typedef struct lu_args {
  long n, b;
  uint64_t seed;
  const char *size;
  const char *json;
} lu_args;

static lu_args parse_args(int argc, char **argv) {
  lu_args a = {256, 16, 1, "test", NULL};
  long long n = -1, b = -1;
  app_args args = app_args_start(argc, argv, "lu", kUsage);
  while (app_args_next(&args)) {
    if (app_arg_size(&args, &a.size)) continue;
    if (app_arg_int(&args, "-n", 1, 65536, "matrix size", &n)) continue;
    if (app_arg_int(&args, "-b", 1, 1024, "block size", &b)) continue;
    if (app_arg_u64(&args, "--seed", "seed", &a.seed)) continue;
    if (app_arg_string(&args, "--json", &a.json)) continue;
    app_arg_unknown(&args);
  }
  const char *prog = args.prog;
  if (!strcmp(a.size, "test")) a.n = 256, a.b = 16;
  else if (!strcmp(a.size, "medium")) a.n = 5280, a.b = 16;
  else a.n = 4096, a.b = 16;
  if (n > 0 || b > 0) a.size = "custom";
  if (n > 0) a.n = (long)n;
  if (b > 0) a.b = (long)b;
  if (a.b > a.n) app_usage_exit(prog, kUsage, "block size %ld is larger than the matrix (%ld)", a.b, a.n);
  if (a.n % a.b) app_usage_exit(prog, kUsage, "matrix size %ld is not a multiple of the block size %ld", a.n, a.b);
  return a;
}

/* ---- layout --------------------------------------------------------------- */

/* Where each block lives: node p = (pi, pj) of a pr x pc grid owns blocks
 * (I, J) with I % pr == pi, J % pc == pj, stored in row-major order of
 * (I / pr, J / pc) from base[p] (in doubles, page aligned). */
typedef struct layout {
  long nb, bsz; /* blocks per side, doubles per block */
  int pr, pc;
  size_t *base; /* [pr * pc] */
  size_t total; /* doubles */
} layout;

static long count_mod(long nb, int p, int q) { return nb > p ? (nb - p + q - 1) / q : 0; }

static layout make_layout(long n, long b, int nodes, size_t align_doubles) {
  layout L;
  L.nb = n / b;
  L.bsz = b * b;
  L.pr = 1;
  for (int d = 1; (long)d * d <= nodes; ++d)
    if (nodes % d == 0) L.pr = d;
  L.pc = nodes / L.pr;
  L.base = (size_t *)malloc(sizeof(size_t) * (size_t)nodes);
  size_t off = 0;
  for (int p = 0; p < nodes; ++p) {
    L.base[p] = off;
    size_t blocks = (size_t)count_mod(L.nb, p / L.pc, L.pr) * (size_t)count_mod(L.nb, p % L.pc, L.pc);
    off += blocks * (size_t)L.bsz;
    off = (off + align_doubles - 1) / align_doubles * align_doubles;
  }
  L.total = off;
  return L;
}

static inline int owner(const layout *L, long I, long J) { return (int)(I % L->pr) * L->pc + (int)(J % L->pc); }

static inline double *blk(const layout *L, double *m, long I, long J) {
  int p = owner(L, I, J);
  long cols = count_mod(L->nb, p % L->pc, L->pc);
  return m + L->base[p] + ((size_t)(I / L->pr) * (size_t)cols + (size_t)(J / L->pc)) * (size_t)L->bsz;
}

/* ---- the matrix ----------------------------------------------------------- */

static inline double entry(uint64_t seed, long n, long i, long j) {
  uint64_t h = app_hash4(seed, 0x4c55ull, (uint64_t)i, (uint64_t)j);
  double u = (double)(h >> 11) * (1.0 / 9007199254740992.0); /* [0, 1) */
  double v = 2.0 * u - 1.0;                                   /* [-1, 1) */
  /* off-diagonal |v| < 1, so a diagonal of n + 1 + ... dominates the row */
  return i == j ? (double)n + 1.0 + u : v;
}

static void init_block(double *blockp, long b, uint64_t seed, long n, long I, long J) {
  for (long r = 0; r < b; ++r)
    for (long c = 0; c < b; ++c) blockp[r * b + c] = entry(seed, n, I * b + r, J * b + c);
}

/* ---- kernels (shared by the parallel and the sequential run) -------------- */

static void factor_diag(double *a, long b) {
  for (long k = 0; k < b; ++k) {
    double piv = a[k * b + k];
    for (long i = k + 1; i < b; ++i) {
      double l = a[i * b + k] / piv;
      a[i * b + k] = l;
      for (long j = k + 1; j < b; ++j) a[i * b + j] -= l * a[k * b + j];
    }
  }
}

/* A_KJ <- L_KK^-1 A_KJ (L unit lower, in d). */
static void solve_row_block(const double *d, double *a, long b) {
  for (long k = 0; k < b; ++k)
    for (long i = k + 1; i < b; ++i) {
      double l = d[i * b + k];
      for (long j = 0; j < b; ++j) a[i * b + j] -= l * a[k * b + j];
    }
}

/* A_IK <- A_IK U_KK^-1 (U upper, in d). */
static void solve_col_block(const double *d, double *a, long b) {
  for (long i = 0; i < b; ++i) {
    double *row = a + i * b;
    for (long k = 0; k < b; ++k) {
      double x = row[k] / d[k * b + k];
      row[k] = x;
      for (long j = k + 1; j < b; ++j) row[j] -= x * d[k * b + j];
    }
  }
}

/* C <- C - A B */
static void update_block(double *restrict c, const double *restrict a, const double *restrict bm, long b) {
  for (long i = 0; i < b; ++i) {
    double *crow = c + i * b;
    for (long k = 0; k < b; ++k) {
      double x = a[i * b + k];
      const double *brow = bm + k * b;
      for (long j = 0; j < b; ++j) crow[j] -= x * brow[j];
    }
  }
}

/* Steps K of the factorisation done by node `me` (all blocks when me < 0). */
static void lu_step(const layout *L, double *m, long b, long K, int me, int phase) {
  long nb = L->nb;
  if (phase == 0) {
    if (me < 0 || owner(L, K, K) == me) factor_diag(blk(L, m, K, K), b);
  } else if (phase == 1) {
    const double *d = blk(L, m, K, K);
    for (long J = K + 1; J < nb; ++J)
      if (me < 0 || owner(L, K, J) == me) solve_row_block(d, blk(L, m, K, J), b);
    for (long I = K + 1; I < nb; ++I)
      if (me < 0 || owner(L, I, K) == me) solve_col_block(d, blk(L, m, I, K), b);
  } else {
    for (long I = K + 1; I < nb; ++I) {
      if (me >= 0 && (int)(I % L->pr) != me / L->pc) continue;
      const double *aik = blk(L, m, I, K);
      for (long J = K + 1; J < nb; ++J)
        if (me < 0 || owner(L, I, J) == me) update_block(blk(L, m, I, J), aik, blk(L, m, K, J), b);
    }
  }
}

/* ---- checks --------------------------------------------------------------- */

static inline double get(const layout *L, double *m, long b, long i, long j) {
  return blk(L, m, i / b, j / b)[(i % b) * b + (j % b)];
}

/* ||L(Ux) - Ax||_inf / (||A||_inf ||x||_inf) for a fixed x, O(n^2). */
static double residual_vector(const layout *L, double *m, long n, long b, uint64_t seed) {
  double *x = (double *)malloc(sizeof(double) * (size_t)n), *y = (double *)malloc(sizeof(double) * (size_t)n);
  for (long i = 0; i < n; ++i) x[i] = 1.0 + (double)(i % 7) / 7.0;
  for (long i = 0; i < n; ++i) { /* y = U x */
    double s = 0.0;
    for (long j = i; j < n; ++j) s += get(L, m, b, i, j) * x[j];
    y[i] = s;
  }
  double err = 0.0, anorm = 0.0;
  for (long i = n - 1; i >= 0; --i) { /* (L y)_i = y_i + sum_{j<i} l_ij y_j: uses y[j<i] only */
    double s = y[i];
    for (long j = 0; j < i; ++j) s += get(L, m, b, i, j) * y[j];
    double ax = 0.0, rown = 0.0;
    for (long j = 0; j < n; ++j) {
      double aij = entry(seed, n, i, j);
      ax += aij * x[j];
      rown += fabs(aij);
    }
    if (fabs(s - ax) > err) err = fabs(s - ax);
    if (rown > anorm) anorm = rown;
  }
  free(x);
  free(y);
  return err / (anorm * (1.0 + 6.0 / 7.0));
}

/* max |(LU)_ij - a_ij| / ||A||_inf over the whole matrix, O(n^3). */
static double residual_full(const layout *L, double *m, long n, long b, uint64_t seed) {
  double err = 0.0, anorm = 0.0;
  for (long i = 0; i < n; ++i) {
    double rown = 0.0;
    for (long j = 0; j < n; ++j) {
      double s = 0.0;
      long kmax = i < j ? i : j;
      for (long k = 0; k <= kmax; ++k) s += (k == i ? 1.0 : get(L, m, b, i, k)) * get(L, m, b, k, j);
      double aij = entry(seed, n, i, j);
      rown += fabs(aij);
      if (fabs(s - aij) > err) err = fabs(s - aij);
    }
    if (rown > anorm) anorm = rown;
  }
  return err / anorm;
}

/* The parallel part, on every compute thread of every node (--threads):
 * the workers of the block grid are the rdsm_threads() threads. */
typedef struct lu_job {
  const layout *L;
  double *m;
  lu_args a;
  double t_parallel;
} lu_job;

static void lu_worker(void *arg) {
  lu_job *job = (lu_job *)arg;
  const layout *L = job->L;
  double *m = job->m;
  const long b = job->a.b;
  const int me = rdsm_thread_id();
  /* Each worker writes its own blocks first: first touch makes their node their home. */
  for (long I = 0; I < L->nb; ++I)
    for (long J = 0; J < L->nb; ++J)
      if (owner(L, I, J) == me) init_block(blk(L, m, I, J), b, job->a.seed, job->a.n, I, J);
  rdsm_barrier();

  const int node_thread0 = me % rdsm_node_threads() == 0;
  if (node_thread0) rdsm_reset_stats();
  double t0 = rdsm_wtime();
  for (long K = 0; K < L->nb; ++K) {
    lu_step(L, m, b, K, me, 0);
    rdsm_barrier();
    lu_step(L, m, b, K, me, 1);
    rdsm_barrier();
    lu_step(L, m, b, K, me, 2);
    if (K + 1 < L->nb) rdsm_barrier();
  }
  rdsm_barrier();
  if (node_thread0) job->t_parallel = rdsm_wtime() - t0;
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const char *prog = argc > 0 ? argv[0] : "lu";
  lu_args a = parse_args(argc, argv);
  const int me = rdsm_rank(), nodes = rdsm_threads();
  const long n = a.n, b = a.b;
  size_t page_doubles = rdsm_page_size() / sizeof(double);
  if (page_doubles == 0) page_doubles = 1;

  app_verdict verdict = app_verdict_create();
  layout L = make_layout(n, b, nodes, page_doubles);
  double *m = (double *)rdsm_malloc_all(L.total * sizeof(double), RDSM_PLACE_FIRST_TOUCH);
  lu_job job = {&L, m, a, 0.0};
  rdsm_run_threads(lu_worker, &job);
  double t_parallel = job.t_parallel;
  rdsm_stats st;
  rdsm_get_stats(&st);

  int pass = 1;
  if (me == 0) {
    layout R = make_layout(n, b, 1, 1);
    double *ref = (double *)malloc(R.total * sizeof(double));
    if (!ref) {
      printf("FAIL lu: cannot allocate %zu bytes for the sequential check\n", R.total * sizeof(double));
      pass = 0;
    } else {
      for (long I = 0; I < R.nb; ++I)
        for (long J = 0; J < R.nb; ++J) init_block(blk(&R, ref, I, J), b, a.seed, n, I, J);
      double ts = rdsm_wtime();
      for (long K = 0; K < R.nb; ++K)
        for (int ph = 0; ph < 3; ++ph) lu_step(&R, ref, b, K, -1, ph);
      double t_seq = rdsm_wtime() - ts;

      /* bitwise comparison, block by block (reads every node's blocks) */
      size_t bad = 0;
      long bi = -1, bj = -1;
      double checksum = 0.0;
      for (long I = 0; I < L.nb; ++I)
        for (long J = 0; J < L.nb; ++J) {
          const double *p = blk(&L, m, I, J), *q = blk(&R, ref, I, J);
          for (long k = 0; k < L.bsz; ++k) checksum += p[k];
          if (memcmp(p, q, sizeof(double) * (size_t)L.bsz) != 0) {
            for (long k = 0; k < L.bsz; ++k)
              if (memcmp(&p[k], &q[k], sizeof(double)) != 0 && bad++ == 0) bi = I * b + k / b, bj = J * b + k % b;
          }
        }
      double resv = residual_vector(&L, m, n, b, a.seed);
      double resf = n <= 512 ? residual_full(&L, m, n, b, a.seed) : -1.0;
      const double tol = 1e-12;
      if (bad) {
        pass = 0;
        printf("FAIL lu: %zu of %ld elements differ from the sequential run; first at (%ld, %ld): got %.17g "
               "expected %.17g (nodes %d, n %ld, b %ld)\n",
               bad, n * n, bi, bj, get(&L, m, b, bi, bj), get(&R, ref, b, bi, bj), nodes, n, b);
      } else if (!(resv <= tol) || !(resf <= tol)) {
        pass = 0;
        printf("FAIL lu: residual too large: ||L(Ux)-Ax|| rel %.3g, max|LU-A| rel %.3g (tolerance %g)\n", resv,
               resf, tol);
      } else {
        char full[64] = "";
        if (resf >= 0) snprintf(full, sizeof full, ", full %.3g", resf);
        printf("PASS lu: n %ld, block %ld, %d nodes (%d x %d), size %s, checksum %.17g, residual %.3g%s, "
               "parallel %.6f s\n",
               n, b, nodes, L.pr, L.pc, a.size, checksum, resv, full, t_parallel);
      }
      app_print_times("lu", t_parallel, t_seq, &st);
      FILE *f = app_json_begin(prog, a.json, "lu", pass);
      if (f) {
        fprintf(f,
                ", \"size\": \"%s\", \"n\": %ld, \"block\": %ld, \"seed\": %llu, \"checksum\": %.17g, "
                "\"residual\": %.6g, \"parallel_seconds\": %.9f, \"sequential_seconds\": %.9f",
                a.size, n, b, (unsigned long long)a.seed, checksum, resv, t_parallel, t_seq);
        app_json_end(f, &st);
      }
      free(ref);
    }
    free(R.base);
  }
  free(L.base);
  int status = app_verdict_publish(verdict, pass);
  rdsm_finalize();
  return status;
}
