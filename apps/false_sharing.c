/* False sharing: every node updates small variables of its own that sit
 * side by side in one page.
 *
 * Node 0 allocates V records, one small block per node each (the
 * counters of record v, one per node, side by side), and starts each
 * record on a page of its own: the layout of an array of per-node results
 * indexed by node in its inner dimension.  Each node then adds 1 to its own
 * counter of each record in turn, ITERS times, with W steps of private computation
 * (a random number generator) before each update, as a program computes
 * between its updates of shared results.  In R rounds: after each, every node
 * reads every counter and checks it holds exactly what its owner has added
 * so far.
 *
 * The counters are allocated with rdsm_malloc_minipage.  At page
 * granularity (RDSM_MINIPAGES=off, or a release-consistency protocol) the
 * blocks share a page: under sc the page moves between the nodes at
 * nearly every write (under the HLRC presets diffs merge the writes).
 * With minipages (--protocol sc, RDSM_MINIPAGES=on or explicit) each
 * counter is a minipage of its own, with its own protection, and a node
 * writing its own counters takes no fault after the first.
 *
 * Prints PASS with the number of distinct pages the counters are seen
 * through and whether any holds counters of several nodes, the loop time
 * and the sum of the counters (nodes * V * ITERS).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/app_util.h"
#include "rdsm.h"

static const char *kUsage = "[--vars V] [--iters N] [--work W] [--rounds R]\n"
                            "  each node adds 1 to each of its V (default 4) small counters N (default 20000)\n"
                            "  times, after W (default 200) steps of private computation each time; the\n"
                            "  nodes' v-th counters are neighbours in the v-th page.  After each of R (default 10)\n"
                            "  rounds every node checks every counter.";

enum { kMaxVars = 64 };
static volatile uint64_t g_sink;

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank(), nodes = rdsm_nodes();
  long long vars = 4, iters = 20000, work = 200, rounds = 10;
  app_args a = app_args_start(argc, argv, "false_sharing", kUsage);
  while (app_args_next(&a)) {
    if (app_arg_int(&a, "--vars", 1, kMaxVars, "number of counters per node", &vars)) continue;
    if (app_arg_int(&a, "--iters", 1, 1LL << 32, "number of iterations", &iters)) continue;
    if (app_arg_int(&a, "--work", 0, 1LL << 30, "number of private steps per update", &work)) continue;
    if (app_arg_int(&a, "--rounds", 1, 1LL << 20, "number of rounds", &rounds)) continue;
    app_arg_unknown(&a);
  }
  if (rounds > iters) app_usage_exit(a.prog, kUsage, "--rounds %lld: more rounds than iterations (%lld)", rounds, iters);
  const long long total = (long long)nodes * vars;

  /* The table of counter pointers, then the counters, all allocated by node 0. */
  volatile uint64_t **table = rdsm_malloc_all(sizeof(uint64_t *) * (size_t)total, RDSM_PLACE_DEFAULT);
  app_verdict verdict = app_verdict_create();
  if (me == 0) {
    const size_t page = rdsm_page_size();
    for (long long v = 0; v < vars; ++v) {
      for (int n = 0; n < nodes; ++n) table[v * nodes + n] = rdsm_malloc_minipage(sizeof(uint64_t));
      /* The next record starts a page: a filler block to the page's end (at
       * page granularity; a minipage takes no room in the counters' pages). */
      size_t used = ((uintptr_t)table[v * nodes + nodes - 1] + sizeof(uint64_t)) % page;
      if (used && page - used >= 16) (void)rdsm_malloc_minipage(page - used - 8);
    }
  }
  rdsm_barrier();
  /* Counter v of node n is table[v * nodes + n]. */
  volatile uint64_t *mine[kMaxVars];
  for (long long v = 0; v < vars; ++v) mine[v] = table[v * nodes + me];
  /* The pages the counters are seen through, and those that hold counters of several nodes. */
  long long pages = 0, shared = 0;
  for (long long i = 0; i < total; ++i) {
    long long j = 0;
    while (j < i && (uintptr_t)table[j] / rdsm_page_size() != (uintptr_t)table[i] / rdsm_page_size()) ++j;
    pages += j == i;
    if (j < i && j % nodes != i % nodes) ++shared;
  }

  long long bad = 0, first_bad_round = -1;
  uint64_t x = 0x9e3779b97f4a7c15ull + (uint64_t)me;  /* the private computation's state */
  rdsm_barrier();
  const double t0 = rdsm_wtime();
  for (long long r = 0; r < rounds; ++r) {
    const long long end = iters * (r + 1) / rounds;
    for (long long it = iters * r / rounds; it < end; ++it)
      for (long long v = 0; v < vars; ++v) {
        for (long long w = 0; w < work; ++w) x = x * 6364136223846793005ull + 1442695040888963407ull;
        *mine[v] += 1;
      }
    rdsm_barrier();
    for (long long i = 0; i < total; ++i)
      if (*table[i] != (uint64_t)end && bad++ == 0) first_bad_round = r;
    rdsm_barrier();  /* nobody writes again before every node has checked */
  }
  const double loop = rdsm_wtime() - t0;
  g_sink = x;  /* the private computation's result is used */

  uint64_t sum = 0;
  for (long long i = 0; i < total; ++i) sum += *table[i];
  if (sum != (uint64_t)total * (uint64_t)iters && bad++ == 0) first_bad_round = rounds;
  if (bad)
    printf("node %d: %lld counters read wrong (first in round %lld); sum %llu, expected %llu\n", me, bad,
           first_bad_round, (unsigned long long)sum, (unsigned long long)total * (unsigned long long)iters);
  int pass = app_verdict_gather(verdict, bad == 0);
  if (me == 0) {
    rdsm_stats st;
    rdsm_get_stats(&st);
    printf("%s false_sharing: %d nodes x %lld counters, %lld iterations, work %lld, %lld rounds, counters seen "
           "through %lld pages (%s), loop %.6f s, sum %llu\n",
           pass ? "PASS" : "FAIL", nodes, vars, iters, work, rounds, pages,
           shared ? "falsely shared" : "none shared", loop, (unsigned long long)sum);
    app_print_breakdown(stdout, "false_sharing node 0", &st);
    fflush(stdout);
  }
  int status = app_verdict_publish(verdict, pass);
  rdsm_finalize();
  return status;
}
