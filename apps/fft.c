/* 1-D complex FFT of n = 2^m points by the six-step method.
 *
 * The n points are viewed as an n2 x n1 matrix (n1 = 2^floor(m/2),
 * n2 = 2^ceil(m/2)); with j = j1 + n1*j2 and k = k2 + n2*k1,
 *
 *   X[k2 + n2*k1] = sum_j1 W_n1^(j1*k1) W_n^(j1*k2) sum_j2 W_n2^(j2*k2) x[j1 + n1*j2].
 *
 * Steps (each matrix's rows are split into contiguous blocks, one per node,
 * or per compute thread with --threads: rdsm_run_threads; a node only writes
 * its own rows, the transposes read other nodes' rows):
 *   A  transpose src (n2 x n1) -> dst (n1 x n2)
 *   B  length-n2 FFT of each of my rows of dst, then multiply by W_n^(j1*k2)
 *      -- barrier --
 *   C  transpose dst (n1 x n2) -> src (n2 x n1)
 *   D  length-n1 FFT of each of my rows of src
 *      -- barrier --
 *   E  transpose src (n2 x n1) -> dst (n1 x n2): dst holds X in natural order.
 * The transposes go block by block, each node starting with the block of
 * the next node so that not every node reads from node 0 at once.
 *
 * The inverse transform is conj(FFT(conj(X))) / n, run the same way.
 * With -i ITERATIONS the forward + inverse pair is repeated (each forward
 * transforms the previous inverse's result, the input up to rounding); the
 * parallel time is the sum of the forward transforms, the inverse time that
 * of the inverse ones.
 *
 * Node 0 checks the last forward result against a plain iterative radix-2
 * FFT of the whole input in private memory (and that against a direct DFT at
 * a few points), and checks that the last inverse transform gives back the
 * input.  It also runs the same six-step forward transform ITERATIONS times
 * on one node in private memory (each time on a fresh copy of the input):
 * the sum of those times is printed as `sequential`.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/app_util.h"
#include "common/fft_kernel.h"
#include "rdsm.h"

static const char *kUsage =
    "[--size test|medium|paper] [-m M] [-i ITERATIONS] [--json FILE]\n"
    "  six-step complex FFT of 2^M points, forward and inverse, the pair repeated ITERATIONS times\n"
    "  (default and test: M=18, 1 iteration; medium: M=21, 240 iterations, about 15 s sequentially;\n"
    "  paper: M=22 = 4M points, seed 003 Table 1.3, 1 iteration); node 0 checks the last forward\n"
    "  result against a sequential radix-2 FFT and the last inverse against the input.  The parallel\n"
    "  and sequential times are the sums over the forward transforms.\n"
    "  Two arrays of 2^M x 16 bytes in shared memory; every size fits the default region.";

typedef struct fft_args {
  int m;
  long iters;
  const char *json;
} fft_args;

static fft_args parse_args(int argc, char **argv) {
  fft_args a = {18, 1, NULL};
  const char *size = "test";
  long long m = -1, it = -1;
  app_args args = app_args_start(argc, argv, "fft", kUsage);
  while (app_args_next(&args)) {
    if (app_arg_size(&args, &size)) continue;
    if (app_arg_int(&args, "-m", 2, 26, "log2 size", &m)) continue;
    if (app_arg_int(&args, "-i", 1, 100000, "iteration count", &it)) continue;
    if (app_arg_string(&args, "--json", &a.json)) continue;
    app_arg_unknown(&args);
  }
  if (!strcmp(size, "medium")) a.m = 21, a.iters = 240;
  else if (!strcmp(size, "paper")) a.m = 22, a.iters = 1;
  if (m >= 0) a.m = (int)m;
  if (it >= 0) a.iters = (long)it;
  return a;
}

/* ---- input ---------------------------------------------------------------- */

/* Deterministic input value of point j (same on every node). */
static cpx input_value(long j) {
  uint64_t h = app_hash4(0xF17u, (uint64_t)j, 1, 2);
  cpx c;
  c.re = (double)(h >> 11) * (2.0 / 9007199254740992.0) - 1.0;
  h = app_hash4(0xF17u, (uint64_t)j, 3, 4);
  c.im = (double)(h >> 11) * (2.0 / 9007199254740992.0) - 1.0;
  return c;
}

/* ---- the six-step transform ---------------------------------------------- */

typedef struct plan {
  int m;
  long n, n1, n2;
  cpx *roots1, *roots2; /* for the length-n1 and length-n2 row FFTs */
  cpx *tw_lo, *tw_hi;   /* W_n^e = tw_hi[e >> lo_bits] * tw_lo[e & lo_mask] */
  int lo_bits;
} plan;

static int plan_make(plan *p, int m) {
  p->m = m;
  p->n = 1L << m;
  p->n1 = 1L << (m / 2);
  p->n2 = 1L << (m - m / 2);
  p->roots1 = make_roots(p->n1, -1.0);
  p->roots2 = make_roots(p->n2, -1.0);
  p->lo_bits = (m + 1) / 2;
  long nlo = 1L << p->lo_bits, nhi = p->n >> p->lo_bits;
  p->tw_lo = (cpx *)malloc(sizeof(cpx) * (size_t)nlo);
  p->tw_hi = (cpx *)malloc(sizeof(cpx) * (size_t)nhi);
  if (!p->roots1 || !p->roots2 || !p->tw_lo || !p->tw_hi) return -1;
  for (long e = 0; e < nlo; ++e) {
    double t = -2.0 * M_PI * (double)e / (double)p->n;
    p->tw_lo[e].re = cos(t);
    p->tw_lo[e].im = sin(t);
  }
  for (long e = 0; e < nhi; ++e) {
    double t = -2.0 * M_PI * (double)(e << p->lo_bits) / (double)p->n;
    p->tw_hi[e].re = cos(t);
    p->tw_hi[e].im = sin(t);
  }
  return 0;
}

static void plan_free(plan *p) {
  free(p->roots1);
  free(p->roots2);
  free(p->tw_lo);
  free(p->tw_hi);
}

static inline long block_lo(long rows, int node, int nodes) { return (long)((int64_t)rows * node / nodes); }

/* dst (rows x cols) rows [r0, r1) = transpose of src (cols x rows). */
static void transpose_rows(cpx *dst, const cpx *src, long rows, long cols, long r0, long r1, int me, int nodes) {
  enum { T = 16 };
  for (int k = 0; k < nodes; ++k) {
    int q = (me + 1 + k) % nodes; /* src rows (= dst columns) of node q */
    long c0 = block_lo(cols, q, nodes), c1 = block_lo(cols, q + 1, nodes);
    for (long jj = c0; jj < c1; jj += T) {
      long je = jj + T < c1 ? jj + T : c1;
      for (long ii = r0; ii < r1; ii += T) {
        long ie = ii + T < r1 ? ii + T : r1;
        for (long i = ii; i < ie; ++i)
          for (long j = jj; j < je; ++j) dst[i * cols + j] = src[j * rows + i];
      }
    }
  }
}

/* src -> dst as described at the top; src is used as scratch.  Callers
 * synchronise before (src complete) and after (dst complete).  With
 * nodes == 1 and sync == 0 it is the sequential run. */
static void six_step(const plan *p, cpx *src, cpx *dst, int me, int nodes, int sync) {
  const long n1 = p->n1, n2 = p->n2;
  const long lo_mask = (1L << p->lo_bits) - 1, nmask = p->n - 1;
  long a0 = block_lo(n1, me, nodes), a1 = block_lo(n1, me + 1, nodes);
  long b0 = block_lo(n2, me, nodes), b1 = block_lo(n2, me + 1, nodes);

  transpose_rows(dst, src, n1, n2, a0, a1, me, nodes); /* A */
  for (long j1 = a0; j1 < a1; ++j1) {                    /* B */
    cpx *row = dst + j1 * n2;
    fft_radix2(row, n2, p->roots2);
    for (long k2 = 1; k2 < n2; ++k2) {
      long e = (j1 * k2) & nmask;
      row[k2] = cmul(row[k2], cmul(p->tw_hi[e >> p->lo_bits], p->tw_lo[e & lo_mask]));
    }
  }
  if (sync) rdsm_barrier();
  transpose_rows(src, dst, n2, n1, b0, b1, me, nodes); /* C */
  for (long k2 = b0; k2 < b1; ++k2) fft_radix2(src + k2 * n1, n1, p->roots1); /* D */
  if (sync) rdsm_barrier();
  transpose_rows(dst, src, n1, n2, a0, a1, me, nodes); /* E */
}

/* Rows [r0, r1) of the n1 x n2 result: a <- conj(a) * scale. */
static void conj_rows(cpx *a, long n2, long r0, long r1, double scale) {
  for (long k = r0 * n2; k < r1 * n2; ++k) {
    a[k].re *= scale;
    a[k].im *= -scale;
  }
}

/* The parallel forward transform x -> trans (x is scratch); its time. */
static double timed_forward(const plan *p, cpx *x, cpx *trans, int me, int nodes) {
  double t0 = rdsm_wtime();
  six_step(p, x, trans, me, nodes, 1);
  rdsm_barrier();
  return rdsm_wtime() - t0;
}

/* The parallel inverse x = conj(FFT(conj(trans))) / n (trans is scratch);
 * [my0, my1) are my result rows.  Its time. */
static double timed_inverse(const plan *p, cpx *x, cpx *trans, long my0, long my1, int me, int nodes) {
  double t1 = rdsm_wtime();
  conj_rows(trans, p->n2, my0, my1, 1.0);
  rdsm_barrier();
  six_step(p, trans, x, me, nodes, 1);
  conj_rows(x, p->n2, my0, my1, 1.0 / (double)p->n);
  rdsm_barrier();
  return rdsm_wtime() - t1;
}

/* max |a - b| / max |b| */
static double rel_error(const cpx *a, const cpx *b, long n) {
  double emax = 0.0, bmax = 0.0;
  for (long k = 0; k < n; ++k) {
    double dr = a[k].re - b[k].re, di = a[k].im - b[k].im;
    double e = sqrt(dr * dr + di * di), m = sqrt(b[k].re * b[k].re + b[k].im * b[k].im);
    if (!(e <= emax)) emax = e; /* NaN propagates */
    if (m > bmax) bmax = m;
  }
  return bmax > 0.0 ? emax / bmax : emax;
}

/* The parallel part, on every compute thread of every node (--threads):
 * the workers are the rdsm_threads() threads, numbered node-major, each
 * with its block of rows.  It runs twice: up to the last forward transform
 * (checked by node 0 in between), then the last inverse. */
typedef struct fft_job {
  const plan *p;
  cpx *x, *trans;
  long iters;
  int last_inverse; /* 0: the first part; 1: the last inverse */
  double t_fwd, t_inv; /* node thread 0's */
} fft_job;

static void fft_worker(void *arg) {
  fft_job *job = (fft_job *)arg;
  const plan *p = job->p;
  const int me = rdsm_thread_id(), workers = rdsm_threads();
  const int node_thread0 = me % rdsm_node_threads() == 0;
  long my0 = block_lo(p->n1, me, workers), my1 = block_lo(p->n1, me + 1, workers); /* my result rows */
  double t_fwd = 0.0, t_inv = 0.0;
  if (job->last_inverse) {
    /* the last inverse: x = conj(FFT(conj(trans))) / n */
    t_inv = timed_inverse(p, job->x, job->trans, my0, my1, me, workers);
  } else {
    for (long j = block_lo(p->n, me, workers); j < block_lo(p->n, me + 1, workers); ++j) job->x[j] = input_value(j);
    rdsm_barrier();
    /* ITERATIONS - 1 forward + inverse pairs, then the last forward (checked) */
    if (node_thread0) rdsm_reset_stats();
    for (long it = 0; it + 1 < job->iters; ++it) {
      t_fwd += timed_forward(p, job->x, job->trans, me, workers);
      t_inv += timed_inverse(p, job->x, job->trans, my0, my1, me, workers);
    }
    t_fwd += timed_forward(p, job->x, job->trans, me, workers);
  }
  if (node_thread0) {
    job->t_fwd += t_fwd;
    job->t_inv += t_inv;
  }
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const char *prog = argc > 0 ? argv[0] : "fft";
  fft_args a = parse_args(argc, argv);
  const int me = rdsm_rank();
  char shape[64];
  app_shape(shape, sizeof shape);

  plan p;
  int plan_ok = plan_make(&p, a.m) == 0;
  if (!plan_ok) {
    fprintf(stderr, "fft: node %d cannot allocate its twiddle tables\n", me);
    exit(1);
  }
  const long n = p.n;
  const size_t bytes = sizeof(cpx) * (size_t)n;

  app_verdict verdict = app_verdict_create();
  cpx *x = (cpx *)rdsm_malloc_all(bytes, RDSM_PLACE_BLOCK);
  cpx *trans = (cpx *)rdsm_malloc_all(bytes, RDSM_PLACE_BLOCK);

  fft_job job = {&p, x, trans, a.iters, 0, 0.0, 0.0};
  rdsm_run_threads(fft_worker, &job);
  rdsm_stats st;
  rdsm_get_stats(&st);

  /* node 0: sequential six-step (timed), radix-2 reference, DFT spot check */
  int pass = 1;
  double err_fwd = -1.0, err_seq = -1.0, err_dft = -1.0, err_inv = -1.0, t_seq = -1.0, t_ref = -1.0;
  cpx *input = NULL;
  const double tol = 1e-9;
  if (me == 0) {
    input = (cpx *)malloc(bytes);
    cpx *s_src = (cpx *)malloc(bytes), *s_dst = (cpx *)malloc(bytes), *ref = (cpx *)malloc(bytes);
    cpx *roots_n = make_roots(n, -1.0);
    if (!input || !s_src || !s_dst || !ref || !roots_n) {
      printf("FAIL fft: cannot allocate private memory for the sequential check (n = %ld)\n", n);
      pass = 0;
    } else {
      for (long j = 0; j < n; ++j) input[j] = input_value(j);
      t_seq = 0.0; /* as many forward transforms as the parallel run, each of the input */
      for (long it = 0; it < a.iters; ++it) {
        memcpy(s_src, input, bytes);
        double ts = rdsm_wtime();
        six_step(&p, s_src, s_dst, 0, 1, 0);
        t_seq += rdsm_wtime() - ts;
      }
      memcpy(ref, input, bytes);
      double ts = rdsm_wtime();
      fft_radix2(ref, n, roots_n);
      t_ref = rdsm_wtime() - ts;
      /* direct DFT at a few points, W^(jk) from the exact table */
      double dmax = 0.0, rmax = 0.0;
      for (int s = 0; s < 8; ++s) {
        long k = (long)(app_hash4(77, (uint64_t)s, (uint64_t)n, 0) & (uint64_t)(n - 1));
        if (s == 0) k = 0;
        cpx acc = {0.0, 0.0};
        for (long j = 0; j < n; ++j) {
          long e = (long)(((uint64_t)j * (uint64_t)k) & (uint64_t)(n - 1));
          cpx w = e < n / 2 ? roots_n[e] : (cpx){-roots_n[e - n / 2].re, -roots_n[e - n / 2].im};
          cpx t = cmul(input[j], w);
          acc.re += t.re;
          acc.im += t.im;
        }
        double dr = acc.re - ref[k].re, di = acc.im - ref[k].im;
        double e = sqrt(dr * dr + di * di), mg = sqrt(acc.re * acc.re + acc.im * acc.im);
        if (!(e <= dmax)) dmax = e;
        if (mg > rmax) rmax = mg;
      }
      err_dft = rmax > 0.0 ? dmax / rmax : dmax;
      /* reading trans fetches every other node's part of the result */
      err_fwd = rel_error(trans, ref, n);
      err_seq = rel_error(trans, s_dst, n);
    }
    free(s_src);
    free(s_dst);
    free(ref);
    free(roots_n);
  }
  rdsm_barrier();

  job.last_inverse = 1;
  rdsm_run_threads(fft_worker, &job);
  const double t_fwd = job.t_fwd, t_inv = job.t_inv;

  if (me == 0 && input) {
    err_inv = rel_error(x, input, n);
    pass = pass && err_fwd < tol && err_dft < tol && err_inv < tol && err_seq < tol;
    printf("%s fft: 2^%d = %ld points (%ld x %ld), %ld iterations, %s, protocol %s: forward %.6f s, inverse %.6f s, "
           "sequential %.6f s (radix-2 reference %.6f s); rel. error vs reference %.3g, vs sequential six-step %.3g, "
           "reference vs DFT %.3g, inverse vs input %.3g (tolerance %.0e)\n",
           pass ? "PASS" : "FAIL", p.m, n, p.n2, p.n1, a.iters, shape, rdsm_protocol_name(), t_fwd, t_inv, t_seq, t_ref,
           err_fwd, err_seq, err_dft, err_inv, tol);
    printf("parallel %.6f s\nsequential %.6f s\n", t_fwd, t_seq);
    app_print_breakdown(stdout, a.iters > 1 ? "fft node 0 (all transforms up to the last forward)" : "fft node 0 (forward)",
                        &st);
    fflush(stdout);
    FILE *f = app_json_begin(prog, a.json, "fft", pass);
    if (f) {
      fprintf(f,
              ", \"m\": %d, \"points\": %ld, \"iterations\": %ld, "
              "\"parallel_seconds\": %.9f, \"inverse_seconds\": %.9f, \"sequential_seconds\": %.9f, "
              "\"reference_seconds\": %.9f, \"error_forward\": %.6g, \"error_sequential\": %.6g, "
              "\"error_dft\": %.6g, \"error_inverse\": %.6g",
              p.m, n, a.iters, t_fwd, t_inv, t_seq, t_ref, err_fwd, err_seq, err_dft, err_inv);
      app_json_end(f, &st);
    }
  }
  free(input);
  plan_free(&p);
  int status = app_verdict_publish(verdict, pass);
  rdsm_finalize();
  return status;
}
