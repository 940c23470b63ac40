/* Page fetch micro-benchmark.
 *
 * Node 0 allocates PAGES pages homed at itself and writes one word of each.
 * Then every other node, all at the same time, reads one word of each page
 * (each read is a miss that fetches the page from node 0) and times the
 * loop.  The figure is loop time / PAGES per node, so it includes the fault,
 * the request, the home's service under load from all readers, and the
 * mapping of the page.  --repeat runs the whole measurement again on fresh
 * pages and reports the median.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/app_util.h"
#include "rdsm.h"

static const char *kUsage = "[--pages P] [--repeat R] [--json FILE]\n"
                            "  node 0 homes P pages (default 1024); nodes 1..N-1 each fetch all of them at once;\n"
                            "  reports microseconds per page fetch (median of R repetitions, default 1).\n"
                            "  Needs at least 2 nodes.";

/* One node's result of one repetition. */
typedef struct sample {
  double us_per_page;
  double data_wait;  /* s, from rdsm_get_stats */
  uint64_t pages_fetched;
  uint64_t bad;      /* words that did not hold what node 0 wrote */
} sample;

/* What node 0 writes into page i: never 0, so a page that was not fetched
 * (still zero) cannot pass. */
static uint64_t page_tag(long rep, long i) { return ((uint64_t)rep << 32) + (uint64_t)i + 1; }

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const char *prog = argc > 0 ? argv[0] : "micro_page";
  long long pages = 1024, repeat = 1;
  const char *json = NULL;
  app_args args = app_args_start(argc, argv, "micro_page", kUsage);
  while (app_args_next(&args)) {
    if (app_arg_int(&args, "--repeat", 1, 10000, "count", &repeat)) continue;
    if (app_arg_int(&args, "--pages", 1, 1 << 20, "count", &pages)) continue;
    if (app_arg_string(&args, "--json", &json)) continue;
    app_arg_unknown(&args);
  }
  const int me = rdsm_rank(), nodes = rdsm_nodes();
  if (nodes < 2) app_usage_exit(prog, kUsage, "needs at least 2 nodes (run it with rdsm run -n 2 or more)");
  const size_t psz = rdsm_page_size();
  const size_t words_per_page = psz / sizeof(uint64_t);

  app_verdict verdict = app_verdict_create();
  sample *samples = (sample *)rdsm_malloc_all(sizeof(sample) * (size_t)repeat * (size_t)nodes, RDSM_PLACE_DEFAULT);

  for (long rep = 0; rep < repeat; ++rep) {
    if (me == 0) {
      uint64_t *p = (uint64_t *)rdsm_malloc_placed((size_t)pages * psz, RDSM_PLACE_LOCAL);
      for (long i = 0; i < pages; ++i) p[(size_t)i * words_per_page] = page_tag(rep, i);
      rdsm_publish_root(0, p);
    }
    rdsm_barrier();
    const volatile uint64_t *p = (const volatile uint64_t *)rdsm_root(0);
    sample s = {0, 0, 0, 0};
    if (me != 0) {
      rdsm_reset_stats();
      uint64_t bad = 0;
      double t0 = rdsm_wtime();
      for (long i = 0; i < pages; ++i) bad += p[(size_t)i * words_per_page] != page_tag(rep, i);
      double t = rdsm_wtime() - t0;
      rdsm_stats st;
      rdsm_get_stats(&st);
      s.us_per_page = t * 1e6 / (double)pages;
      s.data_wait = st.data_wait;
      s.pages_fetched = st.pages_fetched;
      s.bad = bad;
    }
    samples[rep * nodes + me] = s;
    /* Also keeps node 0 from publishing the next root while others read. */
    rdsm_barrier();
  }

  int pass = 0;
  if (me == 0) {
    double *v = (double *)malloc(sizeof(double) * (size_t)repeat);
    double *med_us = (double *)calloc((size_t)nodes, sizeof(double));
    double *med_wait = (double *)calloc((size_t)nodes, sizeof(double));
    double *med_fetched = (double *)calloc((size_t)nodes, sizeof(double));
    if (!v || !med_us || !med_wait || !med_fetched) {
      printf("FAIL micro_page: out of memory\n");
    } else {
      uint64_t bad = 0;
      double mean = 0;
      for (int q = 1; q < nodes; ++q) {
        for (long r = 0; r < repeat; ++r) v[r] = samples[r * nodes + q].us_per_page;
        med_us[q] = app_median(v, (size_t)repeat);
        for (long r = 0; r < repeat; ++r) v[r] = samples[r * nodes + q].data_wait;
        med_wait[q] = app_median(v, (size_t)repeat);
        for (long r = 0; r < repeat; ++r) v[r] = (double)samples[r * nodes + q].pages_fetched;
        med_fetched[q] = app_median(v, (size_t)repeat);
        for (long r = 0; r < repeat; ++r) bad += samples[r * nodes + q].bad;
        mean += med_us[q];
      }
      mean /= (nodes - 1);
      pass = bad == 0;
      if (pass)
        printf("PASS micro_page: %d readers x %lld pages, %lld repetition(s), protocol %s: mean %.3f us per page fetch\n",
               nodes - 1, pages, repeat, rdsm_protocol_name(), mean);
      else
        printf("FAIL micro_page: %llu page reads did not see the value node 0 wrote (%d readers x %lld pages x %lld)\n",
               (unsigned long long)bad, nodes - 1, pages, repeat);
      for (int q = 1; q < nodes; ++q)
        printf("  node %d: %.3f us/page, pages_fetched %.0f, data_wait %.6f s (%.3f us/page)  [medians]\n", q,
               med_us[q], med_fetched[q], med_wait[q], med_wait[q] * 1e6 / (double)pages);
      fflush(stdout);
      FILE *f = app_json_begin(prog, json, "micro_page", pass);
      if (f) {
        fprintf(f, ", \"pages\": %lld, \"repeat\": %lld, \"page_size\": %zu, \"mean_us_per_page\": %.6f, \"readers\": [",
                pages, repeat, psz, mean);
        for (int q = 1; q < nodes; ++q) {
          fprintf(f,
                  "%s{\"node\": %d, \"us_per_page\": %.6f, \"pages_fetched\": %.0f, \"data_wait\": %.9f, "
                  "\"samples_us_per_page\": [",
                  q > 1 ? ", " : "", q, med_us[q], med_fetched[q], med_wait[q]);
          for (long r = 0; r < repeat; ++r) fprintf(f, "%s%.6f", r ? ", " : "", samples[r * nodes + q].us_per_page);
          fprintf(f, "]}");
        }
        fprintf(f, "]");
        app_json_end(f, NULL);
      }
    }
    free(v);
    free(med_us);
    free(med_wait);
    free(med_fetched);
  }
  int status = app_verdict_publish(verdict, pass);
  rdsm_finalize();
  return status;
}
