/* Integer sort (NAS IS style bucket ranking) on shared memory.
 *
 * N keys in [0, B) are generated deterministically (each key a function of
 * the seed and its index: the mean of four uniform draws, so the
 * distribution is bell shaped as in NAS IS).  The key array is split into
 * contiguous blocks, one per node, homed where they are used ("node" here
 * and below is a worker: with --threads every compute thread of every node
 * is one, rdsm_run_threads, with its own block, row and counts).  Each of ITERS
 * iterations first changes two keys (key[it] = it, key[it + ITERS] = B - 1 - it,
 * written by the node owning them) and then ranks every key:
 *
 *   A  each node counts its own keys per bucket in private memory and copies
 *      the counts into its row of a shared NODES x B slot array;    barrier
 *   B  node j owns the bucket range [b0_j, b1_j): it walks its range bucket
 *      by bucket and node by node, replacing each count by the number of keys
 *      before it inside the range (an exclusive prefix sum in (bucket, node)
 *      order), and publishes the range total;                        barrier
 *   C  each node reads its own row of starts, adds the sum of the totals of
 *      the ranges before each bucket's range, and gives each of its keys, in
 *      index order, the next rank of its bucket.
 *
 * Ranks are thus a stable counting sort: keys ordered by value, ties by
 * global index.  Every node also folds its ranks of every iteration into a
 * private hash; at the end node 0 ranks the same keys sequentially in
 * private memory and checks that (1) the final shared ranks equal the
 * sequential ones exactly, (2) they are a permutation that sorts the keys
 * and (3) the hash of every iteration matches.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/app_util.h"
#include "rdsm.h"

static const char *kUsage =
    "[--size test|medium|paper] [-k KEYS] [-b BUCKETS] [-i ITERS] [--seed S] [--json FILE]\n"
    "  NAS-style integer sort: ranks KEYS keys in [0, BUCKETS) ITERS times.\n"
    "  sizes: test = 2^18 keys, 2^13 buckets, 10 iterations (default);\n"
    "         medium = 2^23 keys, 2^19 buckets, 400 iterations (about 15 s sequentially);\n"
    "         paper = 2^23 keys, 2^19 buckets, 10 iterations (NAS class A like; shared data\n"
    "         8*KEYS + 4*BUCKETS*NODES bytes, about 72 MiB at 4 nodes: fits the default 128M region\n"
    "         up to 16 nodes).  -k/-b/-i after --size override it.";

typedef struct is_args {
  long long keys, buckets, iters;
  uint64_t seed;
  const char *size;
  const char *json;
} is_args;

static is_args parse_args(int argc, char **argv) {
  is_args a = {1 << 18, 1 << 13, 10, 314159265, "test", NULL};
  app_args args = app_args_start(argc, argv, "is", kUsage);
  while (app_args_next(&args)) {
    if (app_arg_size(&args, &a.size)) { /* overrides -k/-b/-i given before it */
      if (!strcmp(a.size, "test")) {
        a.keys = 1 << 18; a.buckets = 1 << 13; a.iters = 10;
      } else if (!strcmp(a.size, "medium")) {
        a.keys = 1 << 23; a.buckets = 1 << 19; a.iters = 400;
      } else {
        a.keys = 1 << 23; a.buckets = 1 << 19; a.iters = 10;
      }
      continue;
    }
    if (app_arg_int(&args, "-k", 2, 1LL << 28, "key count", &a.keys)) { a.size = "custom"; continue; }
    if (app_arg_int(&args, "-b", 2, 1LL << 26, "bucket count", &a.buckets)) { a.size = "custom"; continue; }
    if (app_arg_int(&args, "-i", 1, 100000, "iteration count", &a.iters)) { a.size = "custom"; continue; }
    if (app_arg_u64(&args, "--seed", "seed", &a.seed)) continue;
    if (app_arg_string(&args, "--json", &a.json)) continue;
    app_arg_unknown(&args);
  }
  const char *prog = args.prog;
  if (2 * a.iters > a.keys) app_usage_exit(prog, kUsage, "need KEYS >= 2 * ITERS (%lld < %lld)", a.keys, 2 * a.iters);
  return a;
}

/* The initial key at index i: mean of four uniform draws in [0, B). */
static int32_t initial_key(uint64_t seed, long long i, long long b) {
  uint64_t h1 = app_hash4(seed, (uint64_t)i, 1, 0x15);
  uint64_t h2 = app_hash4(seed, (uint64_t)i, 2, 0x15);
  uint64_t s = (uint64_t)((h1 & 0xffffffffu) % (uint64_t)b) + (uint64_t)((h1 >> 32) % (uint64_t)b) +
               (uint64_t)((h2 & 0xffffffffu) % (uint64_t)b) + (uint64_t)((h2 >> 32) % (uint64_t)b);
  return (int32_t)(s / 4);
}

/* The keys changed at the start of iteration it (as NAS IS does). */
static void iteration_changes(long long it, long long iters, long long b, long long idx[2], int32_t val[2]) {
  idx[0] = it;
  val[0] = (int32_t)(it % b);
  idx[1] = it + iters;
  val[1] = (int32_t)(b - 1 - (it % b));
}

/* Order-sensitive hash of the ranks of keys [k0, k1). */
static uint64_t rank_hash(const int32_t *rank, long long k0, long long k1) {
  uint64_t h = 0;
  for (long long i = k0; i < k1; ++i) h += ((uint64_t)(uint32_t)rank[i] + 1) * (0x9E3779B97F4A7C15ull ^ (uint64_t)i * 0x100000001B3ull);
  return h;
}

/* Sequential counting-sort ranks, private memory.  count has b entries. */
static void rank_sequential(const int32_t *key, int32_t *rank, int32_t *count, long long n, long long b) {
  memset(count, 0, sizeof(int32_t) * (size_t)b);
  for (long long i = 0; i < n; ++i) count[key[i]]++;
  int32_t run = 0;
  for (long long k = 0; k < b; ++k) {
    int32_t c = count[k];
    count[k] = run;
    run += c;
  }
  for (long long i = 0; i < n; ++i) rank[i] = count[key[i]]++;
}

static long long split(long long total, int parts, int p) { return (long long)((__int128)total * p / parts); }

/* The parallel part, on every compute thread of every node (--threads):
 * the workers are the rdsm_threads() threads, numbered node-major, each
 * with its block of keys, its bucket range, its row of slots and its
 * private counts. */
typedef struct is_job {
  is_args a;
  int32_t *key, *rank, *slot;
  size_t row_elems;
  int64_t *range_total;
  uint64_t *hashes;
  double t_parallel; /* node thread 0's */
} is_job;

static void is_worker(void *arg) {
  is_job *job = (is_job *)arg;
  const is_args a = job->a;
  const int me = rdsm_thread_id(), nodes = rdsm_threads();
  const int node_thread0 = me % rdsm_node_threads() == 0;
  const long long n = a.keys, b = a.buckets;
  const size_t row_elems = job->row_elems;
  int32_t *key = job->key, *rank = job->rank, *slot = job->slot;
  int64_t *range_total = job->range_total;
  uint64_t *hashes = job->hashes;

  const long long k0 = split(n, nodes, me), k1 = split(n, nodes, me + 1);
  const long long b0 = split(b, nodes, me), b1 = split(b, nodes, me + 1);
  int32_t *count = (int32_t *)malloc(sizeof(int32_t) * (size_t)b);
  int32_t *start = (int32_t *)malloc(sizeof(int32_t) * (size_t)b);
  uint64_t *my_hash = (uint64_t *)calloc((size_t)a.iters, sizeof(uint64_t));
  if (!count || !start || !my_hash) {
    fprintf(stderr, "is: worker %d: out of private memory\n", me);
    exit(3);
  }
  for (long long i = k0; i < k1; ++i) key[i] = initial_key(a.seed, i, b);
  rdsm_barrier();

  if (node_thread0) rdsm_reset_stats();
  double t0 = rdsm_wtime();
  int32_t *myrow = slot + (size_t)me * row_elems;
  for (long long it = 0; it < a.iters; ++it) {
    long long idx[2];
    int32_t val[2];
    iteration_changes(it, a.iters, b, idx, val);
    for (int c = 0; c < 2; ++c)
      if (idx[c] >= k0 && idx[c] < k1) key[idx[c]] = val[c];
    /* A: private counts of my keys, copied into my row */
    memset(count, 0, sizeof(int32_t) * (size_t)b);
    for (long long i = k0; i < k1; ++i) count[key[i]]++;
    memcpy(myrow, count, sizeof(int32_t) * (size_t)b);
    rdsm_barrier();
    /* B: exclusive prefix over my bucket range in (bucket, node) order */
    int64_t run = 0;
    for (long long k = b0; k < b1; ++k)
      for (int q = 0; q < nodes; ++q) {
        int32_t *cell = slot + (size_t)q * row_elems + (size_t)k;
        int32_t c = *cell;
        *cell = (int32_t)run;
        run += c;
      }
    range_total[me] = run;
    rdsm_barrier();
    /* C: starts for my row = range base + start inside the range */
    memcpy(start, myrow, sizeof(int32_t) * (size_t)b);
    int64_t base = 0;
    for (int j = 0; j < nodes; ++j) {
      long long c0 = split(b, nodes, j), c1 = split(b, nodes, j + 1);
      for (long long k = c0; k < c1; ++k) start[k] += (int32_t)base;
      base += range_total[j];
    }
    for (long long i = k0; i < k1; ++i) rank[i] = start[key[i]]++;
    my_hash[it] = rank_hash(rank, k0, k1);
    /* the next iteration's first barrier orders these reads of my row and of
     * range_total before anyone writes them again */
  }
  rdsm_barrier();
  if (node_thread0) job->t_parallel = rdsm_wtime() - t0;
  memcpy(hashes + (size_t)me * (size_t)a.iters, my_hash, sizeof(uint64_t) * (size_t)a.iters);
  rdsm_barrier();
  free(count);
  free(start);
  free(my_hash);
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const char *prog = argc > 0 ? argv[0] : "is";
  is_args a = parse_args(argc, argv);
  const int me = rdsm_rank(), nodes = rdsm_threads(); /* the workers */
  char shape[64];
  app_shape(shape, sizeof shape);
  const long long n = a.keys, b = a.buckets;
  const size_t page = rdsm_page_size();

  app_verdict verdict = app_verdict_create();
  int32_t *key = (int32_t *)rdsm_malloc_all(sizeof(int32_t) * (size_t)n, RDSM_PLACE_BLOCK);
  int32_t *rank = (int32_t *)rdsm_malloc_all(sizeof(int32_t) * (size_t)n, RDSM_PLACE_BLOCK);
  /* Rows padded to whole pages so that each row is homed at its node. */
  size_t row_elems = ((sizeof(int32_t) * (size_t)b + page - 1) / page * page) / sizeof(int32_t);
  int32_t *slot = (int32_t *)rdsm_malloc_all(sizeof(int32_t) * row_elems * (size_t)nodes, RDSM_PLACE_BLOCK);
  int64_t *range_total = (int64_t *)rdsm_malloc_all(sizeof(int64_t) * (size_t)nodes, RDSM_PLACE_DEFAULT);
  uint64_t *hashes = (uint64_t *)rdsm_malloc_all(sizeof(uint64_t) * (size_t)nodes * (size_t)a.iters, RDSM_PLACE_DEFAULT);

  is_job job = {a, key, rank, slot, row_elems, range_total, hashes, 0.0};
  rdsm_run_threads(is_worker, &job);
  const double t_parallel = job.t_parallel;
  rdsm_stats st;
  rdsm_get_stats(&st);

  int pass = 1;
  if (me == 0) {
    int32_t *skey = (int32_t *)malloc(sizeof(int32_t) * (size_t)n);
    int32_t *srank = (int32_t *)malloc(sizeof(int32_t) * (size_t)n);
    int32_t *scount = (int32_t *)malloc(sizeof(int32_t) * (size_t)b);
    uint64_t *shash = (uint64_t *)malloc(sizeof(uint64_t) * (size_t)a.iters);
    if (!skey || !srank || !scount || !shash) {
      printf("FAIL is: cannot allocate private memory for the sequential check\n");
      pass = 0;
    } else {
      for (long long i = 0; i < n; ++i) skey[i] = initial_key(a.seed, i, b);
      double ts = rdsm_wtime(); /* like the parallel time: the iterations only */
      for (long long it = 0; it < a.iters; ++it) {
        long long idx[2];
        int32_t val[2];
        iteration_changes(it, a.iters, b, idx, val);
        skey[idx[0]] = val[0];
        skey[idx[1]] = val[1];
        rank_sequential(skey, srank, scount, n, b);
        shash[it] = 0;
        for (int q = 0; q < nodes; ++q) shash[it] += rank_hash(srank, split(n, nodes, q), split(n, nodes, q + 1));
      }
      double t_seq = rdsm_wtime() - ts;

      /* 1: exact equality of the final ranks (and keys) */
      long long bad_rank = 0, first_bad = -1, bad_key = 0;
      for (long long i = 0; i < n; ++i) {
        if (key[i] != skey[i]) bad_key++;
        if (rank[i] != srank[i] && bad_rank++ == 0) first_bad = i;
      }
      /* 2: the ranks are a permutation that sorts the keys */
      int32_t *sorted = (int32_t *)malloc(sizeof(int32_t) * (size_t)n);
      unsigned char *seen = (unsigned char *)calloc((size_t)n, 1);
      long long perm_bad = 0, order_bad = 0;
      if (!sorted || !seen) {
        perm_bad = -1;
      } else {
        for (long long i = 0; i < n; ++i) {
          int32_t r = rank[i];
          if (r < 0 || r >= n || seen[r]) { perm_bad++; continue; }
          seen[r] = 1;
          sorted[r] = key[i];
        }
        if (perm_bad == 0)
          for (long long r = 1; r < n; ++r) order_bad += sorted[r - 1] > sorted[r];
      }
      /* 3: every iteration's ranks */
      long long bad_iter = 0, first_bad_iter = -1;
      for (long long it = 0; it < a.iters; ++it) {
        uint64_t h = 0;
        for (int q = 0; q < nodes; ++q) h += hashes[(size_t)q * (size_t)a.iters + (size_t)it];
        if (h != shash[it] && bad_iter++ == 0) first_bad_iter = it;
      }
      pass = bad_rank == 0 && bad_key == 0 && perm_bad == 0 && order_bad == 0 && bad_iter == 0;
      uint64_t checksum = shash[a.iters - 1];
      if (pass) {
        printf("PASS is: %lld keys, %lld buckets, %lld iterations, %s, size %s, rank hash %016" PRIx64
               ", parallel %.6f s, sequential %.6f s\n",
               n, b, a.iters, shape, a.size, checksum, t_parallel, t_seq);
      } else {
        printf("FAIL is: %lld keys, %lld buckets, %lld iterations, %s: %lld keys and %lld ranks differ from the "
               "sequential run (first rank at index %lld: got %d expected %d), %lld ranks not a permutation, %lld "
               "order violations, %lld iterations with a wrong rank hash (first %lld)\n",
               n, b, a.iters, shape, bad_key, bad_rank, first_bad, first_bad >= 0 ? rank[first_bad] : 0,
               first_bad >= 0 ? srank[first_bad] : 0, perm_bad, order_bad, bad_iter, first_bad_iter);
      }
      printf("sequential %.6f s\n", t_seq);
      app_print_breakdown(stdout, "is node 0", &st);
      fflush(stdout);
      FILE *f = app_json_begin(prog, a.json, "is", pass);
      if (f) {
        fprintf(f,
                ", \"size\": \"%s\", \"keys\": %lld, \"buckets\": %lld, \"iterations\": %lld, \"seed\": %" PRIu64
                ", \"parallel_seconds\": %.9f, \"sequential_seconds\": %.9f",
                a.size, n, b, a.iters, a.seed, t_parallel, t_seq);
        app_json_end(f, &st);
      }
      free(sorted);
      free(seen);
    }
    free(skey);
    free(srank);
    free(scount);
    free(shash);
  }
  int status = app_verdict_publish(verdict, pass);
  rdsm_finalize();
  return status;
}
