/* Barnes: a Barnes-Hut hierarchical N-body simulation in the style of
 * SPLASH-2 Barnes (our own code: single-body leaves, cells with monopole and
 * quadrupole moments, semi-implicit Euler steps).
 *
 * N bodies of a Plummer sphere (total mass 1, G = 1), 64 bytes each
 * (position, velocity, mass, padding) in one shared array; node p owns the
 * contiguous block [N*p/nodes, N*(p+1)/nodes).  The bodies are numbered
 * along a space-filling (Morton) curve through their initial positions, so
 * a block is a compact region of space, as SPLASH-2 Barnes's cost zones
 * make a processor's bodies: a node inserts into, and mostly reads, its own
 * part of the tree.  As the bodies move, a node's zone follows its region,
 * not its bodies, as SPLASH-2 recomputes its zones every step: each step a
 * node inserts the bodies whose key (of their current position, on the
 * first step's curve) lies in its block's range of keys at the start.
 * Forces and updates stay with the blocks.  (Inserting the block's own
 * bodies instead, at 2 nodes, paper size, node 0 wrote a cell node 1 had
 * made at 1 insertion in 1,500 in the first step, 1 in 24 in the second,
 * 1 in 9 in the fourth, and its build took 12, 21, 33 and 44 ms; with
 * zones the run took 0.28 s instead of 0.39.)
 * --order random numbers them in the order they were drawn instead, so
 * every block is spread over the whole sphere and every node writes every
 * part of the tree: the worst case for a DSM.  With --threads
 * every compute thread of every node is such a "node" (rdsm_run_threads):
 * below, a node is a worker, with its own block, slots and private state,
 * and node 0 is thread 0 of node 0.  Every time step:
 *
 *   bounds   each node writes the bounding box of its bodies into its slot;
 *            node 0 resets the cell pool and stamps the root cell;  barrier;
 *   build    every node computes the root cube from all slots and inserts
 *            the bodies of its zone into ONE octree in shared memory (cells
 *            from a shared pool: each node takes page-sized ranges from its
 *            own part of it, the same pages every step, as SPLASH-2
 *            Barnes's per-processor cell arrays, and from the rest, under
 *            an allocation lock, when its part runs out).  Fine-grained
 *            locking as in SPLASH-2 Barnes-original (the point of the
 *            benchmark for a DSM): a node walks down without locks while
 *            the child slot it needs holds a cell, and locks the cell whose
 *            slot it must change
 *            (empty -> body, or body -> new subtree that separates the two
 *            bodies), re-reading the slot under the lock;  barrier;
 *   cofm     each node takes the cells two levels below the root that it
 *            made (so that it mostly sums cells on its own pages, as in
 *            SPLASH-2 where each processor sums the cells it made) and
 *            computes mass, centre of mass and quadrupole
 *            moment of its subtrees bottom-up;  barrier;  node 0 does the top
 *            two levels;  barrier;
 *   force    each node walks the tree for each of its bodies (opening
 *            criterion: a cell of side l whose centre of mass is at distance
 *            d from the body is used as a whole, monopole + quadrupole, if
 *            l < theta * d and the body is outside the cell) and keeps the
 *            accelerations privately;  barrier;
 *   update   each node moves its own bodies: v += dt a, x += dt v.
 *
 * Why the unlocked walk is correct on a release-consistent DSM.  A slot only
 * ever goes empty -> body -> cell within a step and a cell pointer never
 * changes, so a stale read can only show an older state; every state but
 * "cell" is re-read under the lock.  Slots carry the step number (the
 * generation) in their upper 32 bits, so a value left from an earlier step
 * (the pool is reused) reads as empty.  A new subtree is built completely
 * before it is linked into its parent, under the lock of the cell that
 * receives it; a node that reaches one of its cells by unlocked reads may
 * not have seen its contents yet: after locking that cell it checks the
 * cell's generation stamp, and if the stamp is stale it takes and releases
 * the lock of each ancestor on its path (one of them was released by the
 * node that linked the subtree) before locking the cell again.  This relies
 * on a critical section being one interval: no release may happen inside it.
 * So a node never takes another lock while it holds a cell lock: before
 * building a subtree it counts the cells needed, and if its reserved range is
 * too short it unlocks, reserves more under the allocation lock and retries
 * (an earlier version took the allocation lock inside the cell lock; its
 * release exposed the new cells' stamps without the slots written after it,
 * and bodies were lost about once in 50 runs).  Holding at most one lock at a
 * time, the program cannot deadlock.  Slot and stamp accesses are atomic
 * loads and stores with acquire/release order for the compiler and for the
 * hw preset, where the nodes share memory directly.
 *
 * Why the build is data-race free.  Seeing a cell's stamp is not enough to
 * order a node's writes into the cell after those of the node that made it:
 * the maker wrote the cell's slots under the lock of the cell it linked the
 * new subtree into, and the writer holds only the new cell's own lock.  So
 * every cell records, in its link word, the step, its maker and that link
 * lock; the first time in a step a node locks a cell another node made, it
 * first takes and releases the link lock (or, if it has not seen the
 * making yet, every ancestor's lock, one of which is the link lock: the
 * path to a cell passes through the cell its subtree was linked into).
 * The maker's writes then happen before this node's, and every later
 * writer of the cell held the cell's lock, so `rdsm run --races` finds no
 * race.  It costs one lock per cell made elsewhere and written here.
 * With threads the maker and the "first time" are per worker, not per
 * process: two threads of one node share its copy of the pool, but only a
 * lock orders the writes of one after the other's, so a cell another
 * thread of the same node made needs its link lock too, and each worker
 * keeps its own record (synced) of the cells it has synchronised with in
 * this step, since one thread's passage through a link lock orders
 * nothing for another.
 *
 * Verification.  With one body per leaf the octree of a set of positions
 * and a root cube is unique: insertion order changes only which pool cell
 * holds which node of the tree.  Masses and centres of mass are summed over
 * the children in the fixed octant order 0..7 and the force walk visits
 * children in that order too, so every floating-point operation is the same
 * whatever order the nodes inserted the bodies in.  Node 0 therefore runs the
 * same algorithm sequentially in private memory and requires
 *   - positions and velocities of every body bit for bit equal, and
 *   - the shared tree of the last step equal to the sequential one in shape,
 *     leaves and every cell's mass and centre of mass, bit for bit;
 * and, to show the approximation is sane, compares the tree acceleration of
 * 64 sample bodies (evenly spaced indices) at the final positions with the
 * direct O(N^2) sum.  The error of a sample is |a_tree - a_direct| divided by
 * |a_direct| or, if larger, by the RMS |a_direct| of the samples (near the
 * centre |a| tends to 0 while the terms summed do not); every sample must be
 * within 0.1 and the RMS of the errors within 0.03.  With quadrupole cells
 * and theta = 1 we measured worst 0.02 .. 0.05 and RMS 0.009 .. 0.018 for
 * 500 .. 131072 bodies and several seeds (theta is limited to (0, 1]).
 *
 * Shared memory: 64 bytes per body plus a pool of 2N cells of 256 bytes, about
 * 576 bytes per body: the default region holds millions of bodies (under the
 * mprotect memory backend, about 380000).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/app_util.h"
#include "rdsm.h"

static const char *kUsage =
    "[--size test|medium|paper] [-b BODIES] [-s STEPS] [--theta T] [--seed S] [--order space|random]\n"
    "  [--json FILE]\n"
    "  Barnes-Hut N-body (Plummer sphere; octree rebuilt every step in shared memory with one\n"
    "  lock per cell, SPLASH-2 Barnes-original style).  Sizes: test 4096 bodies 3 steps,\n"
    "  medium 65536 x 48 (about 15 s sequentially), paper 32768 x 4 (seed 003: 32K\n"
    "  particles; seed 000 Fig. 9 prints 32678, read here as 32768; seed 004 Table 3 uses\n"
    "  16K: -b 16384).  -b/-s override.  theta: opening criterion, 0 < T <= 1 (default 1).\n"
    "  --seed: initial conditions.  --order: space (default) numbers the bodies along a\n"
    "  space-filling curve, so a node's block is a compact region, and each step a node\n"
    "  inserts the bodies now in its block's region (like SPLASH-2's cost zones); random\n"
    "  spreads every node's bodies over the whole sphere.  Node 0 checks bit\n"
    "  for bit against a sequential run and checks sample tree forces against the direct\n"
    "  O(N^2) sum.  About 576 bytes of shared memory per body (under --memory mprotect the\n"
    "  default region holds about 380000 bodies).";

/* ---- data ----------------------------------------------------------------- */

typedef struct body {
  double pos[3];
  double vel[3];
  double mass;
  double pad;
} body; /* 64 bytes */

/* A slot: upper half the generation (step + 1) it was written in, a slot of
 * another generation reads as empty; lower half 0 empty, odd 2i+1 body i,
 * even 2c+2 cell c. */
typedef struct cell {
  uint64_t slot[8];
  uint64_t gen; /* step stamp: the cell was made in this generation */
  double mass;
  double com[3];
  double quad[6]; /* traceless quadrupole about com: xx xy xz yy yz zz */
  uint64_t link;  /* who made the cell, under which lock: link_make() */
  uint64_t pad[12];
} cell; /* 256 bytes: 16 to a 4 KiB page, never straddling one */

#define MAX_DEPTH 80
#define ALLOC_LOCK 0
#define N_SAMPLES 64

static const double kDt = 0.025;
static const double kEps2 = 0.05 * 0.05; /* softening squared */
static const double kPi = 3.14159265358979323846;

typedef struct bh_args {
  long bodies, steps;
  double theta;
  uint64_t seed;
  const char *size;
  const char *json;
  int spatial; /* --order space: bodies numbered along a Morton curve */
} bh_args;

static bh_args parse_args(int argc, char **argv) {
  bh_args a = {4096, 3, 1.0, 1, "test", NULL, 1};
  long long b = -1, s = -1;
  const char *order = "space";
  app_args args = app_args_start(argc, argv, "barnes", kUsage);
  while (app_args_next(&args)) {
    if (app_arg_size(&args, &a.size)) continue;
    if (app_arg_int(&args, "-b", 2, 1L << 22, "body count", &b)) continue;
    if (app_arg_int(&args, "-s", 0, 1000000, "step count", &s)) continue;
    if (app_arg_double(&args, "--theta", 0.0, 1.0, APP_OPEN_MIN, &a.theta)) continue;
    if (app_arg_u64(&args, "--seed", "seed", &a.seed)) continue;
    if (app_arg_string(&args, "--json", &a.json)) continue;
    if (app_arg_string(&args, "--order", &order)) continue;
    app_arg_unknown(&args);
  }
  if (!strcmp(order, "space")) a.spatial = 1;
  else if (!strcmp(order, "random")) a.spatial = 0;
  else app_usage_exit("barnes", kUsage, "--order takes space or random");
  if (!strcmp(a.size, "test")) { a.bodies = 4096; a.steps = 3; }
  else if (!strcmp(a.size, "medium")) { a.bodies = 65536; a.steps = 48; }
  else { a.bodies = 32768; a.steps = 4; }
  if (b > 0) a.bodies = b;
  if (s >= 0) a.steps = s;
  return a;
}

/* ---- initial state: Plummer sphere ------------------------------------------ */

static double uniform01(uint64_t *st) { return (double)(app_splitmix64(st) >> 11) * 0x1.0p-53; }

static void random_direction(uint64_t *st, double r, double out[3]) {
  double z = 2.0 * uniform01(st) - 1.0;
  double phi = 2.0 * kPi * uniform01(st);
  double s = sqrt(1.0 - z * z);
  out[0] = r * s * cos(phi);
  out[1] = r * s * sin(phi);
  out[2] = r * z;
}

/* ---- the root cube ------------------------------------------------------------ */

/* The cube of every step's tree, given the bounding box lo/hi of the
 * bodies: centred on the origin, the centre of mass, which does not move
 * (the total momentum is zero), with a half side the smallest power of two
 * that holds every body, so that it changes only when a body crosses it, as
 * the classic treecode's root box grows by doubling.  A cube fitted to the
 * bounding box would move with the outermost bodies, and every cell
 * boundary with it: a node's bodies would drift into other nodes' subtrees
 * from step to step. */
static void root_cube(const double lo[3], const double hi[3], double center[3], double *half) {
  double reach = 1e-12;
  for (int d = 0; d < 3; ++d) {
    center[d] = 0.0;
    if (-lo[d] > reach) reach = -lo[d];
    if (hi[d] > reach) reach = hi[d];
  }
  int e = 0;
  frexp(reach * 1.0001, &e); /* reach * 1.0001 < 2^e */
  *half = ldexp(1.0, e);
}

/* ---- numbering along a Morton curve ------------------------------------------ */

/* The 21 low bits of v spread to every third bit. */
static uint64_t spread3(uint64_t v) {
  v &= 0x1fffff;
  v = (v | v << 32) & 0x1f00000000ffffull;
  v = (v | v << 16) & 0x1f0000ff0000ffull;
  v = (v | v << 8) & 0x100f00f00f00f00full;
  v = (v | v << 4) & 0x10c30c30c30c30c3ull;
  v = (v | v << 2) & 0x1249249249249249ull;
  return v;
}

typedef struct keyed_body {
  uint64_t key;
  long index; /* ties keep the drawing order: the result is the same everywhere */
} keyed_body;

static int by_key(const void *x, const void *y) {
  const keyed_body *a = (const keyed_body *)x, *b = (const keyed_body *)y;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

/* The cube the keys are taken in: the root cube of the bodies' first
 * positions, fixed for the run. */
typedef struct curve_frame {
  double lo[3];
  double scale; /* key units per length */
} curve_frame;

static curve_frame curve_frame_of(const body *b, long n) {
  double lo[3], hi[3];
  for (int d = 0; d < 3; ++d) lo[d] = hi[d] = b[0].pos[d];
  for (long i = 1; i < n; ++i)
    for (int d = 0; d < 3; ++d) {
      if (b[i].pos[d] < lo[d]) lo[d] = b[i].pos[d];
      if (b[i].pos[d] > hi[d]) hi[d] = b[i].pos[d];
    }
  double center[3], half;
  root_cube(lo, hi, center, &half);
  curve_frame f;
  for (int d = 0; d < 3; ++d) f.lo[d] = center[d] - half;
  f.scale = half > 0.0 ? (double)0x1fffff / (2.0 * half) : 0.0;
  return f;
}

/* A position's Morton key; a body that left the cube takes the key of the
 * nearest point of its surface. */
static uint64_t curve_key(const curve_frame *f, const double pos[3]) {
  uint64_t key = 0;
  for (int d = 0; d < 3; ++d) {
    double q = (pos[d] - f->lo[d]) * f->scale;
    uint64_t v = q > 0.0 ? (q < (double)0x1fffff ? (uint64_t)q : 0x1fffff) : 0;
    key |= spread3(v) << d;
  }
  return key;
}

/* Renumbers the bodies in the order of the Morton keys of their positions
 * in the root cube of the first step's tree, so that a contiguous block of
 * indices is a compact region of space: the bits of a key are those of the
 * octants on the path from the root (z, y, x, as octant_of numbers them),
 * so the order is that of a depth-first walk of the octree and consecutive
 * blocks are subtrees, or a few of them.  Returns 0 when out of memory. */
static int order_along_curve(body *b, long n) {
  const curve_frame f = curve_frame_of(b, n);
  keyed_body *k = (keyed_body *)malloc((size_t)n * sizeof *k);
  body *copy = (body *)malloc((size_t)n * sizeof *copy);
  if (!k || !copy) {
    free(k);
    free(copy);
    return 0;
  }
  for (long i = 0; i < n; ++i) {
    k[i].key = curve_key(&f, b[i].pos);
    k[i].index = i;
  }
  qsort(k, (size_t)n, sizeof *k, by_key);
  memcpy(copy, b, (size_t)n * sizeof *copy);
  for (long i = 0; i < n; ++i) b[i] = copy[k[i].index];
  free(k);
  free(copy);
  return 1;
}

/* All n bodies (every node computes them; it is cheap), in the centre-of-mass
 * frame, scaled to standard N-body units (virial radius 1), numbered along a
 * Morton curve when `spatial`.  Returns 0 when out of memory. */
static int init_bodies(body *b, long n, uint64_t seed, int spatial) {
  const double rscale = 3.0 * kPi / 16.0, vscale = sqrt(1.0 / rscale);
  double cp[3] = {0, 0, 0}, cv[3] = {0, 0, 0};
  for (long i = 0; i < n; ++i) {
    uint64_t st = (seed * 0x2545F4914F6CDD1Dull) ^ ((uint64_t)i * 0x9E3779B97F4A7C15ull) ^ 0x6261726e6573ull;
    double r;
    do { /* the cumulative mass M(r) = r^3 (1 + r^2)^(-3/2) inverted; outliers cut */
      double x = uniform01(&st);
      r = x > 0.0 ? 1.0 / sqrt(pow(x, -2.0 / 3.0) - 1.0) : 0.0;
    } while (!(r < 8.0));
    double q, g;
    do { /* speed fraction q from q^2 (1 - q^2)^(7/2) by rejection (max < 0.1) */
      q = uniform01(&st);
      g = uniform01(&st) * 0.1;
    } while (g > q * q * pow(1.0 - q * q, 3.5));
    double ve = sqrt(2.0) * pow(1.0 + r * r, -0.25);
    random_direction(&st, r * rscale, b[i].pos);
    random_direction(&st, q * ve * vscale, b[i].vel);
    b[i].mass = 1.0 / (double)n;
    b[i].pad = 0.0;
    for (int d = 0; d < 3; ++d) {
      cp[d] += b[i].pos[d];
      cv[d] += b[i].vel[d];
    }
  }
  for (int d = 0; d < 3; ++d) {
    cp[d] /= (double)n;
    cv[d] /= (double)n;
  }
  for (long i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d) {
      b[i].pos[d] -= cp[d];
      b[i].vel[d] -= cv[d];
    }
  return spatial ? order_along_curve(b, n) : 1;
}

/* ---- the tree (shared or private) ------------------------------------------- */

typedef struct tree {
  cell *cells; /* pool; cell 0 is the root */
  long cap;    /* cells in the pool */
  body *bodies;
  int shared;  /* 1: the parallel build (locks, unlocked reads); 0: private */
  uint64_t gen;
  double center[3], half; /* root cube: center +- half */
  /* allocation: this worker's reserved range [next, end) of the pool, taken
   * from its own part [own_next, own_end) while that lasts */
  long next, end, chunk;
  long own_begin, own_next, own_end;
  volatile int64_t *alloc_top; /* shared: first free cell of the pool's rest */
  int lock_span;               /* cell locks are 1 .. lock_span */
  int me;                      /* this worker (rdsm_thread_id) */
  uint32_t *synced;            /* parallel build: generation in which this worker last locked each cell
                                * (private to the worker) */
  /* counters of this worker */
  uint64_t locks, stale, maker_syncs, interactions;
} tree;

enum { SLOT_EMPTY = 0, SLOT_BODY = 1, SLOT_CELL = 2 };

static inline uint64_t slot_make(uint64_t gen, uint64_t code) { return (gen << 32) | code; }
static inline int slot_kind(const tree *t, uint64_t s, long *idx) {
  if ((s >> 32) != t->gen) return SLOT_EMPTY;
  uint32_t code = (uint32_t)s;
  if (code == 0) return SLOT_EMPTY;
  if (code & 1u) {
    *idx = (long)(code >> 1);
    return SLOT_BODY;
  }
  *idx = (long)(code >> 1) - 1;
  return SLOT_CELL;
}
static inline uint64_t body_code(long i) { return 2u * (uint64_t)i + 1u; }
static inline uint64_t cell_code(long c) { return 2u * (uint64_t)c + 2u; }

/* Unlocked accesses of the parallel build: atomic for the compiler and the
 * hardware (plain loads and stores on x86); the DSM side is argued above. */
static inline uint64_t load_slot(const tree *t, long c, int k) {
  return __atomic_load_n(&t->cells[c].slot[k], __ATOMIC_ACQUIRE);
}
static inline void store_slot(tree *t, long c, int k, uint64_t v) {
  __atomic_store_n(&t->cells[c].slot[k], v, __ATOMIC_RELEASE);
}
static inline uint64_t load_gen(const tree *t, long c) { return __atomic_load_n(&t->cells[c].gen, __ATOMIC_ACQUIRE); }

static inline int cell_lock(const tree *t, long c) { return 1 + (int)(c % t->lock_span); }

/* A cell's link word: the generation, the worker that made the cell and the
 * lock it held then (that of the cell its subtree was linked into). */
static inline uint64_t link_make(uint64_t gen, int maker, int lock) {
  return gen << 32 | (uint64_t)(uint32_t)maker << 16 | (uint64_t)(uint32_t)lock;
}
static inline uint64_t load_link(const tree *t, long c) {
  return __atomic_load_n(&t->cells[c].link, __ATOMIC_ACQUIRE);
}
static inline int link_maker(uint64_t link) { return (int)(link >> 16 & 0xffff); }

static inline int octant_of(const double p[3], const double c[3]) {
  return (p[0] >= c[0]) | (p[1] >= c[1]) << 1 | (p[2] >= c[2]) << 2;
}
static inline void child_center(const double c[3], double h, int oct, double out[3]) {
  double q = 0.5 * h;
  for (int d = 0; d < 3; ++d) out[d] = c[d] + (((oct >> d) & 1) ? q : -q);
}

static void fatal(const char *msg, long a, long b) {
  fprintf(stderr, "barnes: node %d: %s (%ld, %ld)\n", rdsm_rank(), msg, a, b);
  exit(1);
}

/* Makes sure this worker's private range of the pool holds at least need
 * cells.  Never called with a cell lock held: the allocation lock's release
 * would split the critical section of the cell lock into two intervals, and
 * a node that got only the first (through the allocation lock) could see a
 * new cell's stamp but not the slots written after it. */
static void reserve_cells(tree *t, long need) {
  if (t->end - t->next >= need) return;
  if (!t->shared) fatal("cell pool exhausted (cells, capacity)", t->next + need, t->cap);
  long size = need > t->chunk ? need : t->chunk;
  if (t->own_end - t->own_next >= size) { /* no lock: this part is the worker's alone */
    t->next = t->own_next;
    t->end = t->own_next = t->next + size;
    return;
  }
  rdsm_lock(ALLOC_LOCK);
  long base = (long)*t->alloc_top;
  *t->alloc_top = base + size;
  rdsm_unlock(ALLOC_LOCK);
  t->locks++;
  if (base + size > t->cap) fatal("cell pool exhausted (cells, capacity)", base + size, t->cap);
  t->next = base;
  t->end = base + size;
}

static long alloc_cell(tree *t) {
  if (t->next >= t->end) fatal("internal error: no reserved cell", t->next, t->end);
  return t->next++;
}

/* How many new cells separate bodies at p and q that share octant oct of the
 * cell at c (half size h) at depth depth. */
static long chain_length(const double p[3], const double q[3], const double c[3], double h, int oct, int depth) {
  double cc[3];
  child_center(c, h, oct, cc);
  double hh = 0.5 * h;
  for (long n = 1;; ++n) {
    if (depth + n > MAX_DEPTH) fatal("tree too deep: bodies coincide (depth)", depth + n, 0);
    int oi = octant_of(p, cc), oo = octant_of(q, cc);
    if (oi != oo) return n;
    double nc[3];
    child_center(cc, hh, oi, nc);
    memcpy(cc, nc, sizeof cc);
    hh *= 0.5;
  }
}

static void init_cell(tree *t, long c, int link_lock) {
  cell *x = &t->cells[c];
  x->link = link_make(t->gen, t->me, link_lock);
  for (int k = 0; k < 8; ++k) x->slot[k] = slot_make(t->gen, 0);
  x->mass = 0.0;
  x->com[0] = x->com[1] = x->com[2] = 0.0;
  for (int k = 0; k < 6; ++k) x->quad[k] = 0.0;
  x->gen = t->gen;
}

/* Starts a build: root cube from the bounding box lo/hi of all bodies. */
static void tree_begin(tree *t, uint64_t gen, const double lo[3], const double hi[3]) {
  t->gen = gen;
  root_cube(lo, hi, t->center, &t->half);
  if (t->shared) t->next = t->end = 0, t->own_next = t->own_begin; /* reserve_cells takes the first range */
  else t->next = 1, t->end = t->cap;    /* the private pool is all this tree's; cell 0 is the root */
}

/* Takes and releases the lock of every ancestor on the path: one of them was
 * released by the node that linked the subtree holding the cell below. */
static void pass_ancestors(tree *t, const long *path, int depth) {
  for (int k = depth - 1; k >= 0; --k) {
    rdsm_lock(cell_lock(t, path[k]));
    rdsm_unlock(cell_lock(t, path[k]));
    t->locks++;
  }
}

/* Locks cell c, making sure its contents are visible and that what this
 * node writes into it is ordered after what its maker wrote (see the file
 * comment).  The root is made before the step's first barrier. */
static void lock_cell(tree *t, long c, const long *path, int depth) {
  if (c != 0 && t->synced[c] != (uint32_t)t->gen) {
    uint64_t link = load_link(t, c);
    int maker = link_maker(link), lock = (int)(uint16_t)link;
    if ((link >> 32) != t->gen) { /* the making not seen yet */
      t->stale++;
      pass_ancestors(t, path, depth);
    } else if (maker != t->me && lock != cell_lock(t, c)) {
      rdsm_lock(lock);
      rdsm_unlock(lock);
      t->locks++;
      t->maker_syncs++;
    }
  }
  rdsm_lock(cell_lock(t, c));
  t->locks++;
  while (load_gen(t, c) != t->gen) {
    rdsm_unlock(cell_lock(t, c));
    t->stale++;
    pass_ancestors(t, path, depth);
    rdsm_lock(cell_lock(t, c));
    t->locks++;
  }
  if (c != 0) t->synced[c] = (uint32_t)t->gen;
}

/* Inserts body i.  In the private tree no locks are taken. */
static void insert_body(tree *t, long i) {
  const double *p = t->bodies[i].pos;
  long path[MAX_DEPTH + 2];
  long cur = 0;
  int depth = 0; /* of cur */
  double c[3] = {t->center[0], t->center[1], t->center[2]}, h = t->half;
  for (;;) {
    int oct = octant_of(p, c);
    long idx = 0;
    int kind = slot_kind(t, load_slot(t, cur, oct), &idx);
    if (kind != SLOT_CELL && t->shared) {
      lock_cell(t, cur, path, depth);
      kind = slot_kind(t, load_slot(t, cur, oct), &idx);
      if (kind == SLOT_CELL) rdsm_unlock(cell_lock(t, cur));
    }
    if (kind == SLOT_CELL) {
      if (depth >= MAX_DEPTH) fatal("tree too deep: bodies coincide (body, depth)", i, depth);
      path[depth++] = cur;
      double cc[3];
      child_center(c, h, oct, cc);
      memcpy(c, cc, sizeof c);
      h *= 0.5;
      cur = idx;
      continue;
    }
    if (kind == SLOT_EMPTY) {
      store_slot(t, cur, oct, slot_make(t->gen, body_code(i)));
    } else {
      /* body idx is there: a chain of new cells until the two separate */
      long other = idx;
      const double *q = t->bodies[other].pos;
      long need = chain_length(p, q, c, h, oct, depth);
      if (t->end - t->next < need) { /* refill outside the lock, then retry this cell */
        if (t->shared) rdsm_unlock(cell_lock(t, cur));
        reserve_cells(t, need);
        continue;
      }
      double cc[3];
      child_center(c, h, oct, cc);
      double hh = 0.5 * h;
      long top = alloc_cell(t), n = top;
      int link_lock = t->shared ? cell_lock(t, cur) : 0;
      init_cell(t, n, link_lock);
      for (int dd = depth + 1;; ++dd) {
        if (dd > MAX_DEPTH) fatal("tree too deep: bodies coincide", i, other);
        int oi = octant_of(p, cc), oo = octant_of(q, cc);
        if (oi != oo) {
          t->cells[n].slot[oi] = slot_make(t->gen, body_code(i));
          t->cells[n].slot[oo] = slot_make(t->gen, body_code(other));
          break;
        }
        long m = alloc_cell(t);
        init_cell(t, m, link_lock);
        t->cells[n].slot[oi] = slot_make(t->gen, cell_code(m));
        double nc[3];
        child_center(cc, hh, oi, nc);
        memcpy(cc, nc, sizeof cc);
        hh *= 0.5;
        n = m;
      }
      store_slot(t, cur, oct, slot_make(t->gen, cell_code(top))); /* release: the subtree is complete */
    }
    if (t->shared) rdsm_unlock(cell_lock(t, cur));
    return;
  }
}

/* Child k of cell x as a point mass: its mass and position (a body's, or a
 * cell's centre of mass) and, for a cell, its own quadrupole (else NULL).
 * Returns false for an empty slot. */
static int child_point(tree *t, const cell *x, int k, double *mk, const double **pk, const double **quad) {
  long idx = 0;
  int kind = slot_kind(t, x->slot[k], &idx);
  if (kind == SLOT_EMPTY) return 0;
  if (kind == SLOT_BODY) {
    *mk = t->bodies[idx].mass;
    *pk = t->bodies[idx].pos;
    *quad = NULL;
  } else {
    *mk = t->cells[idx].mass;
    *pk = t->cells[idx].com;
    *quad = t->cells[idx].quad;
  }
  return 1;
}

/* Mass and centre of mass of cell c from its children, in octant order. */
static void cofm_combine(tree *t, long c) {
  cell *x = &t->cells[c];
  double m = 0.0, s[3] = {0, 0, 0};
  for (int k = 0; k < 8; ++k) {
    double mk;
    const double *pk, *qk;
    if (!child_point(t, x, k, &mk, &pk, &qk)) continue;
    m += mk;
    for (int d = 0; d < 3; ++d) s[d] += mk * pk[d];
  }
  x->mass = m;
  for (int d = 0; d < 3; ++d) x->com[d] = m > 0.0 ? s[d] / m : 0.0;
  /* quadrupole: the children's own (cells) plus their point masses about com */
  double q[6] = {0, 0, 0, 0, 0, 0};
  for (int k = 0; k < 8; ++k) {
    double mk;
    const double *pk, *qk;
    if (!child_point(t, x, k, &mk, &pk, &qk)) continue;
    if (qk)
      for (int j = 0; j < 6; ++j) q[j] += qk[j];
    double dx = pk[0] - x->com[0], dy = pk[1] - x->com[1], dz = pk[2] - x->com[2];
    double d2 = dx * dx + dy * dy + dz * dz;
    q[0] += mk * (3.0 * dx * dx - d2);
    q[1] += mk * (3.0 * dx * dy);
    q[2] += mk * (3.0 * dx * dz);
    q[3] += mk * (3.0 * dy * dy - d2);
    q[4] += mk * (3.0 * dy * dz);
    q[5] += mk * (3.0 * dz * dz - d2);
  }
  for (int j = 0; j < 6; ++j) x->quad[j] = q[j];
}

static void cofm_subtree(tree *t, long c) {
  for (int k = 0; k < 8; ++k) {
    long idx = 0;
    if (slot_kind(t, t->cells[c].slot[k], &idx) == SLOT_CELL) cofm_subtree(t, idx);
  }
  cofm_combine(t, c);
}

/* The cells two levels below the root, in octant order (at most 64). */
static int level2_cells(const tree *t, long *out) {
  int n = 0;
  for (int k = 0; k < 8; ++k) {
    long c1 = 0;
    if (slot_kind(t, t->cells[0].slot[k], &c1) != SLOT_CELL) continue;
    for (int j = 0; j < 8; ++j) {
      long c2 = 0;
      if (slot_kind(t, t->cells[c1].slot[j], &c2) == SLOT_CELL) out[n++] = c2;
    }
  }
  return n;
}

/* The top two levels, after the level-2 subtrees are done. */
static void cofm_top(tree *t) {
  for (int k = 0; k < 8; ++k) {
    long c1 = 0;
    if (slot_kind(t, t->cells[0].slot[k], &c1) == SLOT_CELL) cofm_combine(t, c1);
  }
  cofm_combine(t, 0);
}

typedef struct walk {
  const tree *t;
  long self;
  double p[3];
  double theta2;
  double acc[3];
  uint64_t interactions;
} walk;

static inline void add_point(walk *w, const double q[3], double m) {
  double dx = q[0] - w->p[0], dy = q[1] - w->p[1], dz = q[2] - w->p[2];
  double r2 = dx * dx + dy * dy + dz * dz + kEps2;
  double inv = 1.0 / sqrt(r2);
  double s = m * inv * inv * inv;
  w->acc[0] += s * dx;
  w->acc[1] += s * dy;
  w->acc[2] += s * dz;
  w->interactions++;
}

/* A cell as monopole + quadrupole: with r = com - p (softened length R),
 * a = m r / R^3 - Q r / R^5 + 5/2 (r.Q.r) r / R^7. */
static inline void add_cell(walk *w, const cell *y) {
  double dx = y->com[0] - w->p[0], dy = y->com[1] - w->p[1], dz = y->com[2] - w->p[2];
  double r2 = dx * dx + dy * dy + dz * dz + kEps2;
  double inv = 1.0 / sqrt(r2);
  double inv2 = inv * inv, inv3 = inv * inv2, inv5 = inv3 * inv2;
  const double *q = y->quad;
  double qx = q[0] * dx + q[1] * dy + q[2] * dz;
  double qy = q[1] * dx + q[3] * dy + q[4] * dz;
  double qz = q[2] * dx + q[4] * dy + q[5] * dz;
  double rqr = dx * qx + dy * qy + dz * qz;
  double s = y->mass * inv3 + 2.5 * rqr * inv5 * inv2;
  w->acc[0] += s * dx - qx * inv5;
  w->acc[1] += s * dy - qy * inv5;
  w->acc[2] += s * dz - qz * inv5;
  w->interactions++;
}

static void walk_cell(walk *w, long c, const double cc[3], double h) {
  const tree *t = w->t;
  const cell *x = &t->cells[c];
  for (int k = 0; k < 8; ++k) {
    long idx = 0;
    int kind = slot_kind(t, x->slot[k], &idx);
    if (kind == SLOT_EMPTY) continue;
    if (kind == SLOT_BODY) {
      if (idx != w->self) add_point(w, t->bodies[idx].pos, t->bodies[idx].mass);
      continue;
    }
    double kc[3];
    child_center(cc, h, k, kc);
    double kh = 0.5 * h;
    const cell *y = &t->cells[idx];
    double dx = y->com[0] - w->p[0], dy = y->com[1] - w->p[1], dz = y->com[2] - w->p[2];
    double d2 = dx * dx + dy * dy + dz * dz, side = 2.0 * kh;
    int inside = fabs(w->p[0] - kc[0]) <= kh && fabs(w->p[1] - kc[1]) <= kh && fabs(w->p[2] - kc[2]) <= kh;
    if (!inside && side * side < w->theta2 * d2) add_cell(w, y);
    else walk_cell(w, idx, kc, kh);
  }
}

/* Tree acceleration of body i into acc. */
static void tree_accel(tree *t, long i, double theta, double acc[3]) {
  walk w;
  w.t = t;
  w.self = i;
  memcpy(w.p, t->bodies[i].pos, sizeof w.p);
  w.theta2 = theta * theta;
  w.acc[0] = w.acc[1] = w.acc[2] = 0.0;
  w.interactions = 0;
  walk_cell(&w, 0, t->center, t->half);
  memcpy(acc, w.acc, sizeof w.acc);
  t->interactions += w.interactions;
}

static void update_bodies(body *b, long i0, long i1, const double *acc) {
  for (long i = i0; i < i1; ++i) {
    const double *a = acc + (i - i0) * 3;
    for (int d = 0; d < 3; ++d) {
      b[i].vel[d] += kDt * a[d];
      b[i].pos[d] += kDt * b[i].vel[d];
    }
  }
}

static void bounds(const body *b, long i0, long i1, double lo[3], double hi[3]) {
  for (int d = 0; d < 3; ++d) {
    lo[d] = HUGE_VAL;
    hi[d] = -HUGE_VAL;
  }
  for (long i = i0; i < i1; ++i)
    for (int d = 0; d < 3; ++d) {
      if (b[i].pos[d] < lo[d]) lo[d] = b[i].pos[d];
      if (b[i].pos[d] > hi[d]) hi[d] = b[i].pos[d];
    }
}

/* The whole step sequence in private memory (node 0's reference). */
static void sequential_run(tree *t, long n, long steps, double theta, double *acc) {
  for (long step = 0; step < steps; ++step) {
    double lo[3], hi[3];
    bounds(t->bodies, 0, n, lo, hi);
    tree_begin(t, (uint64_t)step + 1, lo, hi);
    init_cell(t, 0, 0);
    for (long i = 0; i < n; ++i) insert_body(t, i);
    cofm_subtree(t, 0);
    for (long i = 0; i < n; ++i) tree_accel(t, i, theta, acc + i * 3);
    update_bodies(t->bodies, 0, n, acc);
  }
}

/* Compares two trees node by node; returns the number of differences and
 * counts the cells and leaves of a. */
static long tree_compare(const tree *a, long ca, const tree *b, long cb, long *cells, long *leaves) {
  const cell *x = &a->cells[ca], *y = &b->cells[cb];
  long diff = memcmp(&x->mass, &y->mass, sizeof(double)) != 0 || memcmp(x->com, y->com, sizeof x->com) != 0 ||
              memcmp(x->quad, y->quad, sizeof x->quad) != 0;
  ++*cells;
  for (int k = 0; k < 8; ++k) {
    long ia = 0, ib = 0;
    int ka = slot_kind(a, x->slot[k], &ia), kb = slot_kind(b, y->slot[k], &ib);
    if (ka != kb) {
      ++diff;
      continue;
    }
    if (ka == SLOT_BODY) {
      ++*leaves;
      diff += ia != ib;
    } else if (ka == SLOT_CELL) {
      diff += tree_compare(a, ia, b, ib, cells, leaves);
    }
  }
  return diff;
}

/* Marks every leaf of the tree; returns how many bodies are missing or twice. */
static long tree_leaf_check(const tree *t, long c, unsigned char *seen, long n) {
  long bad = 0;
  for (int k = 0; k < 8; ++k) {
    long idx = 0;
    int kind = slot_kind(t, t->cells[c].slot[k], &idx);
    if (kind == SLOT_BODY) {
      if (idx < 0 || idx >= n || seen[idx]++) ++bad;
    } else if (kind == SLOT_CELL) {
      bad += tree_leaf_check(t, idx, seen, n);
    }
  }
  return bad;
}

static double kinetic(const body *b, long n) {
  double k = 0.0;
  for (long i = 0; i < n; ++i)
    k += 0.5 * b[i].mass * (b[i].vel[0] * b[i].vel[0] + b[i].vel[1] * b[i].vel[1] + b[i].vel[2] * b[i].vel[2]);
  return k;
}


/* Per-worker figures gathered for node 0; st is the node's statistics, in
 * the slot of the node's thread 0. */
typedef struct node_report {
  rdsm_stats st;
  uint64_t locks, stale, maker_syncs, interactions, cofm_units;
  double build_s, cofm_s, force_s, update_s;
} node_report;

typedef struct bbox_slot {
  double lo[3], hi[3];
  double pad[2];
} bbox_slot;

/* The parallel part, on every compute thread of every node (--threads):
 * the workers are the rdsm_threads() threads, numbered node-major, each
 * with its block of bodies, its bounding-box slot, its reserved range of
 * the pool, its own record of the cells it has synchronised with (synced)
 * and its private accelerations; the tree is built by all of them. */
typedef struct bh_job {
  bh_args a;
  const tree *proto; /* the shared tree's description */
  bbox_slot *boxes;  /* one per worker */
  node_report *reports; /* one per worker */
  long own_cells;       /* each worker's own part of the cell pool */
  double t_parallel;    /* node thread 0's */
  /* --order space: worker w inserts the bodies whose (key, index) lies in
   * [zone[w], zone[w + 1]) (in_zone); NULL for --order random */
  const curve_frame *frame;
  const keyed_body *zone;
} bh_job;

/* Whether body i at pos lies in zone [lo, hi) of the (key, index) order. */
static int in_zone(const curve_frame *f, const double pos[3], long i, const keyed_body *lo, const keyed_body *hi) {
  const keyed_body k = {curve_key(f, pos), i};
  return by_key(&k, lo) >= 0 && by_key(&k, hi) < 0;
}

static void bh_worker(void *arg) {
  bh_job *job = (bh_job *)arg;
  const bh_args a = job->a;
  const int me = rdsm_thread_id(), nodes = rdsm_threads();
  const int node_thread0 = me % rdsm_node_threads() == 0;
  const long n = a.bodies;
  bbox_slot *boxes = job->boxes;
  tree t = *job->proto;
  body *bodies = t.bodies;
  cell *cells = t.cells;
  const long chunk = t.chunk;
  /* the pool: the root alone in the first chunk, then each worker's own
   * part, then the rest */
  const long own_cells = job->own_cells;
  t.me = me;
  t.own_begin = chunk + (long)me * own_cells;
  t.own_end = t.own_begin + own_cells;
  t.synced = (uint32_t *)calloc((size_t)t.cap, sizeof(uint32_t));
  const long i0 = (long)((int64_t)n * me / nodes);
  const long i1 = (long)((int64_t)n * (me + 1) / nodes);
  double *acc = (double *)malloc((size_t)(i1 - i0 + 1) * 3 * sizeof(double));
  if (!t.synced || !acc) fatal("out of memory (worker, bodies)", me, i1 - i0);
  rdsm_barrier();

  if (node_thread0) rdsm_reset_stats();
  double t0 = rdsm_wtime();
  double tb = 0, tc = 0, tf = 0, tu = 0;
  uint64_t units_done = 0;
  long units[64];
  for (long step = 0; step < a.steps; ++step) {
    const uint64_t gen = (uint64_t)step + 1;
    /* bounds */
    double lo[3], hi[3];
    bounds(bodies, i0, i1, lo, hi);
    memcpy(boxes[me].lo, lo, sizeof lo);
    memcpy(boxes[me].hi, hi, sizeof hi);
    if (me == 0) {
      *t.alloc_top = chunk + (long)nodes * own_cells; /* the rest, after the workers' own parts */
      cells[0].gen = gen;
    }
    rdsm_barrier();
    /* build */
    double p0 = rdsm_wtime();
    for (int q = 0; q < nodes; ++q)
      for (int d = 0; d < 3; ++d) {
        if (boxes[q].lo[d] < lo[d]) lo[d] = boxes[q].lo[d];
        if (boxes[q].hi[d] > hi[d]) hi[d] = boxes[q].hi[d];
      }
    tree_begin(&t, gen, lo, hi);
    if (job->zone) {
      for (long i = 0; i < n; ++i)
        if (in_zone(job->frame, bodies[i].pos, i, &job->zone[me], &job->zone[me + 1])) insert_body(&t, i);
    } else {
      for (long i = i0; i < i1; ++i) insert_body(&t, i);
    }
    rdsm_barrier();
    /* centres of mass */
    double p1 = rdsm_wtime();
    int nu = level2_cells(&t, units);
    for (int u = 0; u < nu; ++u) {
      if (link_maker(load_link(&t, units[u])) != me) continue;
      cofm_subtree(&t, units[u]);
      units_done++;
    }
    rdsm_barrier();
    if (me == 0) cofm_top(&t);
    rdsm_barrier();
    /* forces */
    double p2 = rdsm_wtime();
    for (long i = i0; i < i1; ++i) tree_accel(&t, i, a.theta, acc + (i - i0) * 3);
    rdsm_barrier();
    /* update */
    double p3 = rdsm_wtime();
    update_bodies(bodies, i0, i1, acc);
    double p4 = rdsm_wtime();
    tb += p1 - p0;
    tc += p2 - p1;
    tf += p3 - p2;
    tu += p4 - p3;
  }
  rdsm_barrier();
  if (node_thread0) job->t_parallel = rdsm_wtime() - t0;
  node_report *r = &job->reports[me];
  r->locks = t.locks;
  r->stale = t.stale;
  r->maker_syncs = t.maker_syncs;
  r->interactions = t.interactions;
  r->cofm_units = units_done;
  r->build_s = tb;
  r->cofm_s = tc;
  r->force_s = tf;
  r->update_s = tu;
  free(acc);
  free(t.synced);
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const char *prog = argc > 0 ? argv[0] : "barnes";
  bh_args a = parse_args(argc, argv);
  const int me = rdsm_rank(), nodes = rdsm_threads(); /* the workers */
  const int node_threads = rdsm_node_threads();
  char shape[64];
  app_shape(shape, sizeof shape);
  const long n = a.bodies;
  const size_t bytes = (size_t)n * sizeof(body);
  if (rdsm_lock_count() < 2) app_usage_exit(prog, kUsage, "needs at least 2 lock ids (--locks)");
  if (nodes > 0xffff) app_usage_exit(prog, kUsage, "at most 65535 workers (a link word names its maker in 16 bits)");

  long chunk = (long)(rdsm_page_size() / sizeof(cell));
  if (chunk < 8) chunk = 8;
  /* Plummer trees need about 0.5 N cells: each worker's own part holds one
   * per body of its block, twice what it needs on average, and the rest as
   * many again for a worker whose region is denser */
  const long own_cells = (n / nodes + chunk) / chunk * chunk;
  const long cap = chunk + (long)nodes * own_cells + n + 64 + (2 * (long)nodes + 1) * chunk;

  app_verdict verdict = app_verdict_create();
  body *bodies = (body *)rdsm_malloc_all(bytes, RDSM_PLACE_BLOCK);
  cell *cells = (cell *)rdsm_malloc_all((size_t)cap * sizeof(cell), RDSM_PLACE_DEFAULT);
  bbox_slot *boxes = (bbox_slot *)rdsm_malloc_all(sizeof(bbox_slot) * (size_t)nodes, RDSM_PLACE_DEFAULT);
  int64_t *alloc_top = (int64_t *)rdsm_malloc_all(rdsm_page_size(), RDSM_PLACE_DEFAULT);
  node_report *reports = (node_report *)rdsm_malloc_all(sizeof(node_report) * (size_t)nodes, RDSM_PLACE_DEFAULT);

  /* this node's bodies, written by its thread 0 (every worker's block is
   * ordered before its use by the workers' first barrier) */
  const long i0 = (long)((int64_t)n * me * node_threads / nodes);
  const long i1 = (long)((int64_t)n * (me + 1) * node_threads / nodes);
  body *init = (body *)malloc(bytes);
  if (!init || !init_bodies(init, n, a.seed, a.spatial)) {
    fprintf(stderr, "%s: node %d: out of memory\n", prog, me);
    exit(1);
  }
  memcpy(&bodies[i0], &init[i0], (size_t)(i1 - i0) * sizeof(body));
  /* The workers' zones: their blocks' ranges of the curve at the start. */
  const int workers = rdsm_threads();
  curve_frame frame;
  keyed_body *zone = NULL;
  if (a.spatial) {
    frame = curve_frame_of(init, n);
    zone = (keyed_body *)malloc(((size_t)workers + 1) * sizeof *zone);
    if (!zone) {
      fprintf(stderr, "%s: node %d: out of memory\n", prog, me);
      exit(1);
    }
    for (int w = 0; w < workers; ++w) {
      const long first = (long)((int64_t)n * w / workers);
      zone[w].key = w ? curve_key(&frame, init[first].pos) : 0;
      zone[w].index = first;
    }
    zone[workers].key = UINT64_MAX;
    zone[workers].index = n;
  }
  free(init);

  tree t;
  memset(&t, 0, sizeof t);
  t.cells = cells;
  t.cap = cap;
  t.bodies = bodies;
  t.shared = 1;
  t.chunk = chunk;
  t.alloc_top = (volatile int64_t *)alloc_top;
  t.lock_span = rdsm_lock_count() - 1;
  if (t.lock_span > 0xffff) t.lock_span = 0xffff; /* a lock id fits the 16 bits of a link word */

  bh_job job = {a, &t, boxes, reports, own_cells, 0.0, a.spatial ? &frame : NULL, zone};
  rdsm_run_threads(bh_worker, &job);
  free(zone);
  const double t_parallel = job.t_parallel;
  t.gen = (uint64_t)a.steps; /* the last step's tree, for the check */
  rdsm_get_stats(&reports[(size_t)me * (size_t)node_threads].st);
  rdsm_barrier();

  int pass = 1;
  if (me == 0) {
    body *ref = (body *)malloc(bytes);
    cell *rcells = (cell *)calloc((size_t)cap, sizeof(cell));
    double *racc = (double *)malloc((size_t)n * 3 * sizeof(double));
    unsigned char *seen = (unsigned char *)calloc((size_t)n, 1);
    if (!ref || !rcells || !racc || !seen) {
      printf("FAIL barnes: cannot allocate memory for the sequential check\n");
      pass = 0;
    } else {
      tree s;
      memset(&s, 0, sizeof s);
      s.cells = rcells;
      s.cap = cap;
      s.bodies = ref;
      s.shared = 0;
      s.chunk = cap;
      double ts = rdsm_wtime();
      if (!init_bodies(ref, n, a.seed, a.spatial)) {
        fprintf(stderr, "%s: node 0: out of memory for the sequential check\n", prog);
        exit(1);
      }
      sequential_run(&s, n, a.steps, a.theta, racc);
      double t_seq = rdsm_wtime() - ts;

      /* 1. bodies bit for bit */
      long bad = 0, first = 0;
      for (long i = 0; i < n; ++i)
        if (memcmp(&bodies[i], &ref[i], sizeof(body)) != 0 && bad++ == 0) first = i;
      /* 2. the last shared tree against the last sequential one */
      long tree_diff = 0, tcells = 0, tleaves = 0, missing = 0;
      if (a.steps > 0) {
        tree_diff = tree_compare(&t, 0, &s, 0, &tcells, &tleaves);
        missing = tree_leaf_check(&t, 0, seen, n);
        for (long i = 0; i < n; ++i) missing += seen[i] != 1;
      }
      /* 3. tree against direct forces at the final positions */
      double lo[3], hi[3];
      bounds(ref, 0, n, lo, hi);
      tree_begin(&s, (uint64_t)a.steps + 1, lo, hi);
      init_cell(&s, 0, 0);
      for (long i = 0; i < n; ++i) insert_body(&s, i);
      cofm_subtree(&s, 0);
      double worst = 0.0, sum2 = 0.0, amag2 = 0.0;
      long worst_i = 0;
      int ns = n < N_SAMPLES ? (int)n : N_SAMPLES;
      double (*samp)[2][3] = malloc(sizeof *samp * (size_t)ns);
      if (!samp) fatal("out of memory", ns, 0);
      for (int k = 0; k < ns; ++k) {
        long i = (long)((int64_t)n * k / ns);
        tree_accel(&s, i, a.theta, samp[k][0]);
        walk w;
        memset(&w, 0, sizeof w);
        w.self = i;
        memcpy(w.p, ref[i].pos, sizeof w.p);
        for (long j = 0; j < n; ++j)
          if (j != i) add_point(&w, ref[j].pos, ref[j].mass);
        memcpy(samp[k][1], w.acc, sizeof w.acc);
        for (int d = 0; d < 3; ++d) amag2 += w.acc[d] * w.acc[d];
      }
      /* error of a sample relative to its |a|, or to the samples' RMS |a| if
       * that is larger (near the centre |a| -> 0 while the terms do not) */
      double arms = ns > 0 ? sqrt(amag2 / ns) : 0.0;
      for (int k = 0; k < ns; ++k) {
        double e2 = 0.0, m2 = 0.0;
        for (int d = 0; d < 3; ++d) {
          e2 += (samp[k][0][d] - samp[k][1][d]) * (samp[k][0][d] - samp[k][1][d]);
          m2 += samp[k][1][d] * samp[k][1][d];
        }
        double ref_mag = sqrt(m2) > arms ? sqrt(m2) : arms;
        double e = ref_mag > 0.0 ? sqrt(e2) / ref_mag : sqrt(e2);
        sum2 += e * e;
        if (e > worst) { worst = e; worst_i = (long)((int64_t)n * k / ns); }
      }
      free(samp);
      double rms = ns > 0 ? sqrt(sum2 / ns) : 0.0;
      const double bound_each = 0.1, bound_rms = 0.03;

      uint64_t locks = 0, stale = 0, syncs = 0, inter = 0;
      for (int q = 0; q < nodes; ++q) {
        locks += reports[q].locks;
        stale += reports[q].stale;
        syncs += reports[q].maker_syncs;
        inter += reports[q].interactions;
      }
      double ke = kinetic(bodies, n);
      if (bad) {
        pass = 0;
        printf("FAIL barnes: %ld of %ld bodies differ from the sequential run; first body %ld: pos %.17g %.17g %.17g "
               "expected %.17g %.17g %.17g (%s, %ld steps)\n",
               bad, n, first, bodies[first].pos[0], bodies[first].pos[1], bodies[first].pos[2], ref[first].pos[0],
               ref[first].pos[1], ref[first].pos[2], shape, a.steps);
      } else if (tree_diff || missing) {
        pass = 0;
        printf("FAIL barnes: the shared tree of the last step differs from the sequential one in %ld places; "
               "%ld bodies missing or duplicated (%s)\n",
               tree_diff, missing, shape);
      } else if (!(worst <= bound_each && rms <= bound_rms)) {
        pass = 0;
        printf("FAIL barnes: tree forces too far from the direct sum: worst relative error %.3g (body %ld, bound %.3g), "
               "rms %.3g (bound %.3g), theta %g\n",
               worst, worst_i, bound_each, rms, bound_rms, a.theta);
      } else {
        printf("PASS barnes: %ld bodies, %ld steps, theta %g, order %s, %s, protocol %s, kinetic energy %.17g, "
               "bit-identical to sequential (bodies and last tree: %ld cells, %ld leaves), tree vs direct force "
               "(%d samples) worst %.3g rms %.3g, build locks %" PRIu64 " (stale views %" PRIu64
               ", makers' locks %" PRIu64 "), interactions/body/step %.1f, parallel %.6f s\n",
               n, a.steps, a.theta, a.spatial ? "space" : "random", shape, rdsm_protocol_name(), ke, tcells, tleaves, ns, worst, rms, locks, stale, syncs,
               a.steps > 0 ? (double)inter / (double)n / (double)a.steps : 0.0, t_parallel);
      }
      printf("barnes parallel %.6f s\n", t_parallel);
      printf("sequential %.6f s\n", t_seq);
      /* per node: its statistics, the phase times of its thread 0 and the
       * locks of all its threads */
      for (int q = 0; q < rdsm_nodes(); ++q) {
        const node_report *r0 = &reports[(size_t)q * (size_t)node_threads];
        uint64_t node_locks = 0;
        for (int k = 0; k < node_threads; ++k) node_locks += r0[k].locks;
        char label[96];
        snprintf(label, sizeof label,
                 "barnes node %d (build %.3f cofm %.3f force %.3f update %.3f s, locks %" PRIu64 ")", q, r0->build_s,
                 r0->cofm_s, r0->force_s, r0->update_s, node_locks);
        app_print_breakdown(stdout, label, &r0->st);
      }
      fflush(stdout);
      FILE *f = app_json_begin(prog, a.json, "barnes", pass);
      if (f) {
        fprintf(f,
                ", \"size\": \"%s\", \"bodies\": %ld, \"steps\": %ld, \"theta\": %.17g, \"order\": \"%s\", "
                "\"kinetic_energy\": %.17g, "
                "\"force_error_worst\": %.6g, \"force_error_rms\": %.6g, \"build_locks\": %" PRIu64
                ", \"stale_views\": %" PRIu64 ", \"makers_locks\": %" PRIu64 ", \"interactions\": %" PRIu64
                ", \"parallel_seconds\": %.9f, \"sequential_seconds\": %.9f, \"node_stats\": [",
                a.size, n, a.steps, a.theta, a.spatial ? "space" : "random", ke, worst, rms, locks, stale, syncs, inter, t_parallel, t_seq);
        for (int q = 0; q < rdsm_nodes(); ++q) {
          if (q) fprintf(f, ", ");
          app_json_stats(f, &reports[(size_t)q * (size_t)node_threads].st);
        }
        fprintf(f, "]");
        app_json_end(f, &reports[0].st);
      }
    }
    free(ref);
    free(rcells);
    free(racc);
    free(seen);
  }
  int status = app_verdict_publish(verdict, pass);
  rdsm_finalize();
  return status;
}
