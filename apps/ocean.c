/* Ocean: a two-layer wind-driven ocean basin on a square grid, in the spirit
 * of the SPLASH-2 "Ocean, contiguous partitions" application (written from
 * scratch; no code is taken from SPLASH-2).
 *
 * Model.  Two layers of quasi-geostrophic flow in the unit square, each with a
 * potential vorticity q_k and a stream function psi_k on an (N+2) x (N+2)
 * cell-centred grid (rows and columns 0 and N+1 are the walls' ghost cells,
 * kept at zero).  Every time step:
 *
 *   1. tendency    t_k = -J(psi_k, q_k) - beta d(psi_k)/dx + nu lap(q_k)
 *                        + wind curl (upper layer) - drag_k q_k
 *                  (5-point stencils: reads the neighbour rows of q, psi);
 *                  barrier;
 *   2. update      q_k += dt t_k; the right-hand sides of the barotropic and
 *                  baroclinic modes, (q_1 + q_3)/2 and (q_1 - q_3)/2, and
 *                  their squared norms (a global sum);
 *   3. two elliptic solves by multigrid V-cycles:
 *                  lap(psi_bt) = (q_1 + q_3)/2              (Poisson)
 *                  lap(psi_bc) - kd^2 psi_bc = (q_1 - q_3)/2 (Helmholtz)
 *                  with psi = 0 on the walls, warm-started from the previous
 *                  step, cycled until the global residual norm is below
 *                  1e-6 of the right-hand side's;
 *   4. combine     psi_1 = psi_bt + psi_bc, psi_3 = psi_bt - psi_bc, and two
 *                  global sums (an energy and the enstrophy).
 *
 * Explicit steps with nu dt / h^2 = 0.2 and nu proportional to h; the drag on
 * both layers brings the basin to a steady circulation, so long runs stay
 * bounded.
 *
 * Multigrid.  Cell-centred: level l+1 has half the cells per side of level l
 * (as long as that is even and at least 4 cells remain).  A V-cycle does, going
 * down, 2 red-black Gauss-Seidel sweeps and a restriction of the residual (the
 * average of the 4 fine cells, computed on the fly) to the coarser level's
 * right-hand side; on the coarsest level 2 x cells red-black sweeps (at least
 * 4, at most 200); going up, a bilinear prolongation of the correction (walls
 * by odd reflection) and 2 more sweeps.  All levels live in shared memory.
 *
 * Partition.  At every level the interior rows are split into contiguous,
 * balanced blocks, one per node (a node may have none on a coarse level;
 * with --threads one per compute thread of every node, rdsm_run_threads, and
 * "node" below means such a worker).
 * Every grid is laid out so that each node's block of rows starts on a page
 * boundary, and each node writes its own block first (first-touch placement):
 * every page is written by one node only and is homed there.  Nodes share only
 * the rows at the edges of their blocks (nearest-neighbour sharing) and meet
 * at a barrier after every sweep and transfer: a few hundred barriers a step.
 *
 * Reductions.  Each node writes its partial sums (over its own rows, in row
 * order) into its slot of a shared array (two alternating sets), passes a
 * barrier, and every node adds the slots in node order.
 *
 * Verification.  Node 0 reruns the identical algorithm sequentially in private
 * memory, computing every global sum with the same grouping (partial sums over
 * the same row blocks, added in node order).  Stencils, transfers and the
 * pointwise phases compute each cell from the same inputs with the same code,
 * and within one colour of a red-black sweep the order of the updates does not
 * matter, so the final grids, every V-cycle count and every global sum must
 * equal the sequential run's bit for bit.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/app_util.h"
#include "rdsm.h"

static const char *kUsage =
    "[--size test|medium|paper] [-n N] [-s STEPS] [--json FILE]\n"
    "  two-layer wind-driven ocean (Ocean-like: stencil phases and multigrid solves on an\n"
    "  (N+2) x (N+2) grid, contiguous row blocks per node).\n"
    "  sizes: test N=128 (130x130) 6 steps (default), medium N=1024 (1026x1026) 200 steps,\n"
    "         paper N=512 (514x514, seed 003 Table 1.3: Ocean-rowwise 514x514) 50 steps;\n"
    "  -n/-s override the interior size and the number of time steps.  N with a large\n"
    "  power-of-two factor gives deep multigrid hierarchies; any N >= 2 and any node count\n"
    "  work.  Node 0 checks the result bit for bit against a sequential run.";

#define MAX_LEVELS 32
#define NU_PRE 2
#define NU_POST 2
#define MAX_CYCLES 12
#define SLOT_DOUBLES 8 /* 64 bytes per node and set */

static const double kTwoPi = 6.283185307179586476925286766559;
static const double kTol = 1e-6;    /* relative L2 residual of each solve */
static const double kBeta = 50.0;   /* planetary vorticity gradient */
static const double kWind = 2.0;    /* wind-stress curl amplitude */
static const double kDragUp = 0.2;  /* interfacial drag on the upper layer */
static const double kDragLow = 1.0; /* bottom drag on the lower layer */
static const double kKd2 = 400.0;   /* inverse deformation radius squared (Rd = 0.05) */

typedef struct oc_args {
  long n, steps;
  const char *size;
  const char *json;
} oc_args;

static oc_args parse_args(int argc, char **argv) {
  oc_args a = {128, 6, "test", NULL};
  long long n = -1, s = -1;
  app_args args = app_args_start(argc, argv, "ocean", kUsage);
  while (app_args_next(&args)) {
    if (app_arg_size(&args, &a.size)) continue;
    if (app_arg_int(&args, "-n", 2, 16384, "grid size", &n)) continue;
    if (app_arg_int(&args, "-s", 0, 1000000, "step count", &s)) continue;
    if (app_arg_string(&args, "--json", &a.json)) continue;
    app_arg_unknown(&args);
  }
  if (!strcmp(a.size, "medium")) a.n = 1024, a.steps = 200;
  else if (!strcmp(a.size, "paper")) a.n = 512, a.steps = 50;
  if (n > 0 || s >= 0) a.size = "custom";
  if (n > 0) a.n = (long)n;
  if (s >= 0) a.steps = (long)s;
  return a;
}

/* ---- grids and their layout ---------------------------------------------- */

/* A grid of (n+2) x (n+2) doubles reached through row pointers (private to each
 * node, but pointing to the same shared addresses on every node). */
typedef struct grid {
  double **row;
} grid;

/* First interior row of node p's block among n rows split over `nodes`. */
static inline long part_lo(long n, int p, int nodes) { return 1 + (long)((int64_t)n * p / nodes); }

/* Offsets (in doubles) of rows 0 .. n+1 when node p's rows (with row 0 for
 * node 0 and row n+1 for the last node) start on a multiple of `align`.
 * Returns the total size in doubles. */
static size_t layout_rows(long n, int nodes, size_t align, size_t *off) {
  size_t w = (size_t)n + 2, pos = 0;
  for (int p = 0; p < nodes; ++p) {
    long lo = part_lo(n, p, nodes), hi = part_lo(n, p + 1, nodes);
    if (p == 0) lo = 0;
    if (p == nodes - 1) hi = n + 2;
    if (lo >= hi) continue;
    pos = (pos + align - 1) / align * align;
    for (long i = lo; i < hi; ++i, pos += w) off[i] = pos;
  }
  return (pos + align - 1) / align * align;
}

typedef struct level {
  long n;         /* interior cells per side */
  double h2;      /* cell width squared */
  grid u, f;      /* solution and right-hand side (level 0: the grids being solved) */
  size_t *off;    /* row offsets of this level's layout */
  size_t total;   /* doubles per grid */
} level;

#define NGRIDS 10
enum { Q1, Q3, T1, T3, PSI1, PSI3, PBT, PBC, RBT, RBC };

typedef struct ocean {
  int par;        /* 1: this node's part of the parallel run; 0: the sequential run */
  int me, nodes;  /* the partition (par: own rows; both: grouping of the sums) */
  long n;
  int nlev;
  level lev[MAX_LEVELS];
  grid g[NGRIDS];
  grid cu[MAX_LEVELS], cf[MAX_LEVELS]; /* coarse levels' u, f (index >= 1) */
  double *slots;  /* par: [2][nodes][SLOT_DOUBLES] */
  long nreduce;
  double res_lam; /* the operator (Helmholtz term) of the residual being summed */
  double h, dt, nu;
} ocean;

static void *xmalloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) {
    fprintf(stderr, "ocean: node %d: out of memory (%zu bytes)\n", rdsm_rank(), bytes);
    exit(1);
  }
  return p;
}

/* A grid of level l: shared (first touch) in a parallel run, private otherwise. */
static grid make_grid(ocean *o, int l) {
  level *L = &o->lev[l];
  double *base;
  if (o->par) {
    base = (double *)rdsm_malloc_all(L->total * sizeof(double), RDSM_PLACE_FIRST_TOUCH);
  } else {
    base = (double *)xmalloc(L->total * sizeof(double));
  }
  grid g;
  g.row = (double **)xmalloc(sizeof(double *) * (size_t)(L->n + 2));
  for (long i = 0; i < L->n + 2; ++i) g.row[i] = base + L->off[i];
  return g;
}

/* The rows [*a, *b) this run works on at level l: its block, or all rows. */
static inline void my_rows(const ocean *o, int l, long *a, long *b) {
  long n = o->lev[l].n;
  if (o->par) {
    *a = part_lo(n, o->me, o->nodes);
    *b = part_lo(n, o->me + 1, o->nodes);
  } else {
    *a = 1;
    *b = n + 1;
  }
}

/* The rows a run writes first at level l (its block plus the ghost rows next
 * to it), so that first touch makes it their home. */
static inline void touch_rows(const ocean *o, int l, long *a, long *b) {
  my_rows(o, l, a, b);
  long n = o->lev[l].n;
  if (!o->par || o->me == 0) *a = 0;
  if (!o->par || o->me == o->nodes - 1) *b = n + 2;
}

static inline void sync(const ocean *o) {
  if (o->par) rdsm_barrier();
}

/* ---- initial state -------------------------------------------------------- */

static double noise(uint64_t layer, long i, long j) {
  uint64_t h = app_hash4(0x6f6365616eull, layer, (uint64_t)i, (uint64_t)j);
  return 2.0 * ((double)(h >> 11) * 0x1.0p-53) - 1.0;
}

static double initial_q(int layer, long i, long j, double h) {
  double x = ((double)j - 0.5) * h, y = ((double)i - 0.5) * h;
  if (layer == 0) return 2.0 * sin(1.5 * kTwoPi * x) * sin(kTwoPi * y) + 0.1 * noise(1, i, j);
  return -sin(kTwoPi * x) * sin(1.5 * kTwoPi * y) + 0.1 * noise(3, i, j);
}

static void ocean_setup(ocean *o, int par, int me, int nodes, long n) {
  memset(o, 0, sizeof *o);
  o->par = par;
  o->me = me;
  o->nodes = nodes;
  o->n = n;
  o->h = 1.0 / (double)n;
  o->nu = 0.5 * o->h;
  o->dt = 0.2 * o->h * o->h / o->nu; /* nu dt / h^2 = 0.2 */
  size_t align = 1;
  if (par) {
    align = rdsm_page_size() / sizeof(double);
    if (align == 0) align = 1;
  }
  int nl = 0;
  for (long m = n;; m /= 2) {
    level *L = &o->lev[nl];
    L->n = m;
    double hl = 1.0 / (double)m;
    L->h2 = hl * hl;
    L->off = (size_t *)xmalloc(sizeof(size_t) * (size_t)(m + 2));
    L->total = layout_rows(m, par ? nodes : 1, align, L->off);
    ++nl;
    if (m % 2 != 0 || m < 8 || nl == MAX_LEVELS) break;
  }
  o->nlev = nl;
  for (int k = 0; k < NGRIDS; ++k) o->g[k] = make_grid(o, 0);
  for (int l = 1; l < nl; ++l) {
    o->cu[l] = make_grid(o, l);
    o->cf[l] = make_grid(o, l);
    o->lev[l].u = o->cu[l];
    o->lev[l].f = o->cf[l];
  }
  if (par) o->slots = (double *)rdsm_malloc_all(sizeof(double) * 2 * (size_t)nodes * SLOT_DOUBLES, RDSM_PLACE_DEFAULT);
}

/* The initial state, each worker writing its own rows (all rows in the
 * sequential run): first touch makes their node their home. */
static void ocean_init(ocean *o) {
  const long n = o->n;
  const int nl = o->nlev;
  /* Own rows first: zero everything, then the initial vorticity. */
  long a, b;
  touch_rows(o, 0, &a, &b);
  size_t w = (size_t)n + 2;
  for (int k = 0; k < NGRIDS; ++k)
    for (long i = a; i < b; ++i) memset(o->g[k].row[i], 0, w * sizeof(double));
  for (long i = a; i < b; ++i) {
    if (i < 1 || i > n) continue;
    for (long j = 1; j <= n; ++j) {
      o->g[Q1].row[i][j] = initial_q(0, i, j, o->h);
      o->g[Q3].row[i][j] = initial_q(1, i, j, o->h);
    }
  }
  for (int l = 1; l < nl; ++l) {
    touch_rows(o, l, &a, &b);
    size_t wl = (size_t)o->lev[l].n + 2;
    for (long i = a; i < b; ++i) {
      memset(o->cu[l].row[i], 0, wl * sizeof(double));
      memset(o->cf[l].row[i], 0, wl * sizeof(double));
    }
  }
  if (o->par && o->me == 0) memset(o->slots, 0, sizeof(double) * 2 * (size_t)o->nodes * SLOT_DOUBLES);
  sync(o);
}

static void ocean_free(ocean *o) {
  for (int l = 0; l < o->nlev; ++l) free(o->lev[l].off);
  for (int k = 0; k < NGRIDS; ++k) {
    if (!o->par) free(o->g[k].row[0]);
    free(o->g[k].row);
  }
  for (int l = 1; l < o->nlev; ++l) {
    if (!o->par) {
      free(o->cu[l].row[0]);
      free(o->cf[l].row[0]);
    }
    free(o->cu[l].row);
    free(o->cf[l].row);
  }
}

/* ---- global sums ----------------------------------------------------------- */

/* Adds a kernel's two partial sums over rows [a, b) of level 0 into acc. */
typedef void (*partial_fn)(ocean *o, long a, long b, double acc[2]);

/* Global sums of fn over all rows of level 0, grouped by the node blocks of
 * the partition and added in node order.  Parallel: every node runs fn on its
 * block, publishes the partials in its slot and, after a barrier, adds every
 * node's.  Sequential: the same blocks one after the other. */
static void reduce(ocean *o, partial_fn fn, double res[2]) {
  res[0] = res[1] = 0.0;
  long n = o->n;
  if (o->par) {
    long a, b;
    my_rows(o, 0, &a, &b);
    double acc[2] = {0.0, 0.0};
    fn(o, a, b, acc);
    double *set = o->slots + (size_t)(o->nreduce++ & 1) * (size_t)o->nodes * SLOT_DOUBLES;
    set[(size_t)o->me * SLOT_DOUBLES] = acc[0];
    set[(size_t)o->me * SLOT_DOUBLES + 1] = acc[1];
    rdsm_barrier();
    for (int p = 0; p < o->nodes; ++p) {
      res[0] += set[(size_t)p * SLOT_DOUBLES];
      res[1] += set[(size_t)p * SLOT_DOUBLES + 1];
    }
  } else {
    for (int p = 0; p < o->nodes; ++p) {
      double acc[2] = {0.0, 0.0};
      fn(o, part_lo(n, p, o->nodes), part_lo(n, p + 1, o->nodes), acc);
      res[0] += acc[0];
      res[1] += acc[1];
    }
  }
}

/* ---- multigrid -------------------------------------------------------------- */

/* The operator at level L: (sum of the 4 neighbours - d u) / h^2 - lam u, with
 * d = 4 + the number of walls next to the cell (psi = 0 on the wall, halfway
 * between a cell and its ghost); ghost cells hold 0. */
static inline double wall_count(long i, long j, long n) {
  return (double)((i == 1) + (i == n) + (j == 1) + (j == n));
}

static inline double cell_residual(const level *L, double lam, long i, long j) {
  const double *u = L->u.row[i];
  double s = L->u.row[i - 1][j] + L->u.row[i + 1][j] + u[j - 1] + u[j + 1];
  double d = 4.0 + wall_count(i, j, L->n);
  return L->f.row[i][j] - ((s - d * u[j]) / L->h2 - lam * u[j]);
}

/* One colour (0 red, 1 black: (i + j) % 2) of a Gauss-Seidel sweep. */
static void smooth(const level *L, double lam, long a, long b, int colour) {
  long n = L->n;
  double h2 = L->h2, dl = lam * h2;
  for (long i = a; i < b; ++i) {
    double *u = L->u.row[i];
    const double *up = L->u.row[i - 1], *dn = L->u.row[i + 1], *f = L->f.row[i];
    double di = 4.0 + (double)((i == 1) + (i == n)) + dl;
    for (long j = 1 + ((i + 1 + colour) & 1); j <= n; j += 2) {
      double d = di + (double)((j == 1) + (j == n));
      u[j] = (up[j] + dn[j] + u[j - 1] + u[j + 1] - h2 * f[j]) / d;
    }
  }
}

/* Rows [a, b) of level C = F + 1: f_C = average of the 4 fine residuals, u_C = 0. */
static void restrict_residual(const level *F, const level *C, double lam, long a, long b) {
  for (long I = a; I < b; ++I) {
    double *fc = C->f.row[I], *uc = C->u.row[I];
    for (long J = 1; J <= C->n; ++J) {
      double r = cell_residual(F, lam, 2 * I - 1, 2 * J - 1) + cell_residual(F, lam, 2 * I - 1, 2 * J) +
                 cell_residual(F, lam, 2 * I, 2 * J - 1) + cell_residual(F, lam, 2 * I, 2 * J);
      fc[J] = 0.25 * r;
      uc[J] = 0.0;
    }
  }
}

/* Rows [a, b) of level F: u_F += bilinear interpolation of u_C (cell centred;
 * beyond a wall the coarse correction is reflected with the opposite sign). */
static void prolong_add(const level *F, const level *C, long a, long b) {
  long n = F->n, nc = C->n;
  for (long i = a; i < b; ++i) {
    long I = (i + 1) / 2, I2 = (i & 1) ? I - 1 : I + 1;
    double si = 1.0;
    if (I2 < 1 || I2 > nc) I2 = I, si = -1.0;
    const double *c0 = C->u.row[I], *c1 = C->u.row[I2];
    double *u = F->u.row[i];
    for (long j = 1; j <= n; ++j) {
      long J = (j + 1) / 2, J2 = (j & 1) ? J - 1 : J + 1;
      double sj = 1.0;
      if (J2 < 1 || J2 > nc) J2 = J, sj = -1.0;
      double v = 0.5625 * c0[J] + 0.1875 * (si * c1[J] + sj * c0[J2]) + 0.0625 * (si * sj * c1[J2]);
      u[j] += v;
    }
  }
}

static void sweeps(ocean *o, int l, double lam, int count) {
  long a, b;
  my_rows(o, l, &a, &b);
  for (int s = 0; s < count; ++s) {
    smooth(&o->lev[l], lam, a, b, 0);
    sync(o);
    smooth(&o->lev[l], lam, a, b, 1);
    sync(o);
  }
}

static void vcycle(ocean *o, double lam) {
  int nl = o->nlev;
  long a, b;
  for (int l = 0; l + 1 < nl; ++l) {
    sweeps(o, l, lam, NU_PRE);
    my_rows(o, l + 1, &a, &b);
    restrict_residual(&o->lev[l], &o->lev[l + 1], lam, a, b);
    sync(o);
  }
  long nc = o->lev[nl - 1].n;
  int cs = (int)(2 * nc < 4 ? 4 : (2 * nc > 200 ? 200 : 2 * nc));
  sweeps(o, nl - 1, lam, cs);
  for (int l = nl - 2; l >= 0; --l) {
    my_rows(o, l, &a, &b);
    prolong_add(&o->lev[l], &o->lev[l + 1], a, b);
    sync(o);
    sweeps(o, l, lam, NU_POST);
  }
}

static void residual_partial(ocean *o, long a, long b, double acc[2]) {
  const level *L = &o->lev[0];
  for (long i = a; i < b; ++i)
    for (long j = 1; j <= L->n; ++j) {
      double r = cell_residual(L, o->res_lam, i, j);
      acc[0] += r * r;
    }
}

/* V-cycles on u with right-hand side f (level 0) until the residual's squared
 * norm is at most kTol^2 * fnorm2; returns the number of cycles. */
static int mg_solve(ocean *o, grid u, grid f, double lam, double fnorm2, double *rel) {
  o->lev[0].u = u;
  o->lev[0].f = f;
  int c = 0;
  double r2[2] = {0.0, 0.0};
  while (c < MAX_CYCLES) {
    vcycle(o, lam);
    ++c;
    o->res_lam = lam;
    reduce(o, residual_partial, r2);
    if (r2[0] <= kTol * kTol * fnorm2) break;
  }
  *rel = fnorm2 > 0.0 ? sqrt(r2[0] / fnorm2) : sqrt(r2[0]);
  return c;
}

/* ---- the time step -------------------------------------------------------- */

static void tendency_layer(const ocean *o, const grid *psi, const grid *q, grid *t, int upper, long a, long b) {
  long n = o->n;
  double ih = 1.0 / o->h, ih2 = ih * ih, cj = 0.25 * ih2, cb = 0.5 * ih * kBeta, nu = o->nu;
  for (long i = a; i < b; ++i) {
    const double *p0 = psi->row[i], *pu = psi->row[i - 1], *pd = psi->row[i + 1];
    const double *q0 = q->row[i], *qu = q->row[i - 1], *qd = q->row[i + 1];
    double *tt = t->row[i];
    double y = ((double)i - 0.5) * o->h;
    double wind = upper ? -kWind * sin(kTwoPi * y) : 0.0;
    double drag = upper ? kDragUp : kDragLow;
    for (long j = 1; j <= n; ++j) {
      double dpx = p0[j + 1] - p0[j - 1], dpy = pd[j] - pu[j];
      double dqx = q0[j + 1] - q0[j - 1], dqy = qd[j] - qu[j];
      double jac = (dpx * dqy - dpy * dqx) * cj;
      double lap = (qu[j] + qd[j] + q0[j - 1] + q0[j + 1] - 4.0 * q0[j]) * ih2;
      tt[j] = -jac - cb * dpx + nu * lap + wind - drag * q0[j];
    }
  }
}

static void update_partial(ocean *o, long a, long b, double acc[2]) {
  double dt = o->dt;
  for (long i = a; i < b; ++i) {
    double *q1 = o->g[Q1].row[i], *q3 = o->g[Q3].row[i];
    const double *t1 = o->g[T1].row[i], *t3 = o->g[T3].row[i];
    double *rbt = o->g[RBT].row[i], *rbc = o->g[RBC].row[i];
    for (long j = 1; j <= o->n; ++j) {
      q1[j] += dt * t1[j];
      q3[j] += dt * t3[j];
      rbt[j] = 0.5 * (q1[j] + q3[j]);
      rbc[j] = 0.5 * (q1[j] - q3[j]);
      acc[0] += rbt[j] * rbt[j];
      acc[1] += rbc[j] * rbc[j];
    }
  }
}

static void combine_partial(ocean *o, long a, long b, double acc[2]) {
  for (long i = a; i < b; ++i) {
    const double *bt = o->g[PBT].row[i], *bc = o->g[PBC].row[i];
    const double *q1 = o->g[Q1].row[i], *q3 = o->g[Q3].row[i];
    double *p1 = o->g[PSI1].row[i], *p3 = o->g[PSI3].row[i];
    for (long j = 1; j <= o->n; ++j) {
      p1[j] = bt[j] + bc[j];
      p3[j] = bt[j] - bc[j];
      acc[0] -= p1[j] * q1[j] + p3[j] * q3[j];
      acc[1] += q1[j] * q1[j] + q3[j] * q3[j];
    }
  }
}

/* What a step reports (identical in every node and in the sequential run). */
typedef struct step_rec {
  int cycles_bt, cycles_bc;
  double rel_bt, rel_bc, energy, enstrophy;
} step_rec;

static void ocean_step(ocean *o, step_rec *rec) {
  long a, b;
  my_rows(o, 0, &a, &b);
  tendency_layer(o, &o->g[PSI1], &o->g[Q1], &o->g[T1], 1, a, b);
  tendency_layer(o, &o->g[PSI3], &o->g[Q3], &o->g[T3], 0, a, b);
  sync(o);
  double fn[2], diag[2];
  reduce(o, update_partial, fn);
  rec->cycles_bt = mg_solve(o, o->g[PBT], o->g[RBT], 0.0, fn[0], &rec->rel_bt);
  rec->cycles_bc = mg_solve(o, o->g[PBC], o->g[RBC], kKd2, fn[1], &rec->rel_bc);
  reduce(o, combine_partial, diag);
  double h2 = o->h * o->h;
  rec->energy = 0.5 * diag[0] * h2;
  rec->enstrophy = 0.5 * diag[1] * h2;
}

/* ---- checks --------------------------------------------------------------- */

static const char *kGridNames[NGRIDS] = {"q1", "q3", "t1", "t3", "psi1", "psi3", "psi_bt", "psi_bc", "rhs_bt", "rhs_bc"};

/* The parallel part, on every compute thread of every node (--threads):
 * the workers are the rdsm_threads() threads, numbered node-major; each
 * runs a copy of the run's description with its own partition index and
 * its own solver state (the level being solved, the reduction count), over
 * the same shared grids. */
typedef struct oc_job {
  const ocean *oc;
  long steps;
  step_rec *hist;    /* node thread 0's records */
  double t_parallel; /* node thread 0's */
} oc_job;

static void oc_worker(void *arg) {
  oc_job *job = (oc_job *)arg;
  ocean o = *job->oc;
  o.me = rdsm_thread_id();
  const int node_thread0 = o.me % rdsm_node_threads() == 0;
  ocean_init(&o);

  if (node_thread0) rdsm_reset_stats();
  double t0 = rdsm_wtime();
  for (long s = 0; s < job->steps; ++s) {
    step_rec rec; /* the same on every worker */
    memset(&rec, 0, sizeof rec);
    ocean_step(&o, &rec);
    if (node_thread0) job->hist[s] = rec;
  }
  if (node_thread0) job->t_parallel = rdsm_wtime() - t0;
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const char *prog = argc > 0 ? argv[0] : "ocean";
  oc_args a = parse_args(argc, argv);
  const int me = rdsm_rank(), nodes = rdsm_threads(); /* the workers */
  char shape[64];
  app_shape(shape, sizeof shape);
  const long n = a.n;

  app_verdict verdict = app_verdict_create();
  ocean oc;
  ocean_setup(&oc, 1, me, nodes, n);
  step_rec *hist = (step_rec *)xmalloc(sizeof(step_rec) * (size_t)(a.steps + 1));
  memset(hist, 0, sizeof(step_rec) * (size_t)(a.steps + 1));
  oc_job job = {&oc, a.steps, hist, 0.0};
  rdsm_run_threads(oc_worker, &job);
  const double t_parallel = job.t_parallel;
  rdsm_stats st;
  rdsm_get_stats(&st);

  int pass = 1;
  if (me == 0) {
    ocean ref;
    ocean_setup(&ref, 0, 0, nodes, n);
    ocean_init(&ref);
    step_rec *rhist = (step_rec *)xmalloc(sizeof(step_rec) * (size_t)(a.steps + 1));
    memset(rhist, 0, sizeof(step_rec) * (size_t)(a.steps + 1));
    double ts = rdsm_wtime();
    for (long s = 0; s < a.steps; ++s) ocean_step(&ref, &rhist[s]);
    double t_seq = rdsm_wtime() - ts;

    /* Bitwise comparison of every fine grid (reads every node's rows). */
    size_t w = (size_t)n + 2, bad = 0, nonfinite = 0;
    int bad_grid = -1;
    long bi = 0, bj = 0;
    double checksum = 0.0;
    for (int k = 0; k < NGRIDS; ++k)
      for (long i = 0; i < n + 2; ++i) {
        const double *p = oc.g[k].row[i], *q = ref.g[k].row[i];
        for (size_t j = 0; j < w; ++j) {
          if (k == PSI1 || k == PSI3 || k == Q1 || k == Q3) checksum += p[j];
          if (!isfinite(p[j])) ++nonfinite;
        }
        if (memcmp(p, q, w * sizeof(double)) != 0)
          for (size_t j = 0; j < w; ++j)
            if (memcmp(&p[j], &q[j], sizeof(double)) != 0 && bad++ == 0) bad_grid = k, bi = i, bj = (long)j;
      }
    long bad_step = -1;
    int total_cycles = 0;
    for (long s = 0; s < a.steps; ++s) {
      total_cycles += hist[s].cycles_bt + hist[s].cycles_bc;
      if (bad_step < 0 && memcmp(&hist[s], &rhist[s], sizeof(step_rec)) != 0) bad_step = s;
    }
    step_rec last = a.steps > 0 ? hist[a.steps - 1] : hist[0];
    if (bad) {
      pass = 0;
      printf("FAIL ocean: %zu of %zu values differ from the sequential run; first in %s at (%ld, %ld): got %.17g "
             "expected %.17g (%s, n %ld, %ld steps)\n",
             bad, (size_t)NGRIDS * w * w, kGridNames[bad_grid], bi, bj, oc.g[bad_grid].row[bi][bj],
             ref.g[bad_grid].row[bi][bj], shape, n, a.steps);
    } else if (bad_step >= 0) {
      pass = 0;
      const step_rec *x = &hist[bad_step], *y = &rhist[bad_step];
      printf("FAIL ocean: step %ld's global sums or cycle counts differ from the sequential run: energy %.17g vs "
             "%.17g, enstrophy %.17g vs %.17g, residuals %.17g %.17g vs %.17g %.17g, cycles %d+%d vs %d+%d\n",
             bad_step, x->energy, y->energy, x->enstrophy, y->enstrophy, x->rel_bt, x->rel_bc, y->rel_bt, y->rel_bc,
             x->cycles_bt, x->cycles_bc, y->cycles_bt, y->cycles_bc);
    } else if (nonfinite) {
      pass = 0;
      printf("FAIL ocean: %zu values are not finite (the run blew up)\n", nonfinite);
    } else {
      printf("PASS ocean: %ldx%ld grid, %ld steps, %d multigrid levels, %d V-cycles, %s, protocol %s, "
             "size %s, energy %.17g, enstrophy %.17g, checksum %.17g, last residuals %.3g %.3g, "
             "bit-identical to sequential\n",
             n + 2, n + 2, a.steps, oc.nlev, total_cycles, shape, rdsm_protocol_name(), a.size, last.energy,
             last.enstrophy, checksum, last.rel_bt, last.rel_bc);
    }
    app_print_times("ocean", t_parallel, t_seq, &st);
    FILE *f = app_json_begin(prog, a.json, "ocean", pass);
    if (f) {
      fprintf(f,
              ", \"size\": \"%s\", \"n\": %ld, \"steps\": %ld, \"levels\": %d, \"vcycles\": %d, "
              "\"energy\": %.17g, \"enstrophy\": %.17g, \"checksum\": %.17g, \"parallel_seconds\": %.9f, "
              "\"sequential_seconds\": %.9f",
              a.size, n, a.steps, oc.nlev, total_cycles, last.energy, last.enstrophy, checksum, t_parallel, t_seq);
      app_json_end(f, &st);
    }
    ocean_free(&ref);
    free(rhist);
  }
  free(hist);
  ocean_free(&oc);
  int status = app_verdict_publish(verdict, pass);
  rdsm_finalize();
  return status;
}
