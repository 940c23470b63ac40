/* Red-black successive over-relaxation on an (M+2) x (N+2) grid of doubles.
 *
 * Interior rows 1..M are split into contiguous blocks, one per node (one per
 * compute thread with --threads: rdsm_run_threads); the grid
 * is allocated with RDSM_PLACE_BLOCK so that most of a node's rows are homed
 * where they are computed and only the rows at block edges move between
 * nodes.  Each iteration is a red sweep, a barrier, a black sweep and a
 * barrier: a red cell ((i + j) even) depends only on black neighbours and the
 * other way round, so within a sweep the order of the updates cannot change
 * the result, and the parallel grid must equal, bit for bit, the grid that
 * node 0 computes alone at the end with the same code.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/app_util.h"
#include "rdsm.h"

static const char *kUsage = "[-m ROWS] [-n COLS] [-i ITERS] [--omega W] [--json FILE]\n"
                            "  red-black SOR on a (ROWS+2) x (COLS+2) grid (default 1024 x 1024, 20 iterations,\n"
                            "  omega 1.25); node 0 checks the result against a sequential run.";

typedef struct sor_args {
  long m, n, iters;
  double omega;
  const char *json;
} sor_args;

static sor_args parse_args(int argc, char **argv) {
  sor_args a = {1024, 1024, 20, 1.25, NULL};
  long long m = a.m, n = a.n, iters = a.iters;
  app_args args = app_args_start(argc, argv, "sor", kUsage);
  while (app_args_next(&args)) {
    if (app_arg_int(&args, "-m", 1, 1L << 20, "row count", &m)) continue;
    if (app_arg_int(&args, "-n", 1, 1L << 20, "column count", &n)) continue;
    if (app_arg_int(&args, "-i", 0, 1000000, "iteration count", &iters)) continue;
    if (app_arg_double(&args, "--omega", 0.0, 2.0, APP_OPEN, &a.omega)) continue;
    if (app_arg_string(&args, "--json", &a.json)) continue;
    app_arg_unknown(&args);
  }
  const char *prog = args.prog;
  a.m = (long)m;
  a.n = (long)n;
  a.iters = (long)iters;
  /* The grid must fit in memory on every node (and in node 0's private copy). */
  if ((double)(a.m + 2) * (double)(a.n + 2) * sizeof(double) > (double)(1ull << 34))
    app_usage_exit(prog, kUsage, "grid of %ld x %ld is too large", a.m, a.n);
  return a;
}

/* Fixed, deterministic boundary and initial values; any node computes the
 * same value for the same cell. */
static double initial_value(long i, long j, long m, long n) {
  if (i == 0) return 1.0 + (double)j / (double)(n + 1);      /* top */
  if (i == m + 1) return 0.5;                                 /* bottom */
  if (j == 0) return (double)i / (double)(m + 1);             /* left */
  if (j == n + 1) return 2.0 - (double)i / (double)(m + 1);   /* right */
  return (double)((i * 31 + j * 17) % 101) / 101.0;           /* interior */
}

/* Fills rows [r0, r1) of the grid, boundary columns included. */
static void init_rows(double *g, long r0, long r1, long m, long n) {
  long w = n + 2;
  for (long i = r0; i < r1; ++i)
    for (long j = 0; j < w; ++j) g[i * w + j] = initial_value(i, j, m, n);
}

/* Updates the cells of one colour (0 red, 1 black) in interior rows [r0, r1).
 * Used by both the parallel and the sequential run, so the arithmetic is the
 * same instruction sequence in both. */
static void sweep(double *g, long r0, long r1, long n, int colour, double omega) {
  long w = n + 2;
  for (long i = r0; i < r1; ++i) {
    double *row = g + i * w;
    const double *up = row - w, *down = row + w;
    /* first j in 1..n with (i + j) % 2 == colour */
    long j0 = 1 + ((i + 1 + colour) & 1);
    for (long j = j0; j <= n; j += 2) {
      double avg = 0.25 * (up[j] + down[j] + row[j - 1] + row[j + 1]);
      row[j] = row[j] + omega * (avg - row[j]);
    }
  }
}

/* The parallel part, on every compute thread of every node (--threads):
 * the workers are the rdsm_threads() threads, numbered node-major. */
typedef struct sor_job {
  sor_args a;
  double *grid;
  double t_parallel;
} sor_job;

static void sor_worker(void *arg) {
  sor_job *job = (sor_job *)arg;
  const sor_args a = job->a;
  double *grid = job->grid;
  const int me = rdsm_thread_id(), workers = rdsm_threads();
  /* My interior rows [r0, r1): contiguous blocks as even as possible. */
  long r0 = 1 + (long)((int64_t)a.m * me / workers);
  long r1 = 1 + (long)((int64_t)a.m * (me + 1) / workers);
  /* Boundary rows go with the block next to them. */
  init_rows(grid, me == 0 ? 0 : r0, me == workers - 1 ? a.m + 2 : r1, a.m, a.n);
  rdsm_barrier();

  const int node_thread0 = me % rdsm_node_threads() == 0;
  if (node_thread0) rdsm_reset_stats();
  double t0 = rdsm_wtime();
  for (long it = 0; it < a.iters; ++it) {
    sweep(grid, r0, r1, a.n, 0, a.omega);
    rdsm_barrier();
    sweep(grid, r0, r1, a.n, 1, a.omega);
    rdsm_barrier();
  }
  if (node_thread0) job->t_parallel = rdsm_wtime() - t0;
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const char *prog = argc > 0 ? argv[0] : "sor";
  sor_args a = parse_args(argc, argv);
  const int me = rdsm_rank(), nodes = rdsm_nodes();
  const long w = a.n + 2;
  const size_t grid_bytes = (size_t)(a.m + 2) * (size_t)w * sizeof(double);

  app_verdict verdict = app_verdict_create();
  sor_job job = {a, (double *)rdsm_malloc_all(grid_bytes, RDSM_PLACE_BLOCK), 0.0};
  double *grid = job.grid;
  rdsm_run_threads(sor_worker, &job);
  double t_parallel = job.t_parallel;
  rdsm_stats st;
  rdsm_get_stats(&st);

  int pass = 1;
  if (me == 0) {
    double *ref = (double *)malloc(grid_bytes);
    if (!ref) {
      printf("FAIL sor: cannot allocate %zu bytes for the sequential check\n", grid_bytes);
      pass = 0;
    } else {
      double ts = rdsm_wtime();
      init_rows(ref, 0, a.m + 2, a.m, a.n);
      for (long it = 0; it < a.iters; ++it) {
        sweep(ref, 1, a.m + 1, a.n, 0, a.omega);
        sweep(ref, 1, a.m + 1, a.n, 1, a.omega);
      }
      double t_seq = rdsm_wtime() - ts;
      /* Reading the shared grid here fetches every other node's rows. */
      double checksum = 0.0;
      for (size_t k = 0; k < (size_t)(a.m + 2) * (size_t)w; ++k) checksum += grid[k];
      pass = memcmp(grid, ref, grid_bytes) == 0;
      if (!pass) {
        size_t bad = 0, first = 0;
        for (size_t k = 0; k < (size_t)(a.m + 2) * (size_t)w; ++k)
          if (memcmp(&grid[k], &ref[k], sizeof(double)) != 0 && bad++ == 0) first = k;
        printf("FAIL sor: %zu of %zu cells differ from the sequential run; first at row %zu col %zu: "
               "got %.17g expected %.17g (nodes %d, %ld x %ld, %ld iterations)\n",
               bad, (size_t)(a.m + 2) * (size_t)w, first / (size_t)w, first % (size_t)w, grid[first], ref[first],
               nodes, a.m, a.n, a.iters);
      } else {
        printf("PASS sor: %ld x %ld grid, %ld iterations, %d nodes, checksum %.17g, parallel %.6f s "
               "(sequential check %.6f s)\n",
               a.m, a.n, a.iters, nodes, checksum, t_parallel, t_seq);
      }
      app_print_breakdown(stdout, "sor node 0", &st);
      fflush(stdout);
      FILE *f = app_json_begin(prog, a.json, "sor", pass);
      if (f) {
        fprintf(f,
                ", \"m\": %ld, \"n\": %ld, \"iterations\": %ld, \"omega\": %.17g, \"checksum\": %.17g, "
                "\"parallel_seconds\": %.9f, \"sequential_seconds\": %.9f",
                a.m, a.n, a.iters, a.omega, checksum, t_parallel, t_seq);
        app_json_end(f, &st);
      }
      free(ref);
    }
  }
  int status = app_verdict_publish(verdict, pass);
  rdsm_finalize();
  return status;
}
