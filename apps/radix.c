/* Parallel LSD radix sort of integer keys (SPLASH-2 style).
 *
 * N keys in [0, MAXKEY) are generated from a seed; node p owns the contiguous
 * chunk [N*p/P, N*(p+1)/P) of the source array.  ("Node" below is a worker:
 * with --threads every compute thread of every node is one, rdsm_run_threads,
 * with its own chunk and histogram row.)  Each pass sorts on r bits
 * (radix R = 2^r):
 *   1. every node counts the digits of its chunk into its own row of a shared
 *      histogram table (one page-aligned row per node);            barrier
 *   2. every node reads all rows and computes, in private memory, where its
 *      keys of each digit start in the destination: the keys of smaller
 *      digits (all nodes) plus the keys of the same digit on lower nodes;
 *   3. every node moves its keys, in order, into the shared destination
 *      array (a stable scatter; many nodes write into the same pages); barrier
 * and the arrays swap roles.  Because every pass is stable, the result does
 * not depend on the number of nodes.  With -i ITERATIONS the whole sort is
 * repeated on a fresh key set each iteration (iteration t's keys come from the
 * seed and t; every node regenerates its own chunk); the times are the sums
 * of the sorts, without the key generation.  Node 0 checks the last iteration's result against qsort() of the same keys
 * (sorted and a permutation of the input, exactly) and times the same
 * iterations of the radix sort done sequentially in private memory.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/app_util.h"
#include "rdsm.h"

static const char *kUsage =
    "[--size test|medium|paper] [-k KEYS] [-r RADIX] [-m MAXKEY] [-i ITERATIONS] [--seed S] [--json FILE]\n"
    "  parallel radix sort of KEYS 32-bit keys in [0, MAXKEY) with radix RADIX (a power of 2),\n"
    "  repeated ITERATIONS times, each time on a fresh key set (the times sum the sorts only).\n"
    "  sizes: test 262144 keys (default) and paper 2621440 keys (seed 000 Fig. 9), with\n"
    "         radix 1024 and MAXKEY 524288 (the SPLASH-2 defaults, 2 passes), 1 iteration;\n"
    "         medium 12582912 keys with MAXKEY 2^31 (4 passes), 60 iterations (about 15 s\n"
    "         sequentially); -k/-r/-m/-i override the size.  The last iteration is checked.\n"
    "  Shared memory used: about 8*KEYS bytes plus one page-aligned histogram row of 8*RADIX\n"
    "  bytes per node; every size above fits the default region (under --memory mprotect,\n"
    "  KEYS up to about 25 million).";

typedef struct radix_args {
  long long keys, radix, maxkey, iters;
  uint64_t seed;
  const char *size;
  const char *json;
} radix_args;

static radix_args parse_args(int argc, char **argv) {
  radix_args a = {262144, 1024, 524288, 1, 1, "test", NULL};
  long long k = -1, r = -1, mk = -1, it = -1;
  app_args args = app_args_start(argc, argv, "radix", kUsage);
  while (app_args_next(&args)) {
    if (app_arg_size(&args, &a.size)) continue;
    if (app_arg_int(&args, "-k", 1, 1LL << 31, "key count", &k)) continue;
    if (app_arg_int(&args, "-r", 2, 1LL << 20, "radix", &r)) {
      if (r & (r - 1)) app_arg_error(&args, "-r: bad radix '%s' (a power of 2, 2 .. 1048576)", args.val);
      continue;
    }
    if (app_arg_int(&args, "-m", 1, 1LL << 32, "maximum key", &mk)) continue;
    if (app_arg_int(&args, "-i", 1, 100000, "iteration count", &it)) continue;
    if (app_arg_u64(&args, "--seed", "seed", &a.seed)) continue;
    if (app_arg_string(&args, "--json", &a.json)) continue;
    app_arg_unknown(&args);
  }
  if (!strcmp(a.size, "test")) a.keys = 262144, a.maxkey = 524288, a.iters = 1;
  else if (!strcmp(a.size, "medium")) a.keys = 12582912, a.maxkey = 1LL << 31, a.iters = 60;
  else a.keys = 2621440, a.maxkey = 524288, a.iters = 1;
  if (k > 0 || r > 0 || mk > 0 || it > 0) a.size = "custom";
  if (k > 0) a.keys = k;
  if (r > 0) a.radix = r;
  if (mk > 0) a.maxkey = mk;
  if (it > 0) a.iters = it;
  return a;
}

/* Key i of iteration it's key set. */
static inline uint32_t gen_key(uint64_t seed, long long it, long long i, long long maxkey) {
  return (uint32_t)(app_hash4(seed, 0x5244ull, (uint64_t)i, (uint64_t)it) % (uint64_t)maxkey);
}

static int cmp_u32(const void *x, const void *y) {
  uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
  return (a > b) - (a < b);
}

/* One sequential stable counting pass (for the sequential timing). */
static void seq_pass(const uint32_t *src, uint32_t *dst, size_t n, int shift, uint32_t mask, int64_t *cnt,
                     long long radix) {
  memset(cnt, 0, sizeof(int64_t) * (size_t)radix);
  for (size_t i = 0; i < n; ++i) ++cnt[(src[i] >> shift) & mask];
  int64_t s = 0;
  for (long long d = 0; d < radix; ++d) {
    int64_t c = cnt[d];
    cnt[d] = s;
    s += c;
  }
  for (size_t i = 0; i < n; ++i) dst[cnt[(src[i] >> shift) & mask]++] = src[i];
}

/* The parallel part, on every compute thread of every node (--threads):
 * the workers are the rdsm_threads() threads, numbered node-major, each
 * with its chunk of the keys and its row of the histogram. */
typedef struct radix_job {
  radix_args a;
  int passes, rbits;
  uint32_t mask;
  uint32_t *k0, *k1;
  int64_t *hist;
  size_t row;       /* histogram row length (int64s, page aligned) */
  uint32_t *result; /* the array holding the sorted keys */
  double t_parallel;
} radix_job;

static void radix_worker(void *arg) {
  radix_job *job = (radix_job *)arg;
  const radix_args a = job->a;
  const int me = rdsm_thread_id(), workers = rdsm_threads();
  const size_t n = (size_t)a.keys, row = job->row;
  const long long R = a.radix;
  const int rbits = job->rbits;
  const uint32_t mask = job->mask;
  uint32_t *k0 = job->k0, *k1 = job->k1;
  int64_t *hist = job->hist;

  size_t lo = (size_t)((unsigned long long)n * (unsigned long long)me / (unsigned long long)workers);
  size_t hi = (size_t)((unsigned long long)n * (unsigned long long)(me + 1) / (unsigned long long)workers);
  int64_t *myhist = hist + row * (size_t)me;
  memset(myhist, 0, row * sizeof(int64_t)); /* first touch: my row is homed at my node */
  int64_t *offs = (int64_t *)malloc(sizeof(int64_t) * (size_t)R);
  if (!offs) {
    fprintf(stderr, "radix: worker %d: out of memory\n", me);
    exit(1);
  }

  /* each node's statistics cover every iteration, key generation included */
  const int node_thread0 = me % rdsm_node_threads() == 0;
  double t_parallel = 0.0;
  uint32_t *src = k0, *dst = k1;
  for (long long it = 0; it < a.iters; ++it) {
    /* this iteration's keys: my chunk of k0 (the previous iteration's last
     * barrier ordered everyone's reads of it before these writes) */
    for (size_t i = lo; i < hi; ++i) k0[i] = gen_key(a.seed, it, (long long)i, a.maxkey);
    rdsm_barrier();
    if (it == 0 && node_thread0) rdsm_reset_stats();
    double t0 = rdsm_wtime();
    src = k0;
    dst = k1;
    for (int p = 0; p < job->passes; ++p) {
      int shift = p * rbits;
      /* 1. local histogram (counted privately, then written to my row) */
      memset(offs, 0, sizeof(int64_t) * (size_t)R);
      for (size_t i = lo; i < hi; ++i) ++offs[(src[i] >> shift) & mask];
      memcpy(myhist, offs, sizeof(int64_t) * (size_t)R);
      rdsm_barrier();
      /* 2. global prefix: start of my keys of digit d in dst */
      int64_t before = 0; /* keys of all workers with a smaller digit */
      for (long long d = 0; d < R; ++d) {
        int64_t lower = 0, total = 0;
        for (int q = 0; q < workers; ++q) {
          int64_t c = hist[row * (size_t)q + (size_t)d];
          if (q < me) lower += c;
          total += c;
        }
        offs[d] = before + lower;
        before += total;
      }
      /* 3. stable scatter */
      for (size_t i = lo; i < hi; ++i) {
        uint32_t key = src[i];
        dst[offs[(key >> shift) & mask]++] = key;
      }
      rdsm_barrier();
      uint32_t *t = src;
      src = dst;
      dst = t;
    }
    t_parallel += rdsm_wtime() - t0;
  }
  free(offs);
  if (node_thread0) {
    job->t_parallel = t_parallel;
    job->result = src;
  }
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const char *prog = argc > 0 ? argv[0] : "radix";
  radix_args a = parse_args(argc, argv);
  const int me = rdsm_rank(), workers = rdsm_threads();
  char shape[64];
  app_shape(shape, sizeof shape);
  const size_t n = (size_t)a.keys;
  const long long R = a.radix;
  int rbits = 0;
  while ((1LL << rbits) < R) ++rbits;
  int keybits = 0;
  while (keybits < 32 && ((a.maxkey - 1) >> keybits) != 0) ++keybits;
  if (keybits == 0) keybits = 1;
  const int passes = (keybits + rbits - 1) / rbits;
  const uint32_t mask = (uint32_t)(R - 1);

  app_verdict verdict = app_verdict_create();
  size_t page = rdsm_page_size();
  size_t row = ((size_t)R * sizeof(int64_t) + page - 1) / page * page / sizeof(int64_t);
  radix_job job = {a, passes, rbits, mask, NULL, NULL, NULL, row, NULL, 0.0};
  job.k0 = (uint32_t *)rdsm_malloc_all(n * sizeof(uint32_t), RDSM_PLACE_BLOCK);
  job.k1 = (uint32_t *)rdsm_malloc_all(n * sizeof(uint32_t), RDSM_PLACE_BLOCK);
  /* one histogram row per worker */
  job.hist = (int64_t *)rdsm_malloc_all(row * sizeof(int64_t) * (size_t)workers, RDSM_PLACE_FIRST_TOUCH);
  rdsm_run_threads(radix_worker, &job);
  const double t_parallel = job.t_parallel;
  const uint32_t *src = job.result;
  rdsm_stats st;
  rdsm_get_stats(&st);

  int pass = 1;
  if (me == 0) {
    uint32_t *ref = (uint32_t *)malloc(n * sizeof(uint32_t));
    uint32_t *seq = (uint32_t *)malloc(n * sizeof(uint32_t));
    uint32_t *tmp = (uint32_t *)malloc(n * sizeof(uint32_t));
    int64_t *cnt = (int64_t *)malloc(sizeof(int64_t) * (size_t)R);
    if (!ref || !seq || !tmp || !cnt) {
      printf("FAIL radix: cannot allocate memory for the sequential check\n");
      pass = 0;
    } else {
      /* the sequential equivalent: the same iterations and passes in private memory */
      double t_seq = 0.0;
      uint32_t *s0 = seq, *s1 = tmp;
      for (long long it = 0; it < a.iters; ++it) {
        for (size_t i = 0; i < n; ++i) seq[i] = gen_key(a.seed, it, (long long)i, a.maxkey);
        double ts = rdsm_wtime();
        s0 = seq;
        s1 = tmp;
        for (int p = 0; p < passes; ++p) {
          seq_pass(s0, s1, n, p * rbits, mask, cnt, R);
          uint32_t *t = s0;
          s0 = s1;
          s1 = t;
        }
        t_seq += rdsm_wtime() - ts;
      }
      for (size_t i = 0; i < n; ++i) ref[i] = gen_key(a.seed, a.iters - 1, (long long)i, a.maxkey);
      qsort(ref, n, sizeof(uint32_t), cmp_u32);
      int seq_ok = memcmp(s0, ref, n * sizeof(uint32_t)) == 0;
      /* reading the shared result fetches every node's part */
      uint64_t checksum = 0;
      for (size_t i = 0; i < n; ++i) checksum = checksum * 31 + src[i];
      size_t bad = 0, first = 0, unsorted = 0;
      for (size_t i = 0; i < n; ++i) {
        if (src[i] != ref[i] && bad++ == 0) first = i;
        if (i && src[i - 1] > src[i]) ++unsorted;
      }
      if (!seq_ok) {
        pass = 0;
        printf("FAIL radix: the sequential radix sort disagrees with qsort\n");
      } else if (bad) {
        pass = 0;
        printf("FAIL radix: %zu of %zu keys differ from qsort of the input (%zu descents); first at %zu: got %u "
               "expected %u (%s, radix %lld, maxkey %lld, last of %lld iterations)\n",
               bad, n, unsorted, first, (unsigned)src[first], (unsigned)ref[first], shape, R, a.maxkey, a.iters);
      } else {
        printf("PASS radix: %zu keys < %lld, radix %lld, %d passes, %lld iterations, %s, size %s, "
               "checksum %016llx, parallel %.6f s\n",
               n, a.maxkey, R, passes, a.iters, shape, a.size, (unsigned long long)checksum, t_parallel);
      }
      app_print_times("radix", t_parallel, t_seq, &st);
      FILE *f = app_json_begin(prog, a.json, "radix", pass);
      if (f) {
        fprintf(f,
                ", \"size\": \"%s\", \"keys\": %zu, \"radix\": %lld, \"maxkey\": %lld, \"passes\": %d, "
                "\"iterations\": %lld, \"seed\": %llu, \"parallel_seconds\": %.9f, \"sequential_seconds\": %.9f",
                a.size, n, R, a.maxkey, passes, a.iters, (unsigned long long)a.seed, t_parallel, t_seq);
        app_json_end(f, &st);
      }
    }
    free(ref);
    free(seq);
    free(tmp);
    free(cnt);
  }
  int status = app_verdict_publish(verdict, pass);
  rdsm_finalize();
  return status;
}
