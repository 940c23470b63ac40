/* An Ocean-like grid program in the SPLASH-2 macro dialect: a wind-driven
 * single-layer ocean basin (barotropic vorticity equation) on a square grid,
 * with the structure of SPLASH-2's Ocean: many grids, row blocks, stencil
 * phases separated by barriers, a multigrid elliptic solver with red-black
 * Gauss-Seidel smoothing and a lock-protected global reduction deciding when
 * it has converged.
 *
 * Every grid is n x n doubles: an interior of m = n - 2 cells (a power of
 * two, so the multigrid can halve it down to 4 x 4) and a border ring that
 * stays zero.  Each process owns a block of contiguous interior rows, at
 * every multigrid level.  The master allocates every grid and initialises
 * all of them alone before any worker exists.
 *
 * A time step, q the vorticity and psi the stream function (lap psi = q):
 *   1. jac = J(psi, q), lapq = lap(qold)                          barrier
 *   2. qnew = qold + 2 dt (-jac - beta psi_x + curl(wind) - mu qold
 *             + a2 lapq - a4 lap(lapq)); q gets a Robert-Asselin filter;
 *      energy sum and max |qnew| reduced under a lock             barrier
 *   3. solve lap psi = q by V-cycles (2 + 2 red-black sweeps per level,
 *      a barrier after each half-sweep, residual and restriction, the 4 x 4
 *      level solved by one process, prolongation) until the largest residual,
 *      reduced under a lock, is below the tolerance times max |q|.
 * Roughly a hundred barriers per V-cycle at the default size.
 *
 * Reductions of maxima are exact, so the parallel run makes the same
 * decisions as the sequential reference and, every point being computed by
 * the same code from the same values, ends with the same grids bit for bit.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

MAIN_ENV

#define MAX_PROCS 64
#define MAX_LEVELS 24
#define COARSEST 4
#define PRE_SWEEPS 2
#define POST_SWEEPS 2
#define MAX_CYCLES 40
#define COARSE_SWEEPS 100

static const char *usage_text =
    "usage: splash_ocean [-pP] [-nN] [-iSTEPS] [-eTOL] [-t] [-h]\n"
    "  wind-driven ocean basin: stencil phases and multigrid on row blocks\n"
    "  -pP      processes (1..64, default 1; at most N - 2)\n"
    "  -nN      grid side including the border: a power of two plus 2, at least 10 (default 1026)\n"
    "  -iSTEPS  time steps (default 20)\n"
    "  -eTOL    multigrid tolerance, relative to max |q| (default 1e-6)\n"
    "  -t       check the result (always done)\n"
    "  -h       this help\n";

struct GlobalMemory {
  LOCKDEC(idlock)
  long id;
  BARDEC(bar)
  LOCKDEC(reduce_lock)
  double sum[3]; /* reduction slots, used in rotation (see reduce) */
  double max[3];
};

/* What one process works on: the shared grids (or the reference's private
 * ones) and which rows are its own. */
struct ocean {
  long id, nprocs;
  int shared;       /* 0: the private sequential reference, no synchronisation */
  long reductions;  /* so far: selects the slot */
  long levels;
  double *psi, *q, *qold, *qnew, *jac, *lapq, *wind, *resid;
  double *u[MAX_LEVELS], *f[MAX_LEVELS], *r[MAX_LEVELS];
  double *energy;   /* per step, written by process 0 */
  long *cycles;     /* V-cycles per step, written by process 0 */
};

struct GlobalMemory *Global;
struct ocean grids; /* the shared grids, set up by the master before the workers exist */

long P = 1;
long n = 1026;
long m;
long steps = 20;
double tolerance = 1e-6;
unsigned long start_time;

/* Physics, scaled with the cell width so that every size is stable. */
double h, dt, beta = 50.0, mu = 0.5, wind_amplitude = 20.0, a2, a4, asselin = 0.1;

#define SPLASH_PROGRAM "splash_ocean"
#include "splash_args.h"

static double parse_double(const char *opt, const char *arg, double lo, double hi) {
  char *end;
  double v;
  errno = 0;
  v = strtod(arg, &end);
  if (errno || end == arg || *end != '\0' || !(v > lo) || !(v < hi)) {
    char what[160];
    snprintf(what, sizeof what, "%s: '%%s' is not a number between %g and %g", opt, lo, hi);
    usage_error(what, arg);
  }
  return v;
}

static long interior(long level) { return m >> level; }
static long side(long level) { return interior(level) + 2; }

static void own_rows(const struct ocean *o, long level, long *lo, long *hi) {
  long rows = interior(level);
  *lo = 1 + o->id * rows / o->nprocs;
  *hi = (o->id + 1) * rows / o->nprocs;
}

/* ---- synchronisation (none in the sequential reference) ------------------- */

static void sync_all(struct ocean *o) {
  if (o->shared) BARRIER(Global->bar, P)
}

/* Combines every process's *sum and *max.  Slot k mod 3 serves reduction k;
 * process 0 clears the slot of reduction k + 2 once reduction k is complete:
 * by then everyone has read reduction k - 1 (they read right after its
 * barrier), and nobody adds to reduction k + 2 before passing reduction k + 1's
 * barrier, which process 0 reaches after clearing. */
static void reduce(struct ocean *o, double *sum, double *max) {
  long slot;
  if (!o->shared) return;
  slot = o->reductions % 3;
  LOCK(Global->reduce_lock)
  Global->sum[slot] += *sum;
  if (*max > Global->max[slot]) Global->max[slot] = *max;
  UNLOCK(Global->reduce_lock)
  BARRIER(Global->bar, P)
  *sum = Global->sum[slot];
  *max = Global->max[slot];
  if (o->id == 0) {
    Global->sum[(slot + 2) % 3] = 0.0;
    Global->max[(slot + 2) % 3] = 0.0;
  }
  o->reductions++;
}

/* ---- multigrid kernels (cell-centred, zero stream function on the walls) -- */

/* The wall lies half a cell outside the first and last interior cells; the
 * value mirrored across it is minus the cell's own, so a cell next to k walls
 * has 4 + k on the diagonal, and the stored zero border adds nothing. */
static const double inverse_diagonal[5] = {1.0 / 4.0, 1.0 / 5.0, 1.0 / 6.0, 1.0 / 7.0, 1.0 / 8.0};

static void smooth(struct ocean *o, long level, int colour) {
  long s = side(level), mi = interior(level), lo, hi, i, j;
  double *u = o->u[level], *f = o->f[level];
  double hh = h * (double)(1L << level);
  double h2 = hh * hh;
  own_rows(o, level, &lo, &hi);
  for (i = lo; i <= hi; i++) {
    int walls = (i == 1) + (i == mi);
    double *row = u + i * s;
    const double *up = row - s, *down = row + s, *rhs = f + i * s;
    for (j = ((i + 1) % 2 == colour) ? 1 : 2; j <= mi; j += 2) {
      int k = walls + (j == 1) + (j == mi);
      row[j] = (up[j] + down[j] + row[j - 1] + row[j + 1] - h2 * rhs[j]) * inverse_diagonal[k];
    }
  }
}

/* r = f - lap u on own rows; returns the largest |r| among them. */
static double residual(struct ocean *o, long level) {
  long s = side(level), mi = interior(level), lo, hi, i, j;
  double *u = o->u[level], *f = o->f[level], *r = o->r[level];
  double hh = h * (double)(1L << level);
  double inv_h2 = 1.0 / (hh * hh), largest = 0.0;
  own_rows(o, level, &lo, &hi);
  for (i = lo; i <= hi; i++) {
    int walls = (i == 1) + (i == mi);
    const double *row = u + i * s, *up = row - s, *down = row + s, *rhs = f + i * s;
    double *out = r + i * s;
    for (j = 1; j <= mi; j++) {
      int k = walls + (j == 1) + (j == mi);
      double v = rhs[j] - (up[j] + down[j] + row[j - 1] + row[j + 1] - (double)(4 + k) * row[j]) * inv_h2;
      out[j] = v;
      if (fabs(v) > largest) largest = fabs(v);
    }
  }
  return largest;
}

/* Coarse right-hand side: the mean of the four fine residuals under each
 * coarse cell; the coarse correction starts from zero. */
static void restrict_down(struct ocean *o, long coarse) {
  long sc = side(coarse), mc = interior(coarse), sf = side(coarse - 1), lo, hi, I, J;
  const double *r = o->r[coarse - 1];
  double *f = o->f[coarse], *u = o->u[coarse];
  own_rows(o, coarse, &lo, &hi);
  for (I = lo; I <= hi; I++) {
    const double *a = r + (2 * I - 1) * sf, *b = r + 2 * I * sf;
    for (J = 1; J <= mc; J++) {
      f[I * sc + J] = 0.25 * (a[2 * J - 1] + a[2 * J] + b[2 * J - 1] + b[2 * J]);
      u[I * sc + J] = 0.0;
    }
  }
}

/* Which coarse cell lies beyond fine cell i's parent, and with which sign:
 * beyond a wall it is the mirror image of the parent itself. */
static void second_parent(long i, long mc, long *other, double *sign) {
  long parent = (i + 1) / 2;
  *other = (i % 2) ? parent - 1 : parent + 1;
  *sign = 1.0;
  if (*other == 0 || *other == mc + 1) {
    *other = parent;
    *sign = -1.0;
  }
}

/* u_fine += bilinear interpolation of the coarse correction. */
static void prolong_up(struct ocean *o, long fine) {
  long sf = side(fine), mf = interior(fine), sc = side(fine + 1), mc = interior(fine + 1), lo, hi, i, j;
  double *u = o->u[fine];
  const double *c = o->u[fine + 1];
  own_rows(o, fine, &lo, &hi);
  for (i = lo; i <= hi; i++) {
    long I = (i + 1) / 2, I2;
    double si;
    const double *a, *b;
    second_parent(i, mc, &I2, &si);
    a = c + I * sc;
    b = c + I2 * sc;
    for (j = 1; j <= mf; j++) {
      long J = (j + 1) / 2, J2;
      double sj;
      second_parent(j, mc, &J2, &sj);
      u[i * sf + j] += 0.5625 * a[J] + 0.1875 * (si * b[J] + sj * a[J2]) + 0.0625 * (si * sj) * b[J2];
    }
  }
}

static void coarsest_solve(struct ocean *o) {
  long level = o->levels - 1, s = side(level), mi = interior(level), sweep, i, j;
  double *u = o->u[level], *f = o->f[level];
  double hh = h * (double)(1L << level);
  if (o->id != 0) return;
  for (sweep = 0; sweep < COARSE_SWEEPS; sweep++)
    for (i = 1; i <= mi; i++)
      for (j = 1; j <= mi; j++) {
        int k = (i == 1) + (i == mi) + (j == 1) + (j == mi);
        u[i * s + j] = (u[(i - 1) * s + j] + u[(i + 1) * s + j] + u[i * s + j - 1] + u[i * s + j + 1] -
                        hh * hh * f[i * s + j]) *
                       inverse_diagonal[k];
      }
}

static void v_cycle(struct ocean *o) {
  long l;
  int sweep;
  for (l = 0; l < o->levels - 1; l++) {
    for (sweep = 0; sweep < PRE_SWEEPS; sweep++) {
      smooth(o, l, 0);
      sync_all(o);
      smooth(o, l, 1);
      sync_all(o);
    }
    residual(o, l);
    sync_all(o);
    restrict_down(o, l + 1);
    sync_all(o);
  }
  coarsest_solve(o);
  sync_all(o);
  for (l = o->levels - 2; l >= 0; l--) {
    prolong_up(o, l);
    sync_all(o);
    for (sweep = 0; sweep < POST_SWEEPS; sweep++) {
      smooth(o, l, 0);
      sync_all(o);
      smooth(o, l, 1);
      sync_all(o);
    }
  }
}

/* ---- the time step -------------------------------------------------------- */

/* Phase 1: the advection Jacobian and the Laplacian of the lagged vorticity;
 * returns this process's part of the energy integral. */
static double advection_and_diffusion(struct ocean *o) {
  long s = n, lo, hi, i, j;
  double inv_4h2 = 1.0 / (4.0 * h * h), inv_h2 = 1.0 / (h * h), energy = 0.0;
  own_rows(o, 0, &lo, &hi);
  for (i = lo; i <= hi; i++) {
    const double *p = o->psi + i * s, *qq = o->q + i * s, *qo = o->qold + i * s;
    double *jac = o->jac + i * s, *lap = o->lapq + i * s;
    for (j = 1; j <= m; j++) {
      jac[j] = ((p[j + s] - p[j - s]) * (qq[j + 1] - qq[j - 1]) - (p[j + 1] - p[j - 1]) * (qq[j + s] - qq[j - s])) * inv_4h2;
      lap[j] = (qo[j + s] + qo[j - s] + qo[j + 1] + qo[j - 1] - 4.0 * qo[j]) * inv_h2;
      energy -= p[j] * qq[j];
    }
  }
  return 0.5 * energy * h * h;
}

/* Phase 2: the leapfrog step and the filter; returns max |qnew| of own rows. */
static double leapfrog(struct ocean *o) {
  long s = n, lo, hi, i, j;
  double inv_h2 = 1.0 / (h * h), inv_2h = 0.5 / h, largest = 0.0;
  own_rows(o, 0, &lo, &hi);
  for (i = lo; i <= hi; i++) {
    const double *p = o->psi + i * s, *jac = o->jac + i * s, *lap = o->lapq + i * s, *w = o->wind + i * s;
    double *qq = o->q + i * s, *qo = o->qold + i * s, *qn = o->qnew + i * s;
    for (j = 1; j <= m; j++) {
      double bilap = (lap[j + s] + lap[j - s] + lap[j + 1] + lap[j - 1] - 4.0 * lap[j]) * inv_h2;
      double tendency = -jac[j] - beta * (p[j + 1] - p[j - 1]) * inv_2h + w[j] - mu * qo[j] + a2 * lap[j] - a4 * bilap;
      double next = qo[j] + 2.0 * dt * tendency;
      qn[j] = next;
      qq[j] += asselin * (qo[j] - 2.0 * qq[j] + next);
      if (fabs(next) > largest) largest = fabs(next);
    }
  }
  return largest;
}

static void time_steps(struct ocean *o) {
  long step;
  for (step = 0; step < steps; step++) {
    double energy, qmax, rmax, unused = 0.0, *t;
    long cycles = 0;

    energy = advection_and_diffusion(o);
    sync_all(o);
    qmax = leapfrog(o);
    reduce(o, &energy, &qmax);

    t = o->qold;
    o->qold = o->q;
    o->q = o->qnew;
    o->qnew = t;
    o->u[0] = o->psi;
    o->f[0] = o->q;
    o->r[0] = o->resid;

    for (;;) {
      rmax = residual(o, 0);
      reduce(o, &unused, &rmax);
      if (rmax <= tolerance * qmax || cycles == MAX_CYCLES) break;
      v_cycle(o);
      cycles++;
    }
    if (o->id == 0) {
      o->energy[step] = energy;
      o->cycles[step] = cycles;
    }
  }
}

/* ---- the parallel part ---------------------------------------------------- */

void SlaveStart(void) {
  long id, pid;
  struct ocean o;

  LOCK(Global->idlock)
  id = Global->id;
  Global->id++;
  UNLOCK(Global->idlock)

  o = grids;
  o.id = id;
  o.nprocs = P;
  o.shared = 1;
  o.reductions = 0;

  BARRIER(Global->bar, P)
  GET_PID(pid)
  if (pid == 0) CLOCK(start_time)

  time_steps(&o);
}

/* ---- set-up and check ----------------------------------------------------- */

static double noise(long i, long j) {
  unsigned long long x = (unsigned long long)(i * 7919 + j) * 0x9E3779B97F4A7C15ull;
  x ^= x >> 31;
  x *= 0xD6E8FEB86659FD93ull;
  x ^= x >> 32;
  return (double)(x >> 11) * (1.0 / 9007199254740992.0) - 0.5;
}

/* Every grid of o, written once: a gyre with some noise in psi, its
 * vorticity in q and qold, the wind's curl, zeros elsewhere. */
static void initialise(struct ocean *o) {
  long s = n, i, j, l;
  const double pi = 3.14159265358979323846;
  size_t bytes = (size_t)s * (size_t)s * sizeof(double);
  memset(o->psi, 0, bytes);
  memset(o->q, 0, bytes);
  memset(o->qold, 0, bytes);
  memset(o->qnew, 0, bytes);
  memset(o->jac, 0, bytes);
  memset(o->lapq, 0, bytes);
  memset(o->wind, 0, bytes);
  memset(o->resid, 0, bytes);
  for (l = 1; l < o->levels; l++) {
    size_t lb = (size_t)side(l) * (size_t)side(l) * sizeof(double);
    memset(o->u[l], 0, lb);
    memset(o->f[l], 0, lb);
    memset(o->r[l], 0, lb);
  }
  for (i = 1; i <= m; i++)
    for (j = 1; j <= m; j++) {
      double x = ((double)j - 0.5) * h, y = ((double)i - 0.5) * h;
      o->psi[i * s + j] = sin(pi * x) * sin(pi * y) * (1.0 + 0.4 * y) + 0.01 * noise(i, j);
      o->wind[i * s + j] = -wind_amplitude * sin(pi * y);
    }
  for (i = 1; i <= m; i++)
    for (j = 1; j <= m; j++) {
      const double *p = o->psi + i * s + j;
      double v = (p[s] + p[-s] + p[1] + p[-1] - 4.0 * p[0]) / (h * h);
      o->q[i * s + j] = v;
      o->qold[i * s + j] = v;
    }
  for (l = 0; l < steps; l++) {
    o->energy[l] = 0.0;
    o->cycles[l] = 0;
  }
  o->u[0] = o->psi;
  o->f[0] = o->q;
  o->r[0] = o->resid;
}

typedef void *(*allocator)(size_t);

static void *shared_alloc(size_t bytes) {
  void *p = G_MALLOC(bytes);
  return p;
}

static void *private_alloc(size_t bytes) {
  void *p = malloc(bytes);
  if (!p) {
    printf("FAIL splash_ocean: cannot allocate %zu bytes for the sequential reference\n", bytes);
    exit(1);
  }
  return p;
}

static void allocate(struct ocean *o, allocator get) {
  size_t bytes = (size_t)n * (size_t)n * sizeof(double);
  long l;
  o->levels = 0;
  while ((m >> o->levels) >= COARSEST && o->levels < MAX_LEVELS) o->levels++;
  o->psi = (double *)get(bytes);
  o->q = (double *)get(bytes);
  o->qold = (double *)get(bytes);
  o->qnew = (double *)get(bytes);
  o->jac = (double *)get(bytes);
  o->lapq = (double *)get(bytes);
  o->wind = (double *)get(bytes);
  o->resid = (double *)get(bytes);
  for (l = 1; l < o->levels; l++) {
    size_t lb = (size_t)side(l) * (size_t)side(l) * sizeof(double);
    o->u[l] = (double *)get(lb);
    o->f[l] = (double *)get(lb);
    o->r[l] = (double *)get(lb);
  }
  o->energy = (double *)get((size_t)steps * sizeof(double));
  o->cycles = (long *)get((size_t)steps * sizeof(long));
}

static size_t shared_estimate(void) {
  size_t total = 8 * (size_t)n * (size_t)n * sizeof(double), pages = 64;
  long l;
  for (l = 1; (m >> l) >= COARSEST; l++) {
    total += 3 * (size_t)side(l) * (size_t)side(l) * sizeof(double);
    pages += 3;
  }
  return total + (pages + 16) * 4096 + (size_t)steps * 16 + (4u << 20);
}

int main(int argc, char **argv) {
  int c;
  long i, bad_cycles = 0, step;
  unsigned long create_time, end_time, seq_start, seq_end;
  struct ocean ref;

  const char *const options = "p:n:i:e:th";
  opterr = 0;
  while ((c = getopt(argc, argv, options)) != -1) {
    switch (c) {
      case 'p': P = parse_long("-p", optarg, 1, MAX_PROCS); break;
      case 'n': n = parse_long("-n", optarg, 10, 16386); break;
      case 'i': steps = parse_long("-i", optarg, 1, 1000000); break;
      case 'e': tolerance = parse_double("-e", optarg, 0.0, 1.0); break;
      case 't': break;
      case 'h': printf("%s", usage_text); exit(0);
      default: bad_option(options);
    }
  }
  if (optind < argc) usage_error("unexpected argument '%s'", argv[optind]);
  m = n - 2;
  if (m & (m - 1)) {
    char what[96];
    snprintf(what, sizeof what, "-n %ld: the grid side must be a power of two plus 2 (10, 18, 34, ..., 1026)", n);
    usage_error("%s", what);
  }
  if (P > m) {
    char what[96];
    snprintf(what, sizeof what, "-p %ld: more processes than the %ld interior rows", P, m);
    usage_error("%s", what);
  }
  h = 1.0 / (double)m;
  /* Beyond 1024 interior rows the step shrinks as h^2, which holds the
   * viscosity a2 at its 1024-row value: with a2 proportional to h the
   * western boundary current kept narrowing, its speed grew, and the
   * leapfrog step overran it (n 2050: energy 1e10 by step 10, not finite
   * by step 15; n 4098 as well). */
  dt = 0.1 * h * (m > 1024 ? 1024.0 / (double)m : 1.0);
  a2 = 0.02 * h * h / dt;
  a4 = 0.002 * h * h * h * h / dt;

  MAIN_INITENV(, shared_estimate())

  Global = (struct GlobalMemory *)G_MALLOC(sizeof(struct GlobalMemory));
  Global->id = 0;
  LOCKINIT(Global->idlock)
  LOCKINIT(Global->reduce_lock)
  BARINIT(Global->bar)
  for (i = 0; i < 3; i++) {
    Global->sum[i] = 0.0;
    Global->max[i] = 0.0;
  }
  allocate(&grids, shared_alloc);
  initialise(&grids);

  CLOCK(create_time) /* the job forms at the first CREATE: its start is counted from here */
  for (i = 1; i < P; i++) CREATE(SlaveStart)
  SlaveStart();
  WAIT_FOR_END(P - 1)
  CLOCK(end_time)

  allocate(&ref, private_alloc);
  initialise(&ref);
  ref.id = 0;
  ref.nprocs = 1;
  ref.shared = 0;
  ref.reductions = 0;
  CLOCK(seq_start)
  time_steps(&ref);
  CLOCK(seq_end)

  {
    /* The workers rotated their private copies of the q pointers; the
     * reference went through the same rotations. */
    size_t bytes = (size_t)n * (size_t)n * sizeof(double);
    double *par_q = grids.q, *par_qold = grids.qold, *t;
    double worst_energy = 0.0, total_cycles = 0;
    const char *what = NULL;
    for (step = 0; step < steps; step++) {
      t = par_qold;
      par_qold = par_q;
      par_q = grids.qnew;
      grids.qnew = t;
      if (ref.cycles[step] == MAX_CYCLES) bad_cycles++;
      total_cycles += (double)grids.cycles[step];
    }
    for (step = 0; step < steps; step++) {
      double e = fabs(grids.energy[step] - ref.energy[step]) / (fabs(ref.energy[step]) + 1e-300);
      if (e > worst_energy) worst_energy = e;
      if (grids.cycles[step] != ref.cycles[step] && !what) what = "V-cycle counts differ from the sequential reference";
    }
    if (!what && memcmp(grids.psi, ref.psi, bytes) != 0) what = "the stream function differs from the sequential reference";
    if (!what && memcmp(par_q, ref.q, bytes) != 0) what = "the vorticity differs from the sequential reference";
    if (!what && memcmp(par_qold, ref.qold, bytes) != 0) what = "the filtered vorticity differs from the sequential reference";
    if (!what && !(worst_energy < 1e-9)) what = "the energy differs from the sequential reference";
    if (!what && bad_cycles) what = "the multigrid solver did not converge";
    if (!what && !(ref.energy[steps - 1] == ref.energy[steps - 1])) what = "the solution is not finite";
    if (what) {
      printf("FAIL splash_ocean: %s (n %ld, %ld processes, %ld steps)\n", what, n, P, steps);
    } else {
      printf("PASS splash_ocean: n %ld, %ld processes, %ld steps, %ld levels, %.1f V-cycles per step, energy %.9g\n",
             n, P, steps, grids.levels, total_cycles / (double)steps, ref.energy[steps - 1]);
    }
    print_times(start_time, create_time, end_time, seq_start, seq_end);
    fflush(stdout);
    if (what) exit(1);
  }
  MAIN_END
}
