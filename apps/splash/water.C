/* O(n^2) molecular dynamics in the SPLASH-2 macro dialect, shaped like the
 * SPLASH-2 Water-nsquared application (our own simplified code: point
 * molecules, a Lennard-Jones pair potential with a cutoff, a periodic cubic
 * box, velocity Verlet).
 *
 * The master allocates the molecules (position, velocity and force, 72
 * bytes each, 56 to a page, in one shared array) and initialises them all
 * before any worker exists.  Each process owns a contiguous block of
 * molecules.  Every time step:
 *   kick+drift  each process: v += dt/2 f, x += dt v, f = 0 for its own;
 *               barrier;
 *   forces      each process computes the pairs (i, j) for i in its block
 *               and j the n/2 molecules that follow i (cyclically), so
 *               every pair is computed once; it sums the contributions in
 *               private memory, then adds them to the shared force of every
 *               molecule it touched, each under that molecule's lock
 *               (an array lock), as Water-nsquared does; the potential energy goes
 *               into a global sum under a lock;  barrier;
 *   kick        each process: v += dt/2 f for its own, and its kinetic
 *               energy into a global sum under the lock;  barrier.
 * As in Water-nsquared, the time is taken by the master from before the
 * workers are created to after they end: the job's forming counts.
 *
 * The order in which processes add into a molecule's force is the lock
 * order, so the sums differ in rounding from a sequential run: the master
 * compares positions, velocities and energies with a sequential run in
 * private memory within a relative tolerance, and checks that the total
 * energy is conserved within 1%.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

MAIN_ENV

#define MAX_PROCS 64
#define MAX_LOCKS 4096

static const char *usage_text =
    "usage: splash_water [-pP] [-mM] [-sS] [-t] [-h]\n"
    "  Lennard-Jones molecular dynamics of M molecules with per-molecule locks\n"
    "  -pP  processes (1..64, default 1; at most M / 2)\n"
    "  -mM  molecules (8..262144, default 4096)\n"
    "  -sS  time steps (1..1000, default 3)\n"
    "  -t   check the result (always done)\n"
    "  -h   this help\n";

typedef struct molecule {
  double x[3], v[3], f[3];
} molecule;

struct GlobalMemory {
  LOCKDEC(idlock)
  long id;
  LOCKDEC(sumlock)
  double potential[1000], kinetic[1000];
  BARDEC(bar)
  ALOCKDEC(mol_lock, MAX_LOCKS)
};

struct GlobalMemory *Global;
molecule *mol; /* the shared molecules */

long P = 1;
long nmol = 4096;
long steps = 3;
long nlocks;
double box, cutoff2;
const double dt = 0.002;
unsigned long start_time, end_time;

#define SPLASH_PROGRAM "splash_water"
#include "splash_args.h"

/* ---- set-up --------------------------------------------------------------- */

static double hash_unit(long i, long salt) {
  unsigned long long h = ((unsigned long long)i * 0x9E3779B97F4A7C15ull) ^ ((unsigned long long)salt * 0xC2B2AE3D27D4EB4Full);
  h ^= h >> 31;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 29;
  return (double)(h >> 11) * (1.0 / 9007199254740992.0) - 0.5;
}

/* Molecules on a cubic lattice, jittered, with small velocities of zero sum. */
static void initialise(molecule *m) {
  long side = 1, i, d;
  double vsum[3] = {0, 0, 0};
  while (side * side * side < nmol) side++;
  for (i = 0; i < nmol; i++) {
    long c[3] = {i % side, (i / side) % side, i / (side * side)};
    for (d = 0; d < 3; d++) {
      m[i].x[d] = ((double)c[d] + 0.5 + 0.1 * hash_unit(i, d)) * box / (double)side;
      m[i].v[d] = 0.5 * hash_unit(i, 3 + d);
      m[i].f[d] = 0.0;
      vsum[d] += m[i].v[d];
    }
  }
  for (i = 0; i < nmol; i++)
    for (d = 0; d < 3; d++) m[i].v[d] -= vsum[d] / (double)nmol;
}

/* ---- one process's share of a step, shared by the parallel and the
 * sequential run (with lo = 0, hi = nmol, locks = 0) ---------------------- */

static double minimum_image(double d) {
  if (d > 0.5 * box) return d - box;
  if (d < -0.5 * box) return d + box;
  return d;
}

static void kick_drift(molecule *m, long lo, long hi) {
  long i, d;
  for (i = lo; i < hi; i++)
    for (d = 0; d < 3; d++) {
      m[i].v[d] += 0.5 * dt * m[i].f[d];
      m[i].x[d] += dt * m[i].v[d];
      if (m[i].x[d] >= box) m[i].x[d] -= box;
      if (m[i].x[d] < 0.0) m[i].x[d] += box;
      m[i].f[d] = 0.0;
    }
}

/* The pairs of molecules lo..hi-1 with the n/2 that follow each; returns the
 * potential energy.  acc (3 nmol doubles, zero) gets the contributions,
 * touched (nmol flags, zero) marks the molecules they go to. */
static double pair_forces(const molecule *m, long lo, long hi, double *acc, char *touched) {
  long i, k, d, half = nmol / 2;
  double pot = 0.0;
  for (i = lo; i < hi; i++) {
    /* With n even, the pair (i, i + n/2) is met from both ends: the lower
     * index takes it. */
    long reach = (nmol % 2 == 0 && i >= half) ? half - 1 : half;
    for (k = 1; k <= reach; k++) {
      long j = (i + k) % nmol;
      double r[3], r2 = 0.0;
      for (d = 0; d < 3; d++) {
        r[d] = minimum_image(m[i].x[d] - m[j].x[d]);
        r2 += r[d] * r[d];
      }
      if (r2 < cutoff2) {
        double inv2 = 1.0 / r2, inv6 = inv2 * inv2 * inv2;
        double fscale = 24.0 * inv2 * inv6 * (2.0 * inv6 - 1.0);
        pot += 4.0 * inv6 * (inv6 - 1.0);
        for (d = 0; d < 3; d++) {
          acc[3 * i + d] += fscale * r[d];
          acc[3 * j + d] -= fscale * r[d];
        }
        touched[i] = touched[j] = 1;
      }
    }
  }
  return pot;
}

/* Every molecule's force, by one process alone (the set-up and the
 * sequential run); returns the potential energy.  acc and touched: scratch
 * as pair_forces takes them. */
static double all_forces(molecule *m, double *acc, char *touched) {
  long i, d;
  double pot;
  memset(acc, 0, sizeof(double) * 3 * (size_t)nmol);
  memset(touched, 0, (size_t)nmol);
  pot = pair_forces(m, 0, nmol, acc, touched);
  for (i = 0; i < nmol; i++)
    for (d = 0; d < 3; d++) m[i].f[d] = acc[3 * i + d];
  return pot;
}

static double kick(molecule *m, long lo, long hi) {
  long i, d;
  double kin = 0.0;
  for (i = lo; i < hi; i++)
    for (d = 0; d < 3; d++) {
      m[i].v[d] += 0.5 * dt * m[i].f[d];
      kin += 0.5 * m[i].v[d] * m[i].v[d];
    }
  return kin;
}

/* ---- the parallel part ---------------------------------------------------- */

void SlaveStart(void) {
  long id, step, i, d, lo, hi;
  double *acc;
  char *touched;

  LOCK(Global->idlock)
  id = Global->id;
  Global->id++;
  UNLOCK(Global->idlock)
  lo = nmol * id / P;
  hi = nmol * (id + 1) / P;
  acc = (double *)malloc(sizeof(double) * 3 * (size_t)nmol);
  touched = (char *)malloc((size_t)nmol);
  if (!acc || !touched) {
    fprintf(stderr, "splash_water: process %ld: out of memory\n", id);
    exit(1);
  }

  BARRIER(Global->bar, P)
  for (step = 0; step < steps; step++) {
    double pot, kin;
    kick_drift(mol, lo, hi);
    BARRIER(Global->bar, P)

    memset(acc, 0, sizeof(double) * 3 * (size_t)nmol);
    memset(touched, 0, (size_t)nmol);
    pot = pair_forces(mol, lo, hi, acc, touched);
    for (i = 0; i < nmol; i++) {
      long j = (lo + i) % nmol; /* own molecules first: the others' locks later */
      if (!touched[j]) continue;
      ALOCK(Global->mol_lock, j % nlocks)
      for (d = 0; d < 3; d++) mol[j].f[d] += acc[3 * j + d];
      AULOCK(Global->mol_lock, j % nlocks)
    }
    LOCK(Global->sumlock)
    Global->potential[step] += pot;
    UNLOCK(Global->sumlock)
    BARRIER(Global->bar, P)

    kin = kick(mol, lo, hi);
    LOCK(Global->sumlock)
    Global->kinetic[step] += kin;
    UNLOCK(Global->sumlock)
    BARRIER(Global->bar, P)
  }
  free(acc);
  free(touched);
}

/* ---- set-up and check ----------------------------------------------------- */

static double relative(double a, double b) { return fabs(a - b) / (fabs(b) + 1e-300); }

int main(int argc, char **argv) {
  int c;
  long i, d, step;
  unsigned long seq_start, seq_end;
  double tol = 1e-9;
  double *acc;
  char *touched;

  const char *const options = "p:m:s:th";
  opterr = 0;
  while ((c = getopt(argc, argv, options)) != -1) {
    switch (c) {
      case 'p': P = parse_long("-p", optarg, 1, MAX_PROCS); break;
      case 'm': nmol = parse_long("-m", optarg, 8, 262144); break;
      case 's': steps = parse_long("-s", optarg, 1, 1000); break;
      case 't': break;
      case 'h': printf("%s", usage_text); exit(0);
      default: bad_option(options);
    }
  }
  if (optind < argc) usage_error("unexpected argument '%s'", argv[optind]);
  if (P > nmol / 2) {
    char what[96];
    snprintf(what, sizeof what, "-p %ld: more processes than half the %ld molecules", P, nmol);
    usage_error("%s", what);
  }
  box = cbrt((double)nmol / 0.8); /* reduced density 0.8 */
  cutoff2 = box / 2.0 < 2.5 ? box * box / 4.0 : 6.25;
  nlocks = nmol < MAX_LOCKS ? nmol : MAX_LOCKS;

  MAIN_INITENV(, sizeof(struct GlobalMemory) + (size_t)nmol * sizeof(molecule) + (4u << 20))

  Global = (struct GlobalMemory *)G_MALLOC(sizeof(struct GlobalMemory));
  Global->id = 0;
  LOCKINIT(Global->idlock)
  LOCKINIT(Global->sumlock)
  BARINIT(Global->bar)
  ALOCKINIT(Global->mol_lock, nlocks)
  for (step = 0; step < steps; step++) Global->potential[step] = Global->kinetic[step] = 0.0;
  mol = (molecule *)G_MALLOC((size_t)nmol * sizeof(molecule));
  initialise(mol);
  /* Private scratch of the master's own force computations. */
  acc = (double *)malloc(sizeof(double) * 3 * (size_t)nmol);
  touched = (char *)malloc((size_t)nmol);
  if (!acc || !touched) {
    printf("FAIL splash_water: out of memory\n");
    exit(1);
  }
  all_forces(mol, acc, touched); /* the forces of the initial positions, which the first kick uses */

  CLOCK(start_time)
  for (i = 1; i < P; i++) CREATE(SlaveStart)
  SlaveStart();
  WAIT_FOR_END(P - 1)
  CLOCK(end_time)

  {
    molecule *ref = (molecule *)malloc((size_t)nmol * sizeof(molecule));
    double pot[1000], kin[1000], drift;
    const char *what = NULL;
    if (!ref) {
      printf("FAIL splash_water: out of memory for the sequential reference\n");
      exit(1);
    }
    initialise(ref);
    all_forces(ref, acc, touched);
    CLOCK(seq_start)
    for (step = 0; step < steps; step++) {
      kick_drift(ref, 0, nmol);
      pot[step] = all_forces(ref, acc, touched);
      kin[step] = kick(ref, 0, nmol);
    }
    CLOCK(seq_end)

    for (i = 0; i < nmol && !what; i++)
      for (d = 0; d < 3; d++) {
        /* Positions near a wall of the box may wrap on one side and not the other. */
        double dx = fabs(minimum_image(mol[i].x[d] - ref[i].x[d])) / box;
        double dv = relative(mol[i].v[d], ref[i].v[d]);
        if (!(dx <= tol) || !(dv <= tol * 1e3 || fabs(mol[i].v[d] - ref[i].v[d]) <= tol)) {
          what = "a molecule differs from the sequential reference";
          break;
        }
      }
    for (step = 0; step < steps && !what; step++)
      if (!(relative(Global->potential[step], pot[step]) <= tol) || !(relative(Global->kinetic[step], kin[step]) <= tol))
        what = "the energies differ from the sequential reference";
    drift = relative(pot[steps - 1] + kin[steps - 1], pot[0] + kin[0]);
    if (!what && !(drift <= 0.01)) what = "the total energy is not conserved";
    if (what) {
      printf("FAIL splash_water: %s (%ld molecules, %ld processes, %ld steps)\n", what, nmol, P, steps);
    } else {
      printf("PASS splash_water: %ld molecules, %ld processes, %ld steps, %ld locks, energy %.9g, drift %.2e\n", nmol,
             P, steps, nlocks, pot[steps - 1] + kin[steps - 1], drift);
    }
    print_times(start_time, start_time, end_time, seq_start, seq_end); /* the parallel time starts at CREATE */
    fflush(stdout);
    if (what) exit(1);
  }
  MAIN_END
}
