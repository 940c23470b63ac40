/* Traveling salesman by branch and bound with a shared work queue
 * (TreadMarks style).
 *
 * C cities get integer coordinates in a 1000 x 1000 square from a
 * deterministic generator (--seed); the distance is the rounded Euclidean
 * distance.  Every node computes the distance matrix privately (it is
 * read-only).  Tours start and end at city 0.
 *
 * Shared state:
 *   - a stack of partial tours with a count of nodes busy expanding one,
 *     protected by lock QUEUE_LOCK;
 *   - the best tour length and the tour, protected by lock BEST_LOCK.
 * A node (a worker: with --threads every compute thread of every node is
 * one, rdsm_run_threads, with its own private search state) takes a partial
 * tour under the queue lock, then reads the best
 * length under the best lock into a private bound (a private search also
 * exchanges it under that lock when it finds a better tour and every 8192
 * search nodes).  A tour with fewer than
 * DEPTH cities is expanded: each child whose lower bound is below the bound
 * is pushed back (nearest city last, so it is taken first).  A deeper tour
 * is solved recursively in private memory; a better complete tour is
 * written under the best lock.  The job ends when the stack is empty and no
 * node is expanding.
 *
 * The lower bound of a partial tour ending at city l is its length plus
 * either (--bound edge, default) the cheapest edge leaving l and each
 * unvisited city towards a city the tour may still go to, or (--bound mst)
 * the weight of a minimum spanning tree over {l, 0} and the unvisited cities
 * (the rest of the tour is a Hamiltonian path from l to 0 through them).
 * Both the parallel run and the sequential check start from the same
 * nearest-neighbour tour as the initial bound.
 *
 * Node 0 checks that the optimal length equals the one found by a
 * sequential branch and bound in private memory, and that the reported tour
 * is a permutation of the cities whose length is that optimum.
 */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/app_util.h"
#include "rdsm.h"

#define MAX_CITIES 32
#define QUEUE_LOCK 1
#define BEST_LOCK 2

static const char *kUsage =
    "[--size test|medium|paper] [-c CITIES] [--seed S] [--depth D] [--bound mst|edge] [--json FILE]\n"
    "  branch and bound TSP with a shared work queue of partial tours.\n"
    "  sizes: test = 16 cities (default), medium = 20 cities with seed 4, paper = 20 cities\n"
    "  (seed 000 Fig. 9 \"large\"); the other sizes use seed 1.  Medium searches longer than paper:\n"
    "  about 15 s against 2 s sequentially (21 cities with seed 1 take about 8 s, 22 about 32 s).\n"
    "  -c/--seed override the size.\n"
    "  CITIES 3 .. 32; partial tours with fewer than D cities (default 4, at most CITIES) are\n"
    "  expanded through the queue, deeper ones solved privately.\n"
    "  --bound: lower bound of a partial tour: the sum of the cheapest edges leaving the\n"
    "  remaining cities (edge, default: TreadMarks-like amount of search) or a minimum\n"
    "  spanning tree (mst: far less search, 20 cities in about 0.02 s).";

typedef struct tsp_args {
  long long cities, depth;
  int bound;
  uint64_t seed;
  const char *size;
  const char *json;
} tsp_args;

static tsp_args parse_args(int argc, char **argv) {
  tsp_args a = {16, 4, 1, 1, "test", NULL};
  uint64_t size_seed = 1;
  int seed_given = 0;
  app_args args = app_args_start(argc, argv, "tsp", kUsage);
  while (app_args_next(&args)) {
    if (app_arg_size(&args, &a.size)) {
      if (!strcmp(a.size, "test")) a.cities = 16, size_seed = 1;
      else if (!strcmp(a.size, "medium")) a.cities = 20, size_seed = 4;
      else a.cities = 20, size_seed = 1;
      continue;
    }
    if (app_arg_int(&args, "-c", 3, MAX_CITIES, "city count", &a.cities)) {
      a.size = "custom";
      continue;
    }
    if (app_arg_int(&args, "--depth", 1, MAX_CITIES, "depth", &a.depth)) continue;
    if (!strcmp(args.opt, "--bound")) {
      if (!strcmp(args.val, "mst")) a.bound = 0;
      else if (!strcmp(args.val, "edge")) a.bound = 1;
      else app_arg_error(&args, "--bound: '%s' is not mst or edge", args.val);
      continue;
    }
    if (app_arg_u64(&args, "--seed", "seed", &a.seed)) {
      seed_given = 1;
      continue;
    }
    if (app_arg_string(&args, "--json", &a.json)) continue;
    app_arg_unknown(&args);
  }
  if (!seed_given) a.seed = size_seed;
  if (a.depth > a.cities) a.depth = a.cities;
  return a;
}

/* ---- problem (private, identical on every node) ------------------------- */

static int nc;
static int bound_kind; /* 0: MST, 1: cheapest edges (weaker, more search; default) */
static int dist[MAX_CITIES][MAX_CITIES];
static int order[MAX_CITIES][MAX_CITIES]; /* order[c]: other cities by distance from c */

static void make_cities(uint64_t seed) {
  int x[MAX_CITIES], y[MAX_CITIES];
  uint64_t s = seed ^ 0x7473707473707370ull;
  for (int i = 0; i < nc; ++i) {
    uint64_t r = app_splitmix64(&s);
    x[i] = (int)((r & 0xffffffffu) % 1000);
    y[i] = (int)((r >> 32) % 1000);
  }
  for (int i = 0; i < nc; ++i)
    for (int j = 0; j < nc; ++j) {
      double dx = x[i] - x[j], dy = y[i] - y[j];
      dist[i][j] = (int)(sqrt(dx * dx + dy * dy) + 0.5);
    }
  for (int i = 0; i < nc; ++i) {
    int k = 0;
    for (int j = 0; j < nc; ++j)
      if (j != i) order[i][k++] = j;
    for (int p = 1; p < k; ++p) { /* insertion sort, ties by index */
      int v = order[i][p], q = p - 1;
      while (q >= 0 && (dist[i][order[i][q]] > dist[i][v] || (dist[i][order[i][q]] == dist[i][v] && order[i][q] > v))) {
        order[i][q + 1] = order[i][q];
        --q;
      }
      order[i][q + 1] = v;
    }
  }
}

/* A partial tour: path[0] = 0, path[0 .. depth) distinct. */
typedef struct tour {
  int32_t len, depth;
  uint32_t visited; /* bit c: city c is on the path */
  int8_t path[MAX_CITIES];
} tour;

/* length + MST over {last, 0} and the unvisited cities */
static int lower_bound(const tour *t) {
  int last = t->path[t->depth - 1];
  if (t->depth == nc) return t->len + dist[last][0];
  if (bound_kind == 1) {
    /* every unvisited city and the last one leave by an edge to an unvisited
     * city or (not from last) to city 0: sum of the cheapest such edges */
    int total = 0;
    uint32_t rest = t->visited;
    for (int u = 0; u < nc; ++u) {
      if (u == 0 || (u != last && (rest >> u & 1u))) continue;
      int m = INT_MAX;
      for (int v = 0; v < nc; ++v) {
        if (v == u || (v != 0 && (rest >> v & 1u))) continue;
        if (v == 0 && u == last && t->depth < nc) continue;
        if (dist[u][v] < m) m = dist[u][v];
      }
      total += m;
    }
    return t->len + total;
  }
  int in[MAX_CITIES], best[MAX_CITIES], m = 0;
  for (int c = 1; c < nc; ++c)
    if (!(t->visited >> c & 1u)) in[m++] = c;
  in[m++] = 0;
  /* Prim from last */
  for (int i = 0; i < m; ++i) best[i] = dist[last][in[i]];
  int total = 0;
  while (m > 0) {
    int bi = 0;
    for (int i = 1; i < m; ++i)
      if (best[i] < best[bi]) bi = i;
    total += best[bi];
    int c = in[bi];
    in[bi] = in[m - 1];
    best[bi] = best[m - 1];
    --m;
    for (int i = 0; i < m; ++i)
      if (dist[c][in[i]] < best[i]) best[i] = dist[c][in[i]];
  }
  return t->len + total;
}

static void extend(tour *t, int c) {
  t->len += dist[t->path[t->depth - 1]][c];
  t->path[t->depth++] = (int8_t)c;
  t->visited |= 1u << c;
}

/* Private search state */
typedef struct search {
  int best_len;
  int8_t best_path[MAX_CITIES];
  int improved; /* found a better tour since last published */
  uint64_t nodes_visited;
} search;

/* Shared best tour (NULL in the sequential run): a private search exchanges
 * its bound with it under BEST_LOCK when it finds a better tour and every
 * SYNC_EVERY search nodes, so that nodes deep in long subtrees learn better
 * bounds found elsewhere. */
typedef struct best_rec best_rec;
static best_rec *shared_best;
static void sync_best(search *s);
#define SYNC_EVERY 8192

static void solve(tour *t, search *s) {
  s->nodes_visited++;
  if (shared_best && (s->nodes_visited % SYNC_EVERY) == 0) sync_best(s);
  if (t->depth == nc) {
    int total = t->len + dist[t->path[nc - 1]][0];
    if (total < s->best_len) {
      s->best_len = total;
      memcpy(s->best_path, t->path, sizeof t->path);
      s->improved = 1;
      if (shared_best) sync_best(s);
    }
    return;
  }
  int last = t->path[t->depth - 1];
  for (int k = 0; k < nc - 1; ++k) {
    int c = order[last][k];
    if (c == 0 || (t->visited >> c & 1u)) continue;
    tour child = *t;
    extend(&child, c);
    if (lower_bound(&child) >= s->best_len) continue;
    solve(&child, s);
  }
}

/* Nearest-neighbour tour as the initial bound (same on every node). */
static void initial_tour(search *s) {
  tour t = {0, 1, 1u, {0}};
  while (t.depth < nc) {
    int last = t.path[t.depth - 1];
    for (int k = 0; k < nc - 1; ++k) {
      int c = order[last][k];
      if (c != 0 && !(t.visited >> c & 1u)) {
        extend(&t, c);
        break;
      }
    }
  }
  s->best_len = t.len + dist[t.path[nc - 1]][0];
  memcpy(s->best_path, t.path, sizeof t.path);
  s->improved = 0;
  s->nodes_visited = 0;
}

/* ---- shared state ------------------------------------------------------- */

typedef struct queue_head {
  int32_t count;  /* tours on the stack */
  int32_t busy;   /* nodes expanding a tour they took */
  int32_t capacity;
  int32_t pad;
  uint64_t taken; /* statistics: tours taken */
} queue_head;

struct best_rec {
  int32_t len;
  int32_t pad;
  int8_t path[MAX_CITIES];
};

/* Under BEST_LOCK: publish my tour if better, take the shared one if better. */
static void sync_best(search *s) {
  rdsm_lock(BEST_LOCK);
  if (s->improved && s->best_len < shared_best->len) {
    shared_best->len = s->best_len;
    memcpy(shared_best->path, s->best_path, sizeof shared_best->path);
  }
  s->improved = 0;
  if (shared_best->len < s->best_len) {
    s->best_len = shared_best->len;
    memcpy(s->best_path, shared_best->path, sizeof s->best_path);
  }
  rdsm_unlock(BEST_LOCK);
}

static void nap(void) {
  struct timespec ts = {0, 50000};
  nanosleep(&ts, NULL);
}

/* The parallel search, on every compute thread of every node (--threads):
 * the workers are the rdsm_threads() threads, each with its own private
 * search state and bound; the queue's busy count counts workers. */
typedef struct tsp_job {
  tsp_args a;
  queue_head *qh;
  tour *stack;
  best_rec *best;
  uint64_t *visited; /* search nodes of each worker */
  int32_t capacity;
  double t_parallel; /* node thread 0's */
} tsp_job;

static void tsp_worker(void *arg) {
  tsp_job *job = (tsp_job *)arg;
  const tsp_args a = job->a;
  const int me = rdsm_thread_id();
  const int node_thread0 = me % rdsm_node_threads() == 0;
  const int32_t capacity = job->capacity;
  queue_head *qh = job->qh;
  tour *stack = job->stack;
  best_rec *best = job->best;
  uint64_t *visited = job->visited;

  search s;
  initial_tour(&s);
  if (me == 0) {
    qh->capacity = capacity;
    tour root = {0, 1, 1u, {0}};
    stack[0] = root;
    qh->count = 1;
    best->len = s.best_len;
    memcpy(best->path, s.best_path, sizeof best->path);
  }
  rdsm_barrier();

  if (node_thread0) rdsm_reset_stats();
  double t0 = rdsm_wtime();
  uint64_t taken = 0;
  int holding = 0; /* I counted myself busy */
  for (;;) {
    tour t = {0, 0, 0, {0}};
    int got = 0, done = 0;
    rdsm_lock(QUEUE_LOCK);
    if (holding) {
      qh->busy--;
      holding = 0;
    }
    if (qh->count > 0) {
      t = stack[--qh->count];
      qh->busy++;
      qh->taken++;
      holding = 1;
      got = 1;
    } else if (qh->busy == 0) {
      done = 1;
    }
    rdsm_unlock(QUEUE_LOCK);
    if (done) break;
    if (!got) {
      nap();
      continue;
    }
    taken++;
    /* refresh the private bound, publishing mine if better */
    sync_best(&s);
    if (lower_bound(&t) >= s.best_len) continue;
    if (t.depth < a.depth && t.depth < nc) {
      /* expand: children pushed farthest first so the nearest is taken first */
      tour kids[MAX_CITIES];
      int nk = 0;
      int last = t.path[t.depth - 1];
      for (int k = nc - 2; k >= 0; --k) {
        int c = order[last][k];
        if (c == 0 || (t.visited >> c & 1u)) continue;
        tour child = t;
        extend(&child, c);
        if (lower_bound(&child) < s.best_len) kids[nk++] = child;
      }
      s.nodes_visited++;
      int overflow_from = nk;
      rdsm_lock(QUEUE_LOCK);
      int room = qh->capacity - qh->count;
      if (nk > room) overflow_from = room;
      for (int i = 0; i < overflow_from; ++i) stack[qh->count++] = kids[i];
      qh->busy--;
      holding = 0;
      rdsm_unlock(QUEUE_LOCK);
      /* no room: solve the rest privately, nearest first */
      for (int i = nk - 1; i >= overflow_from; --i)
        if (lower_bound(&kids[i]) < s.best_len) solve(&kids[i], &s);
    } else {
      solve(&t, &s);
    }
    if (s.improved) sync_best(&s);
  }
  rdsm_barrier();
  if (node_thread0) job->t_parallel = rdsm_wtime() - t0;
  visited[me] = s.nodes_visited;
  rdsm_barrier();
  (void)taken;
}


int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const char *prog = argc > 0 ? argv[0] : "tsp";
  tsp_args a = parse_args(argc, argv);
  const int me = rdsm_rank(), nodes = rdsm_threads(); /* the workers */
  char shape[64];
  app_shape(shape, sizeof shape);
  nc = (int)a.cities;
  bound_kind = a.bound;
  make_cities(a.seed);

  app_verdict verdict = app_verdict_create();
  const int32_t capacity = 1 << 16;
  queue_head *qh = (queue_head *)rdsm_malloc_all(sizeof(queue_head), RDSM_PLACE_DEFAULT);
  tour *stack = (tour *)rdsm_malloc_all(sizeof(tour) * (size_t)capacity, RDSM_PLACE_DEFAULT);
  best_rec *best = (best_rec *)rdsm_malloc_all(sizeof(best_rec), RDSM_PLACE_DEFAULT);
  uint64_t *visited = (uint64_t *)rdsm_malloc_all(sizeof(uint64_t) * (size_t)nodes, RDSM_PLACE_DEFAULT);

  tsp_job job = {a, qh, stack, best, visited, capacity, 0.0};
  /* the workers exchange bounds through it; the sequential check below searches alone */
  shared_best = best;
  rdsm_run_threads(tsp_worker, &job);
  shared_best = NULL;
  const double t_parallel = job.t_parallel;
  rdsm_stats st;
  rdsm_get_stats(&st);

  int pass = 1;
  if (me == 0) {
    double ts = rdsm_wtime();
    search seq;
    initial_tour(&seq);
    tour root = {0, 1, 1u, {0}};
    solve(&root, &seq);
    double t_seq = rdsm_wtime() - ts;

    int len = best->len;
    int8_t path[MAX_CITIES];
    memcpy(path, best->path, sizeof path);
    uint32_t seen = 0;
    int perm_ok = path[0] == 0, plen = 0;
    for (int i = 0; i < nc; ++i) {
      int c = path[i];
      if (c < 0 || c >= nc || (seen >> c & 1u)) {
        perm_ok = 0;
        break;
      }
      seen |= 1u << c;
      plen += dist[c][path[(i + 1) % nc]];
    }
    uint64_t total_visited = 0;
    for (int q = 0; q < nodes; ++q) total_visited += visited[q];
    pass = perm_ok && plen == len && len == seq.best_len;
    char tourbuf[4 * MAX_CITIES + 8];
    size_t off = 0;
    for (int i = 0; i < nc && off + 5 < sizeof tourbuf; ++i)
      off += (size_t)snprintf(tourbuf + off, sizeof tourbuf - off, "%s%d", i ? "-" : "", perm_ok ? path[i] : -1);
    if (pass) {
      printf("PASS tsp: %d cities, seed %" PRIu64 ", depth %lld, bound %s, %s, size %s, optimal length %d, tour %s, "
             "parallel %.6f s, sequential %.6f s (search nodes parallel %" PRIu64 ", sequential %" PRIu64
             ", queue tours %" PRIu64 ")\n",
             nc, a.seed, a.depth, a.bound ? "edge" : "mst", shape, a.size, len, tourbuf, t_parallel, t_seq, total_visited, seq.nodes_visited,
             qh->taken);
    } else {
      printf("FAIL tsp: %d cities, seed %" PRIu64 ", %s: parallel best length %d, tour %s (%s, its length %d), "
             "sequential optimum %d\n",
             nc, a.seed, shape, len, tourbuf, perm_ok ? "a permutation" : "NOT a permutation of the cities", plen,
             seq.best_len);
    }
    printf("sequential %.6f s\n", t_seq);
    app_print_breakdown(stdout, "tsp node 0", &st);
    fflush(stdout);
    FILE *f = app_json_begin(prog, a.json, "tsp", pass);
    if (f) {
      fprintf(f,
              ", \"size\": \"%s\", \"cities\": %d, \"seed\": %" PRIu64 ", \"depth\": %lld, \"bound\": \"%s\", "
              "\"optimal_length\": %d, \"sequential_length\": %d, \"parallel_seconds\": %.9f, "
              "\"sequential_seconds\": %.9f",
              a.size, nc, a.seed, a.depth, a.bound ? "edge" : "mst", len, seq.best_len, t_parallel, t_seq);
      app_json_end(f, &st);
    }
  }
  int status = app_verdict_publish(verdict, pass);
  rdsm_finalize();
  return status;
}
