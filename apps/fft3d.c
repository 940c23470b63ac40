/* 3-D complex FFT on an n x n x n grid with an evolve step (NAS FT style, as
 * the TreadMarks 3Dfft of seed 000 Fig. 9, grid 128).
 *
 * Shared arrays, each n^3 complex doubles, planes split into contiguous
 * blocks over the nodes (RDSM_PLACE_BLOCK, so a node's planes are homed on it;
 * with --threads over every compute thread of every node, rdsm_run_threads):
 *   A[z][y][x]  physical space, z-planes distributed
 *   S[x][y][z]  spectrum of the initial grid, x-planes distributed
 *   W[x][y][z]  evolved spectrum, x-planes distributed
 * Forward (A -> S): 2-D FFT (x then y) of my z-planes of A; barrier; global
 *   transpose S[x][y][z] = A[z][y][x] of my x-planes (reading every node's
 *   z-planes, starting with the next node's); 1-D FFTs along z; barrier.
 * Iteration t = 1..iters: W = S * exp(-4 alpha pi^2 |k|^2 t) on my x-planes;
 *   inverse 2-D FFT (z then y) of my x-planes of W; barrier; transpose
 *   A[z][y][x] = W[x][y][z] of my z-planes; inverse 1-D FFTs along x, scaled
 *   by 1/n^3; my partial checksum (sum of my planes); barrier.
 *
 * Node 0 checks S and the final A (and every iteration's checksum) against a
 * plain sequential 3-D FFT in private memory (1-D radix-2 FFTs along each
 * axis in place, no transposes), and that spectrum against a direct DFT at a
 * few points.  It also runs the same parallel code on one node in private
 * memory: that time is printed as `sequential`.
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
    "[--size test|medium|paper] [-n N] [-i ITERS] [--json FILE]\n"
    "  3-D FFT of an N^3 complex grid, then ITERS evolve + inverse-FFT steps (default and test: 64^3, 2\n"
    "  iterations; medium: 128^3, 180 (about 15 s sequentially; 128^3 is the largest grid the default\n"
    "  region holds, so medium grows by iterations); paper: 128^3 (seed 000 Fig. 9), 10); N a power\n"
    "  of two >= 2.\n"
    "  Shared memory: 3 N^3 x 16 bytes (128^3: 96 MiB, fits the default 128M region; 256^3 needs 1G).";

typedef struct f3_args {
  long n, iters;
  const char *json;
} f3_args;

static f3_args parse_args(int argc, char **argv) {
  f3_args a = {64, 2, NULL};
  const char *size = "test";
  long long n = -1, it = -1;
  app_args args = app_args_start(argc, argv, "fft3d", kUsage);
  while (app_args_next(&args)) {
    if (app_arg_size(&args, &size)) continue;
    if (app_arg_int(&args, "-n", 2, 512, "power-of-two grid size", &n)) {
      if (n & (n - 1)) app_arg_error(&args, "-n: bad power-of-two grid size '%s' (2 .. 512)", args.val);
      continue;
    }
    if (app_arg_int(&args, "-i", 0, 1000, "iteration count", &it)) continue;
    if (app_arg_string(&args, "--json", &a.json)) continue;
    app_arg_unknown(&args);
  }
  if (!strcmp(size, "medium")) a.n = 128, a.iters = 180;
  else if (!strcmp(size, "paper")) a.n = 128, a.iters = 10;
  if (n >= 0) a.n = (long)n;
  if (it >= 0) a.iters = (long)it;
  return a;
}

/* ---- 1-D transforms along a grid line (kernel in common/fft_kernel.h) ------ */

/* FFT along a strided line of len points starting at a (through buf). */
static void fft_strided(cpx *a, long len, long stride, const cpx *roots, cpx *buf) {
  for (long k = 0; k < len; ++k) buf[k] = a[k * stride];
  fft_radix2(buf, len, roots);
  for (long k = 0; k < len; ++k) a[k * stride] = buf[k];
}

static cpx input_value(long z, long y, long x) {
  uint64_t h = app_hash4(0x3DFu, (uint64_t)z, (uint64_t)y, (uint64_t)x);
  cpx c;
  c.re = (double)(h >> 11) * (1.0 / 9007199254740992.0);
  h = app_hash4(0x3DFu ^ 0x55u, (uint64_t)z, (uint64_t)y, (uint64_t)x);
  c.im = (double)(h >> 11) * (1.0 / 9007199254740992.0);
  return c;
}

static const double kAlpha = 1e-6;

/* exp(-4 alpha pi^2 |k|^2 t) at spectral index (kx, ky, kz) */
static double evolve_factor(long kx, long ky, long kz, long n, long t) {
  long a = kx < n / 2 ? kx : kx - n, b = ky < n / 2 ? ky : ky - n, c = kz < n / 2 ? kz : kz - n;
  return exp(-4.0 * kAlpha * M_PI * M_PI * (double)(a * a + b * b + c * c) * (double)t);
}

static inline long block_lo(long rows, int node, int nodes) { return (long)((int64_t)rows * node / nodes); }

/* ---- the parallel algorithm (also run on one node in private memory) ------- */

typedef struct grid3 {
  long n, iters;
  cpx *A, *S, *W;
  double *sums; /* [iters][workers][2] partial checksums */
  cpx *fwd, *inv, *buf;
} grid3;

/* dst[p][q][r] = src[r][q][p] for p in [p0, p1); src planes in node blocks. */
static void transpose3(cpx *dst, const cpx *src, long n, long p0, long p1, int me, int nodes) {
  const long n2 = n * n;
  for (int k = 0; k < nodes; ++k) {
    int q = (me + 1 + k) % nodes;
    long r0 = block_lo(n, q, nodes), r1 = block_lo(n, q + 1, nodes);
    for (long r = r0; r < r1; ++r)
      for (long y = 0; y < n; ++y) {
        const cpx *s = src + r * n2 + y * n;
        cpx *d = dst + y * n + r;
        for (long p = p0; p < p1; ++p) d[p * n2] = s[p];
      }
  }
}

static void run3(grid3 *g, int me, int nodes, int sync) {
  const long n = g->n, n2 = n * n;
  const long p0 = block_lo(n, me, nodes), p1 = block_lo(n, me + 1, nodes);
  const double scale = 1.0 / ((double)n2 * (double)n);

  /* forward: 2-D FFT of my z-planes of A */
  for (long z = p0; z < p1; ++z) {
    cpx *plane = g->A + z * n2;
    for (long y = 0; y < n; ++y) fft_radix2(plane + y * n, n, g->fwd);
    for (long x = 0; x < n; ++x) fft_strided(plane + x, n, n, g->fwd, g->buf);
  }
  if (sync) rdsm_barrier();
  transpose3(g->S, g->A, n, p0, p1, me, nodes);
  for (long x = p0; x < p1; ++x)
    for (long y = 0; y < n; ++y) fft_radix2(g->S + x * n2 + y * n, n, g->fwd);
  if (sync) rdsm_barrier();

  for (long t = 1; t <= g->iters; ++t) {
    for (long x = p0; x < p1; ++x) {
      for (long y = 0; y < n; ++y) {
        const cpx *s = g->S + x * n2 + y * n;
        cpx *w = g->W + x * n2 + y * n;
        for (long z = 0; z < n; ++z) {
          double f = evolve_factor(x, y, z, n, t);
          w[z].re = s[z].re * f;
          w[z].im = s[z].im * f;
        }
        fft_radix2(w, n, g->inv); /* along z */
      }
      for (long z = 0; z < n; ++z) fft_strided(g->W + x * n2 + z, n, n, g->inv, g->buf); /* along y */
    }
    if (sync) rdsm_barrier();
    transpose3(g->A, g->W, n, p0, p1, me, nodes);
    double sr = 0.0, si = 0.0;
    for (long z = p0; z < p1; ++z)
      for (long y = 0; y < n; ++y) {
        cpx *row = g->A + z * n2 + y * n;
        fft_radix2(row, n, g->inv);
        for (long x = 0; x < n; ++x) {
          row[x].re *= scale;
          row[x].im *= scale;
          sr += row[x].re;
          si += row[x].im;
        }
      }
    g->sums[((t - 1) * nodes + me) * 2] = sr;
    g->sums[((t - 1) * nodes + me) * 2 + 1] = si;
    if (sync) rdsm_barrier();
  }
}

/* ---- the plain sequential reference ---------------------------------------- */

/* In place on R[z][y][x]: 1-D FFTs along x, y and z. */
static void ref_fft3(cpx *R, long n, const cpx *roots, cpx *buf) {
  const long n2 = n * n;
  for (long z = 0; z < n; ++z)
    for (long y = 0; y < n; ++y) fft_radix2(R + z * n2 + y * n, n, roots);
  for (long z = 0; z < n; ++z)
    for (long x = 0; x < n; ++x) fft_strided(R + z * n2 + x, n, n, roots, buf);
  for (long y = 0; y < n; ++y)
    for (long x = 0; x < n; ++x) fft_strided(R + y * n + x, n, n2, roots, buf);
}

static double mag(cpx c) { return sqrt(c.re * c.re + c.im * c.im); }

/* The parallel part, on every compute thread of every node (--threads):
 * the workers are the rdsm_threads() threads, numbered node-major, each
 * with its block of planes and its own line buffer. */
typedef struct f3_job {
  const grid3 *g;
  double t_par; /* node thread 0's */
} f3_job;

static void f3_worker(void *arg) {
  f3_job *job = (f3_job *)arg;
  grid3 g = *job->g;
  const long n = g.n, n2 = n * n;
  const int me = rdsm_thread_id(), workers = rdsm_threads();
  const int node_thread0 = me % rdsm_node_threads() == 0;
  g.buf = (cpx *)malloc(sizeof(cpx) * (size_t)n);
  if (!g.buf) {
    fprintf(stderr, "fft3d: worker %d cannot allocate its line buffer\n", me);
    exit(1);
  }
  for (long z = block_lo(n, me, workers); z < block_lo(n, me + 1, workers); ++z)
    for (long y = 0; y < n; ++y)
      for (long x = 0; x < n; ++x) g.A[z * n2 + y * n + x] = input_value(z, y, x);
  rdsm_barrier();

  if (node_thread0) rdsm_reset_stats();
  double t0 = rdsm_wtime();
  run3(&g, me, workers, 1);
  if (node_thread0) job->t_par = rdsm_wtime() - t0;
  free(g.buf);
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const char *prog = argc > 0 ? argv[0] : "fft3d";
  f3_args a = parse_args(argc, argv);
  const int me = rdsm_rank(), nodes = rdsm_threads(); /* the workers */
  char shape[64];
  app_shape(shape, sizeof shape);
  const long n = a.n, n2 = n * n, n3 = n2 * n;
  const size_t bytes = sizeof(cpx) * (size_t)n3;
  const double tol = 1e-9;

  app_verdict verdict = app_verdict_create();
  grid3 g = {n, a.iters, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
  g.A = (cpx *)rdsm_malloc_all(bytes, RDSM_PLACE_BLOCK);
  g.S = (cpx *)rdsm_malloc_all(bytes, RDSM_PLACE_BLOCK);
  g.W = (cpx *)rdsm_malloc_all(bytes, RDSM_PLACE_BLOCK);
  size_t sums_bytes = sizeof(double) * 2 * (size_t)nodes * (size_t)(a.iters > 0 ? a.iters : 1);
  g.sums = (double *)rdsm_malloc_all(sums_bytes, RDSM_PLACE_DEFAULT);
  g.fwd = make_roots(n, -1.0);
  g.inv = make_roots(n, 1.0);
  g.buf = (cpx *)malloc(sizeof(cpx) * (size_t)n);
  if (!g.fwd || !g.inv || !g.buf) {
    fprintf(stderr, "fft3d: node %d cannot allocate its tables\n", me);
    exit(1);
  }

  f3_job job = {&g, 0.0};
  rdsm_run_threads(f3_worker, &job);
  const double t_par = job.t_par;
  rdsm_stats st;
  rdsm_get_stats(&st);

  int pass = 1;
  if (me == 0) {
    grid3 s = g;
    s.A = (cpx *)malloc(bytes);
    s.S = (cpx *)malloc(bytes);
    s.W = (cpx *)malloc(bytes);
    s.sums = (double *)malloc(sums_bytes);
    cpx *R = (cpx *)malloc(bytes), *E = (cpx *)malloc(bytes);
    if (!s.A || !s.S || !s.W || !s.sums || !R || !E) {
      printf("FAIL fft3d: cannot allocate private memory for the sequential check (%ld^3)\n", n);
      pass = 0;
    } else {
      for (long z = 0; z < n; ++z)
        for (long y = 0; y < n; ++y)
          for (long x = 0; x < n; ++x) R[z * n2 + y * n + x] = s.A[z * n2 + y * n + x] = input_value(z, y, x);
      double ts = rdsm_wtime();
      run3(&s, 0, 1, 0);
      double t_seq = rdsm_wtime() - ts;

      ts = rdsm_wtime();
      ref_fft3(R, n, g.fwd, g.buf); /* R[z][y][x] = spectrum at (kx=x, ky=y, kz=z) */
      /* direct DFT at a few spectral points */
      double dft_err = 0.0, dft_mag = 0.0;
      for (int k = 0; k < 4; ++k) {
        long kx = k ? (long)(app_hash4(5, (uint64_t)k, 1, 0) % (uint64_t)n) : 0;
        long ky = k ? (long)(app_hash4(5, (uint64_t)k, 2, 0) % (uint64_t)n) : 0;
        long kz = k ? (long)(app_hash4(5, (uint64_t)k, 3, 0) % (uint64_t)n) : 0;
        cpx acc = {0.0, 0.0};
        for (long z = 0; z < n; ++z)
          for (long y = 0; y < n; ++y)
            for (long x = 0; x < n; ++x) {
              double th = -2.0 * M_PI * (double)((x * kx + y * ky + z * kz) % n) / (double)n;
              cpx w = {cos(th), sin(th)};
              cpx t = cmul(input_value(z, y, x), w);
              acc.re += t.re;
              acc.im += t.im;
            }
        cpx r = R[kz * n2 + ky * n + kx];
        cpx d = {acc.re - r.re, acc.im - r.im};
        if (!(mag(d) <= dft_err)) dft_err = mag(d);
        if (mag(acc) > dft_mag) dft_mag = mag(acc);
      }
      dft_err = dft_mag > 0.0 ? dft_err / dft_mag : dft_err;

      /* spectrum: shared S[x][y][z] vs R[z][y][x] (reads fetch every node's planes) */
      double emax = 0.0, rmax = 0.0;
      for (long z = 0; z < n; ++z)
        for (long y = 0; y < n; ++y)
          for (long x = 0; x < n; ++x) {
            cpx r = R[z * n2 + y * n + x], v = g.S[x * n2 + y * n + z];
            cpx d = {v.re - r.re, v.im - r.im};
            if (!(mag(d) <= emax)) emax = mag(d);
            if (mag(r) > rmax) rmax = mag(r);
          }
      double err_spec = rmax > 0.0 ? emax / rmax : emax;

      /* iterations: evolve R into E, inverse 3-D FFT, checksum */
      double err_sum = 0.0, err_final = 0.0;
      double psr = 0.0, psi = 0.0;
      for (long t = 1; t <= a.iters; ++t) {
        for (long z = 0; z < n; ++z)
          for (long y = 0; y < n; ++y)
            for (long x = 0; x < n; ++x) {
              double f = evolve_factor(x, y, z, n, t);
              E[z * n2 + y * n + x].re = R[z * n2 + y * n + x].re * f;
              E[z * n2 + y * n + x].im = R[z * n2 + y * n + x].im * f;
            }
        ref_fft3(E, n, g.inv, g.buf);
        double sr = 0.0, si = 0.0, amag = 0.0;
        for (long k = 0; k < n3; ++k) {
          E[k].re /= (double)n3;
          E[k].im /= (double)n3;
          sr += E[k].re;
          si += E[k].im;
          amag += mag(E[k]);
        }
        psr = 0.0, psi = 0.0;
        for (int q = 0; q < nodes; ++q) {
          psr += g.sums[((t - 1) * nodes + q) * 2];
          psi += g.sums[((t - 1) * nodes + q) * 2 + 1];
        }
        double e = sqrt((psr - sr) * (psr - sr) + (psi - si) * (psi - si)) / (amag > 0.0 ? amag : 1.0);
        if (!(e <= err_sum)) err_sum = e;
      }
      double t_ref = rdsm_wtime() - ts;
      if (a.iters > 0) {
        emax = 0.0, rmax = 0.0;
        for (long k = 0; k < n3; ++k) {
          cpx d = {g.A[k].re - E[k].re, g.A[k].im - E[k].im};
          if (!(mag(d) <= emax)) emax = mag(d);
          if (mag(E[k]) > rmax) rmax = mag(E[k]);
        }
        err_final = rmax > 0.0 ? emax / rmax : emax;
      }
      pass = err_spec < tol && dft_err < tol && err_final < tol && err_sum < tol;
      printf("%s fft3d: %ld^3 grid, %ld iterations, %s, protocol %s: parallel %.6f s, sequential %.6f s "
             "(reference %.6f s); rel. error spectrum %.3g, reference vs DFT %.3g, final grid %.3g, checksums %.3g "
             "(tolerance %.0e); last checksum (%.12g, %.12g)\n",
             pass ? "PASS" : "FAIL", n, a.iters, shape, rdsm_protocol_name(), t_par, t_seq, t_ref, err_spec, dft_err,
             err_final, err_sum, tol, psr, psi);
      app_print_times("fft3d", t_par, t_seq, &st);
      FILE *f = app_json_begin(prog, a.json, "fft3d", pass);
      if (f) {
        fprintf(f,
                ", \"n\": %ld, \"iterations\": %ld, \"parallel_seconds\": %.9f, \"sequential_seconds\": %.9f, "
                "\"reference_seconds\": %.9f, \"error_spectrum\": %.6g, \"error_dft\": %.6g, "
                "\"error_final\": %.6g, \"error_checksum\": %.6g",
                n, a.iters, t_par, t_seq, t_ref, err_spec, dft_err, err_final, err_sum);
        app_json_end(f, &st);
      }
    }
    free(s.A);
    free(s.S);
    free(s.W);
    free(s.sums);
    free(R);
    free(E);
  }
  free(g.fwd);
  free(g.inv);
  free(g.buf);
  int status = app_verdict_publish(verdict, pass);
  rdsm_finalize();
  return status;
}
