/* Water: an O(n^2) molecular-dynamics kernel in the style of SPLASH-2
 * Water-nsquared (our own simplified code: point molecules, Lennard-Jones
 * pair potential with a cutoff, periodic cubic box, velocity Verlet).
 *
 * M molecules, 80 bytes each (position, velocity, force) in one shared array.
 * Each node owns a contiguous block of molecules (each worker: with --threads
 * every compute thread of every node is one, rdsm_run_threads, with its own
 * block, private forces and energy slot).  Every time step:
 *
 *   kick+drift   each node: v += dt/2 f, x += dt v, f = 0 for its molecules;
 *                barrier;
 *   forces       each node computes the pairs (i, j) for i in its block and j
 *                the M/2 molecules that follow i (cyclically), so every pair
 *                is computed once.  Contributions are summed in private
 *                memory, then added to the shared force of every molecule the
 *                node touched, each under the lock of that molecule (or of its
 *                group, --group G) — as Water-nsquared does, so the program
 *                takes about M/nodes + M/2 locks per node per step; the
 *                potential energy goes into a per-node slot;  barrier;
 *   kick         each node: v += dt/2 f for its molecules.
 *
 * The order in which nodes add into a molecule's force is the lock order, so
 * the sums differ in rounding from a sequential run: node 0 compares the
 * positions, velocities and energies with a sequential run in private memory
 * within a relative tolerance (--tol, default 1e-9), and checks that total
 * momentum stays zero and the total energy is conserved within 1 %.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/app_util.h"
#include "rdsm.h"

static const char *kUsage =
    "[--size test|medium|paper] [-m MOLECULES] [-s STEPS] [--group G] [--tol T] [--json FILE]\n"
    "  O(n^2/2) Lennard-Jones molecular dynamics with per-molecule locks (Water-nsquared style).\n"
    "  Sizes: test 512 molecules 3 steps, medium 16384 x 19 (about 15 s sequentially), paper 4096 x 3\n"
    "  (seed 003 Table 1.3: 4096 molecules; seed 004 Table 3 uses 512: -m 512).\n"
    "  --group: molecules per lock (default 1).\n"
    "  Node 0 checks against a sequential run within relative tolerance T (default 1e-9).";

typedef struct molecule {
  double pos[3];
  double vel[3];
  double force[3];
  double pad;
} molecule; /* 80 bytes */

typedef struct water_args {
  long mols, steps, group;
  double tol;
  const char *size;
  const char *json;
} water_args;

static const double kDt = 0.002;
static const double kDensity = 0.8;
static const double kCutoff = 2.5;

static water_args parse_args(int argc, char **argv) {
  water_args a = {512, 3, 1, 1e-9, "test", NULL};
  long long m = -1, s = -1, g = -1;
  app_args args = app_args_start(argc, argv, "water", kUsage);
  while (app_args_next(&args)) {
    if (app_arg_size(&args, &a.size)) continue;
    if (app_arg_int(&args, "-m", 8, 1L << 20, "molecule count", &m)) continue;
    if (app_arg_int(&args, "-s", 0, 1000000, "step count", &s)) continue;
    if (app_arg_int(&args, "--group", 1, 1L << 20, "group size", &g)) continue;
    if (app_arg_double(&args, "--tol", 0.0, 1.0, APP_OPEN_MAX, &a.tol)) continue;
    if (app_arg_string(&args, "--json", &a.json)) continue;
    app_arg_unknown(&args);
  }
  if (!strcmp(a.size, "test")) { a.mols = 512; a.steps = 3; }
  else if (!strcmp(a.size, "medium")) { a.mols = 16384; a.steps = 19; }
  else { a.mols = 4096; a.steps = 3; }
  if (m > 0) a.mols = (long)m;
  if (s >= 0) a.steps = (long)s;
  if (g > 0) a.group = (long)g;
  return a;
}

static double box_length(long m) { return cbrt((double)m / kDensity); }

/* Deterministic initial state of all molecules (every node computes it all;
 * it is cheap): a perturbed cubic lattice, random velocities with zero total
 * momentum. */
static void init_state(molecule *mol, long m) {
  double L = box_length(m);
  long side = 1;
  while (side * side * side < m) ++side;
  double a = L / (double)side;
  uint64_t st = 0x7761746572ull;
  double mean[3] = {0, 0, 0};
  for (long i = 0; i < m; ++i) {
    long ix = i % side, iy = (i / side) % side, iz = i / (side * side);
    long c[3] = {ix, iy, iz};
    for (int d = 0; d < 3; ++d) {
      double r = (double)(app_splitmix64(&st) >> 11) * 0x1.0p-53 - 0.5;
      mol[i].pos[d] = ((double)c[d] + 0.5 + 0.1 * r) * a;
      double u = (double)(app_splitmix64(&st) >> 11) * 0x1.0p-53 - 0.5;
      mol[i].vel[d] = 2.0 * u;
      mean[d] += mol[i].vel[d];
      mol[i].force[d] = 0.0;
    }
    mol[i].pad = 0.0;
  }
  for (int d = 0; d < 3; ++d) mean[d] /= (double)m;
  for (long i = 0; i < m; ++i)
    for (int d = 0; d < 3; ++d) mol[i].vel[d] -= mean[d];
}

/* Pair forces for i in [i0, i1) with the m/2 molecules after i.  Forces go
 * into priv (m x 3, zeroed by the caller); returns the potential energy. */
static double compute_pairs(const molecule *mol, long m, long i0, long i1, double *priv) {
  const double L = box_length(m), rc2 = kCutoff * kCutoff;
  const double ic6 = 1.0 / (rc2 * rc2 * rc2);
  const double shift = 4.0 * (ic6 * ic6 - ic6);
  const long half = m / 2;
  double pe = 0.0;
  for (long i = i0; i < i1; ++i) {
    double xi = mol[i].pos[0], yi = mol[i].pos[1], zi = mol[i].pos[2];
    double fx = 0.0, fy = 0.0, fz = 0.0;
    for (long k = 1; k <= half; ++k) {
      if (m % 2 == 0 && k == half && i >= half) break; /* that pair belongs to i - half */
      long j = i + k;
      if (j >= m) j -= m;
      double dx = xi - mol[j].pos[0], dy = yi - mol[j].pos[1], dz = zi - mol[j].pos[2];
      dx -= L * nearbyint(dx / L);
      dy -= L * nearbyint(dy / L);
      dz -= L * nearbyint(dz / L);
      double r2 = dx * dx + dy * dy + dz * dz;
      if (r2 >= rc2) continue;
      double ir2 = 1.0 / r2, ir6 = ir2 * ir2 * ir2;
      double s = 24.0 * ir2 * ir6 * (2.0 * ir6 - 1.0);
      pe += 4.0 * ir6 * (ir6 - 1.0) - shift;
      fx += s * dx;
      fy += s * dy;
      fz += s * dz;
      priv[j * 3 + 0] -= s * dx;
      priv[j * 3 + 1] -= s * dy;
      priv[j * 3 + 2] -= s * dz;
    }
    priv[i * 3 + 0] += fx;
    priv[i * 3 + 1] += fy;
    priv[i * 3 + 2] += fz;
  }
  return pe;
}

static void kick_drift(molecule *mol, long m, long i0, long i1) {
  const double L = box_length(m);
  for (long i = i0; i < i1; ++i)
    for (int d = 0; d < 3; ++d) {
      mol[i].vel[d] += 0.5 * kDt * mol[i].force[d];
      double x = mol[i].pos[d] + kDt * mol[i].vel[d];
      mol[i].pos[d] = x - L * floor(x / L);
      mol[i].force[d] = 0.0;
    }
}

static void kick(molecule *mol, long i0, long i1) {
  for (long i = i0; i < i1; ++i)
    for (int d = 0; d < 3; ++d) mol[i].vel[d] += 0.5 * kDt * mol[i].force[d];
}

static double kinetic(const molecule *mol, long m, double mom[3]) {
  double k = 0.0;
  mom[0] = mom[1] = mom[2] = 0.0;
  for (long i = 0; i < m; ++i)
    for (int d = 0; d < 3; ++d) {
      k += 0.5 * mol[i].vel[d] * mol[i].vel[d];
      mom[d] += mol[i].vel[d];
    }
  return k;
}

/* Molecules that [i0, i1) touches: i0 .. i1-1+m/2, cyclically. */
static long touched_count(long m, long i0, long i1) {
  long n = i1 - i0 + m / 2;
  return n > m ? m : n;
}

typedef struct water_ctx {
  molecule *mol;
  double *pe_slots; /* one per node */
  double *priv;     /* m x 3 private */
  long m, group, nlocks;
  int lock_count;
} water_ctx;

/* The force phase of one node: pairs, then lock-protected accumulation. */
static void force_phase(water_ctx *c, long i0, long i1, int me) {
  long m = c->m;
  memset(c->priv, 0, (size_t)m * 3 * sizeof(double));
  double pe = i1 > i0 ? compute_pairs(c->mol, m, i0, i1, c->priv) : 0.0;
  if (i1 > i0) {
    long n = touched_count(m, i0, i1);
    long t = 0;
    while (t < n) {
      long j = (i0 + t) % m;
      long g = j / c->group;
      long gend = (g + 1) * c->group; /* first molecule of the next group */
      if (gend > m) gend = m;
      long cnt = gend - j;
      if (cnt > n - t) cnt = n - t;
      int lock = (int)(g % c->lock_count);
      rdsm_lock(lock);
      for (long q = j; q < j + cnt; ++q)
        for (int d = 0; d < 3; ++d) c->mol[q].force[d] += c->priv[q * 3 + d];
      rdsm_unlock(lock);
      t += cnt;
    }
  }
  c->pe_slots[me] = pe;
}

/* The parallel part, on every compute thread of every node (--threads):
 * the workers are the rdsm_threads() threads, each with its block of
 * molecules, its private force array and its energy slot. */
typedef struct water_job {
  water_args a;
  molecule *mol;
  double *pe_slots;      /* one per worker */
  const molecule *init;  /* the initial state, private to the node */
  double t_parallel, pe0; /* node thread 0's */
} water_job;

static void water_worker(void *arg) {
  water_job *job = (water_job *)arg;
  const water_args a = job->a;
  const int me = rdsm_thread_id(), nodes = rdsm_threads();
  const int node_thread0 = me % rdsm_node_threads() == 0;
  const long m = a.mols;
  molecule *mol = job->mol;
  double *pe_slots = job->pe_slots;

  water_ctx c;
  c.mol = mol;
  c.pe_slots = pe_slots;
  c.m = m;
  c.group = a.group;
  c.nlocks = (m + a.group - 1) / a.group;
  c.lock_count = rdsm_lock_count();
  c.priv = (double *)malloc((size_t)m * 3 * sizeof(double));
  if (!c.priv) {
    fprintf(stderr, "water: worker %d: out of memory\n", me);
    exit(1);
  }
  long i0 = (long)((int64_t)m * me / nodes);
  long i1 = (long)((int64_t)m * (me + 1) / nodes);
  memcpy(&mol[i0], &job->init[i0], (size_t)(i1 - i0) * sizeof(molecule));
  rdsm_barrier();

  if (node_thread0) rdsm_reset_stats();
  double t0 = rdsm_wtime();
  /* Initial forces. */
  force_phase(&c, i0, i1, me);
  rdsm_barrier();
  double pe0 = 0.0;
  for (int k = 0; k < nodes; ++k) pe0 += pe_slots[k];
  for (long step = 0; step < a.steps; ++step) {
    kick_drift(mol, m, i0, i1);
    rdsm_barrier();
    force_phase(&c, i0, i1, me);
    rdsm_barrier();
    kick(mol, i0, i1);
  }
  rdsm_barrier();
  if (node_thread0) {
    job->t_parallel = rdsm_wtime() - t0;
    job->pe0 = pe0;
  }
  free(c.priv);
}

static double rel_err(double a, double b) {
  double d = fabs(a - b), s = fabs(b);
  return d / (s > 1.0 ? s : 1.0);
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const char *prog = argc > 0 ? argv[0] : "water";
  water_args a = parse_args(argc, argv);
  const int me = rdsm_rank(), nodes = rdsm_threads(); /* the workers */
  char shape[64];
  app_shape(shape, sizeof shape);
  const long m = a.mols;
  const size_t bytes = (size_t)m * sizeof(molecule);

  app_verdict verdict = app_verdict_create();
  molecule *mol = (molecule *)rdsm_malloc_all(bytes, RDSM_PLACE_BLOCK);
  double *pe_slots = (double *)rdsm_malloc_all(sizeof(double) * (size_t)nodes, RDSM_PLACE_DEFAULT);

  molecule *init = (molecule *)malloc(bytes);
  double *priv = (double *)malloc((size_t)m * 3 * sizeof(double)); /* the sequential check's forces */
  if (!priv || !init) {
    fprintf(stderr, "%s: node %d: out of memory\n", prog, me);
    exit(1);
  }
  init_state(init, m);
  water_job job = {a, mol, pe_slots, init, 0.0, 0.0};
  rdsm_run_threads(water_worker, &job);
  free(init);
  const double t_parallel = job.t_parallel, pe0 = job.pe0;
  rdsm_stats st;
  rdsm_get_stats(&st);

  int pass = 1;
  if (me == 0) {
    double pe_par = 0.0;
    for (int k = 0; k < nodes; ++k) pe_par += pe_slots[k];
    double mom_par[3];
    double ke_par = kinetic(mol, m, mom_par);
    molecule *ref = (molecule *)malloc(bytes);
    if (!ref) {
      printf("FAIL water: cannot allocate memory for the sequential check\n");
      pass = 0;
    } else {
      /* The same computation, one node, private memory, no locks. */
      double ts = rdsm_wtime();
      init_state(ref, m);
      memset(priv, 0, (size_t)m * 3 * sizeof(double));
      double pe_seq0 = compute_pairs(ref, m, 0, m, priv);
      for (long i = 0; i < m; ++i)
        for (int d = 0; d < 3; ++d) ref[i].force[d] += priv[i * 3 + d];
      double pe_seq = pe_seq0;
      for (long step = 0; step < a.steps; ++step) {
        kick_drift(ref, m, 0, m);
        memset(priv, 0, (size_t)m * 3 * sizeof(double));
        pe_seq = compute_pairs(ref, m, 0, m, priv);
        for (long i = 0; i < m; ++i)
          for (int d = 0; d < 3; ++d) ref[i].force[d] += priv[i * 3 + d];
        kick(ref, 0, m);
      }
      double t_seq = rdsm_wtime() - ts;
      double mom_seq[3];
      double ke_seq = kinetic(ref, m, mom_seq);
      double ke0 = 0.0;
      {
        molecule *tmp = (molecule *)malloc(bytes);
        if (tmp) {
          double mm[3];
          init_state(tmp, m);
          ke0 = kinetic(tmp, m, mm);
          free(tmp);
        }
      }
      const double L = box_length(m);
      double worst = 0.0;
      long worst_i = 0;
      double vabs = 0.0;
      for (long i = 0; i < m; ++i)
        for (int d = 0; d < 3; ++d) {
          double dx = mol[i].pos[d] - ref[i].pos[d];
          dx -= L * nearbyint(dx / L);
          double e = fabs(dx) / L;
          double ev = rel_err(mol[i].vel[d], ref[i].vel[d]);
          double ef = rel_err(mol[i].force[d], ref[i].force[d]);
          if (ev > e) e = ev;
          if (ef > e) e = ef;
          if (e > worst) { worst = e; worst_i = i; }
          vabs += fabs(mol[i].vel[d]);
        }
      double e_start = ke0 + pe0, e_par = ke_par + pe_par, e_seq = ke_seq + pe_seq;
      double err_e = rel_err(e_par, e_seq), err_pe0 = rel_err(pe0, pe_seq0);
      double mom = sqrt(mom_par[0] * mom_par[0] + mom_par[1] * mom_par[1] + mom_par[2] * mom_par[2]);
      double drift = fabs(e_par - e_start) / (fabs(e_start) > 1.0 ? fabs(e_start) : 1.0);
      const char *why = NULL;
      if (worst > a.tol) why = "molecule state differs from the sequential run";
      else if (err_e > a.tol || err_pe0 > a.tol) why = "energy differs from the sequential run";
      else if (mom > 1e-9 * (vabs > 1.0 ? vabs : 1.0)) why = "total momentum is not conserved";
      else if (drift > 1e-2) why = "total energy is not conserved";
      pass = why == NULL;
      if (!pass) {
        printf("FAIL water: %s: worst relative error %.3g at molecule %ld (pos %.17g expected %.17g), energy %.17g "
               "expected %.17g, start %.17g, |momentum| %.3g (%s, %ld molecules, %ld steps)\n",
               why, worst, worst_i, mol[worst_i].pos[0], ref[worst_i].pos[0], e_par, e_seq, e_start, mom, shape, m,
               a.steps);
      } else {
        printf("PASS water: %ld molecules, %ld steps, %s, protocol %s, group %ld, energy %.12g (start %.12g, "
               "drift %.2g), worst relative error %.3g, |momentum| %.3g, parallel %.6f s\n",
               m, a.steps, shape, rdsm_protocol_name(), a.group, e_par, e_start, drift, worst, mom, t_parallel);
      }
      printf("sequential %.6f s\n", t_seq);
      app_print_breakdown(stdout, "water node 0", &st);
      fflush(stdout);
      FILE *f = app_json_begin(prog, a.json, "water", pass);
      if (f) {
        fprintf(f,
                ", \"molecules\": %ld, \"steps\": %ld, \"group\": %ld, \"energy\": %.17g, \"energy_start\": %.17g, "
                "\"worst_relative_error\": %.6g, \"parallel_seconds\": %.9f, \"sequential_seconds\": %.9f",
                m, a.steps, a.group, e_par, e_start, worst, t_parallel, t_seq);
        app_json_end(f, &st);
      }
      free(ref);
    }
  }
  free(priv);
  int status = app_verdict_publish(verdict, pass);
  rdsm_finalize();
  return status;
}
