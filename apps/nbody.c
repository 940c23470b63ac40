/* NBody and NBodyW: direct O(N^2) gravitational N-body kernels (seed 004).
 *
 * N bodies, each 64 bytes in one shared array (position, velocity, mass,
 * padding: 8K bodies are 0.5 MB, as in seed 004 Table 3).  Bodies are split
 * into contiguous blocks, one per node (one per compute thread with
 * --threads: rdsm_run_threads; "node 0" below is then thread 0 of node 0).
 * Every step:
 *
 *   force phase   each node computes the acceleration of each of its bodies
 *                 from the positions of all bodies (reads everything, writes
 *                 only private memory);  barrier;
 *   update phase  each node moves its own bodies (writes only its block);
 *                 barrier.
 *
 * NBodyW (--variant nbodyw) adds a sequential phase each step: node 0 alone
 * reads and writes every body — it moves the whole system to its centre of
 * mass frame (subtracts the centre of mass position and velocity from every
 * body) — followed by a barrier.  All pages then have written by node 0 and by
 * their owners in turn: the write-write sharing pattern.
 *
 * Every body's acceleration is summed over j = 0 .. N-1 in the same order in
 * the parallel and the sequential run, and the same functions do the
 * arithmetic, so node 0 checks the shared bodies bit for bit against a
 * sequential run in private memory.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/app_util.h"
#include "rdsm.h"

static const char *kUsage =
    "[--variant nbody|nbodyw] [--size test|medium|paper] [-b BODIES] [-s STEPS] [--json FILE]\n"
    "  direct O(N^2) gravitational N-body; nbodyw adds a sequential phase per step in which node 0\n"
    "  recentres all bodies.  Sizes: test 4096 bodies 4 steps, medium 16384 x 20 (about 15 s\n"
    "  sequentially), paper 8192 x 20\n"
    "  (seed 004 Table 3: 8K bodies).  -b/-s override.  Node 0 checks bit for bit against a\n"
    "  sequential run.";

typedef struct body {
  double pos[3];
  double vel[3];
  double mass;
  double pad;
} body; /* 64 bytes */

typedef struct nb_args {
  int variant_w;
  long bodies, steps;
  const char *size;
  const char *json;
} nb_args;

static const double kDt = 0.01;
static const double kEps2 = 0.01; /* softening squared */

static nb_args parse_args(int argc, char **argv) {
  nb_args a = {0, 4096, 4, "test", NULL};
  long long b = -1, s = -1;
  app_args args = app_args_start(argc, argv, "nbody", kUsage);
  while (app_args_next(&args)) {
    if (!strcmp(args.opt, "--variant")) {
      if (!strcmp(args.val, "nbody")) a.variant_w = 0;
      else if (!strcmp(args.val, "nbodyw")) a.variant_w = 1;
      else app_arg_error(&args, "--variant: '%s' is not nbody or nbodyw", args.val);
      continue;
    }
    if (app_arg_size(&args, &a.size)) continue;
    if (app_arg_int(&args, "-b", 2, 1L << 22, "body count", &b)) continue;
    if (app_arg_int(&args, "-s", 0, 1000000, "step count", &s)) continue;
    if (app_arg_string(&args, "--json", &a.json)) continue;
    app_arg_unknown(&args);
  }
  if (!strcmp(a.size, "test")) { a.bodies = 4096; a.steps = 4; }
  else if (!strcmp(a.size, "medium")) { a.bodies = 16384; a.steps = 20; }
  else { a.bodies = 8192; a.steps = 20; }
  if (b > 0) a.bodies = (long)b;
  if (s >= 0) a.steps = (long)s;
  return a;
}

/* Deterministic initial state of body i of n: a random ball with a little spin. */
static void init_body(body *bd, long i, long n) {
  uint64_t st = 0x6e626f6479ull ^ ((uint64_t)i * 0x9E3779B97F4A7C15ull);
  double p[3];
  double r2;
  do {
    for (int d = 0; d < 3; ++d) p[d] = 2.0 * ((double)(app_splitmix64(&st) >> 11) * 0x1.0p-53) - 1.0;
    r2 = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
  } while (r2 > 1.0);
  for (int d = 0; d < 3; ++d) bd->pos[d] = 10.0 * p[d];
  bd->vel[0] = -0.3 * p[1];
  bd->vel[1] = 0.3 * p[0];
  bd->vel[2] = 0.05 * (2.0 * ((double)(app_splitmix64(&st) >> 11) * 0x1.0p-53) - 1.0);
  bd->mass = (0.5 + (double)(app_splitmix64(&st) >> 11) * 0x1.0p-53) * 1024.0 / (double)n; /* total mass ~ 1024 */
  bd->pad = 0.0;
}

/* Accelerations of bodies [i0, i1) into acc[(i - i0) * 3 ..]; j in order. */
static void compute_acc(const body *b, long n, long i0, long i1, double *acc) {
  for (long i = i0; i < i1; ++i) {
    double xi = b[i].pos[0], yi = b[i].pos[1], zi = b[i].pos[2];
    double ax = 0.0, ay = 0.0, az = 0.0;
    for (long j = 0; j < n; ++j) {
      if (j == i) continue;
      double dx = b[j].pos[0] - xi, dy = b[j].pos[1] - yi, dz = b[j].pos[2] - zi;
      double r2 = dx * dx + dy * dy + dz * dz + kEps2;
      double inv = 1.0 / sqrt(r2);
      double s = b[j].mass * inv * inv * inv;
      ax += s * dx;
      ay += s * dy;
      az += s * dz;
    }
    double *a = acc + (i - i0) * 3;
    a[0] = ax;
    a[1] = ay;
    a[2] = az;
  }
}

/* Semi-implicit Euler for bodies [i0, i1). */
static void update_bodies(body *b, long i0, long i1, const double *acc) {
  for (long i = i0; i < i1; ++i) {
    const double *a = acc + (i - i0) * 3;
    for (int d = 0; d < 3; ++d) {
      b[i].vel[d] += kDt * a[d];
      b[i].pos[d] += kDt * b[i].vel[d];
    }
  }
}

/* The NBodyW sequential phase: move to the centre-of-mass frame. */
static void recentre(body *b, long n) {
  double m = 0.0, cp[3] = {0, 0, 0}, cv[3] = {0, 0, 0};
  for (long i = 0; i < n; ++i) {
    m += b[i].mass;
    for (int d = 0; d < 3; ++d) {
      cp[d] += b[i].mass * b[i].pos[d];
      cv[d] += b[i].mass * b[i].vel[d];
    }
  }
  for (int d = 0; d < 3; ++d) {
    cp[d] /= m;
    cv[d] /= m;
  }
  for (long i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d) {
      b[i].pos[d] -= cp[d];
      b[i].vel[d] -= cv[d];
    }
}

static double kinetic(const body *b, long n) {
  double k = 0.0;
  for (long i = 0; i < n; ++i)
    k += 0.5 * b[i].mass * (b[i].vel[0] * b[i].vel[0] + b[i].vel[1] * b[i].vel[1] + b[i].vel[2] * b[i].vel[2]);
  return k;
}

/* The parallel part, on every compute thread of every node (--threads):
 * the workers are the rdsm_threads() threads, each with its block of
 * bodies and its private accelerations; worker 0 does NBodyW's
 * sequential phase. */
typedef struct nb_job {
  nb_args a;
  body *bodies;
  double t_parallel; /* node thread 0's */
} nb_job;

static void nb_worker(void *arg) {
  nb_job *job = (nb_job *)arg;
  const nb_args a = job->a;
  const int me = rdsm_thread_id(), nodes = rdsm_threads();
  const int node_thread0 = me % rdsm_node_threads() == 0;
  const long n = a.bodies;
  body *bodies = job->bodies;
  long i0 = (long)((int64_t)n * me / nodes);
  long i1 = (long)((int64_t)n * (me + 1) / nodes);
  double *acc = (double *)malloc((size_t)(i1 - i0 + 1) * 3 * sizeof(double));
  if (!acc) {
    fprintf(stderr, "nbody: worker %d: out of memory\n", me);
    exit(1);
  }
  for (long i = i0; i < i1; ++i) init_body(&bodies[i], i, n);
  rdsm_barrier();

  if (node_thread0) rdsm_reset_stats();
  double t0 = rdsm_wtime();
  for (long step = 0; step < a.steps; ++step) {
    compute_acc(bodies, n, i0, i1, acc);
    rdsm_barrier();
    update_bodies(bodies, i0, i1, acc);
    rdsm_barrier();
    if (a.variant_w) {
      if (me == 0) recentre(bodies, n);
      rdsm_barrier();
    }
  }
  if (node_thread0) job->t_parallel = rdsm_wtime() - t0;
  free(acc);
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const char *prog = argc > 0 ? argv[0] : "nbody";
  nb_args a = parse_args(argc, argv);
  const int me = rdsm_rank();
  char shape[64];
  app_shape(shape, sizeof shape);
  const char *name = a.variant_w ? "nbodyw" : "nbody";
  const long n = a.bodies;
  const size_t bytes = (size_t)n * sizeof(body);

  app_verdict verdict = app_verdict_create();
  body *bodies = (body *)rdsm_malloc_all(bytes, RDSM_PLACE_BLOCK);

  nb_job job = {a, bodies, 0.0};
  rdsm_run_threads(nb_worker, &job);
  const double t_parallel = job.t_parallel;
  rdsm_stats st;
  rdsm_get_stats(&st);

  int pass = 1;
  if (me == 0) {
    body *ref = (body *)malloc(bytes);
    double *racc = (double *)malloc((size_t)n * 3 * sizeof(double));
    if (!ref || !racc) {
      printf("FAIL %s: cannot allocate memory for the sequential check\n", name);
      pass = 0;
    } else {
      double ts = rdsm_wtime();
      for (long i = 0; i < n; ++i) init_body(&ref[i], i, n);
      for (long step = 0; step < a.steps; ++step) {
        compute_acc(ref, n, 0, n, racc);
        update_bodies(ref, 0, n, racc);
        if (a.variant_w) recentre(ref, n);
      }
      double t_seq = rdsm_wtime() - ts;
      double ke = kinetic(bodies, n);
      pass = memcmp(bodies, ref, bytes) == 0;
      if (!pass) {
        long bad = 0, first = 0;
        for (long i = 0; i < n; ++i)
          if (memcmp(&bodies[i], &ref[i], sizeof(body)) != 0 && bad++ == 0) first = i;
        printf("FAIL %s: %ld of %ld bodies differ from the sequential run; first body %ld: pos %.17g %.17g %.17g "
               "expected %.17g %.17g %.17g (%s, %ld steps)\n",
               name, bad, n, first, bodies[first].pos[0], bodies[first].pos[1], bodies[first].pos[2],
               ref[first].pos[0], ref[first].pos[1], ref[first].pos[2], shape, a.steps);
      } else {
        printf("PASS %s: %ld bodies, %ld steps, %s, protocol %s, kinetic energy %.17g, parallel %.6f s, "
               "bit-identical to sequential\n",
               name, n, a.steps, shape, rdsm_protocol_name(), ke, t_parallel);
      }
      printf("sequential %.6f s\n", t_seq);
      app_print_breakdown(stdout, name, &st);
      fflush(stdout);
      FILE *f = app_json_begin(prog, a.json, name, pass);
      if (f) {
        fprintf(f,
                ", \"bodies\": %ld, \"steps\": %ld, \"kinetic_energy\": %.17g, \"parallel_seconds\": %.9f, "
                "\"sequential_seconds\": %.9f",
                n, a.steps, ke, t_parallel, t_seq);
        app_json_end(f, &st);
      }
    }
    free(ref);
    free(racc);
  }
  int status = app_verdict_publish(verdict, pass);
  rdsm_finalize();
  return status;
}
