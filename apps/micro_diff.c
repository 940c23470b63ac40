/* Diff micro-benchmark.
 *
 * Node 0 homes PAGES pages and writes one word of each; node 1 reads them so
 * that it holds valid copies; statistics are reset everywhere; node 1 then
 * writes one byte of every page (--size small) or every byte of every page
 * (--size large) and a barrier makes the writes reach node 0.
 *
 * Figures: the diff work at the writer is node 1's barrier_protocol time
 * (twins compared, diffs encoded and sent at the release), the work at the
 * home is node 0's handler time (diffs received and applied), with node 1's
 * diffs and diff_bytes counters.  At the end node 0 checks that it sees
 * exactly what node 1 wrote.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/app_util.h"
#include "rdsm.h"

static const char *kUsage = "--size small|large [--pages P] [--release] [--json FILE]\n"
                            "  node 1 writes one byte (small) or every byte (large) of P pages (default 1024)\n"
                            "  homed at node 0; reports diff creation at the writer and application at the home.\n"
                            "  --release: node 1 calls rdsm_release() before the barrier.  Needs at least 2 nodes.";

/* Written by node 0 into word 0 of page i: in 1..127 in the low byte, so it
 * never equals a byte node 1 writes (those are >= 0x80). */
static uint64_t touch_value(long i) { return (uint64_t)(i % 127) + 1; }
static uint8_t large_byte(long i, size_t j) { return (uint8_t)(0x80 | ((size_t)i * 7 + j) % 128); }
static size_t small_offset(long i, size_t psz) { return ((size_t)i * 61 + 8) % psz; }

/* Page i after node 1's writes, byte j. */
static uint8_t expected_byte(long i, size_t j, size_t psz, int large) {
  if (large) return large_byte(i, j);
  if (j == small_offset(i, psz)) return large_byte(i, j);
  if (j < sizeof(uint64_t)) return (uint8_t)(touch_value(i) >> (8 * j)); /* little endian */
  return 0;
}

typedef struct result {
  rdsm_stats stats;
  double write_seconds; /* node 1's write loop: faults and twins */
  double baseline_seconds; /* node 1: memcmp + memcpy of as many pages in private memory */
} result;

/* What diffing a page cannot beat: comparing it in full with its twin
 * (memcmp of equal pages reads both to the end) and copying it to its
 * destination, done in private memory that is already touched. */
static double baseline_seconds(size_t pages, size_t psz) {
  size_t bytes = pages * psz;
  uint8_t *a = (uint8_t *)malloc(bytes), *b = (uint8_t *)malloc(bytes), *c = (uint8_t *)malloc(bytes);
  if (!a || !b || !c) {
    fprintf(stderr, "micro_diff: out of memory for the baseline\n");
    exit(1);
  }
  memset(a, 7, bytes);
  memset(b, 7, bytes);
  memset(c, 0, bytes);
  volatile int sink = 0;
  double t0 = rdsm_wtime();
  for (size_t i = 0; i < pages; ++i) {
    sink += memcmp(a + i * psz, b + i * psz, psz);
    memcpy(c + i * psz, a + i * psz, psz);
  }
  double t = rdsm_wtime() - t0;
  (void)sink;
  free(a);
  free(b);
  free(c);
  return t;
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const char *prog = argc > 0 ? argv[0] : "micro_diff";
  long long pages = 1024;
  int large = -1, use_release = 0;
  const char *json = NULL;
  app_args args = app_args_start(argc, argv, "micro_diff", kUsage);
  args.flags = "--release";
  while (app_args_next(&args)) {
    if (app_arg_flag(&args, "--release", &use_release)) continue;
    if (!strcmp(args.opt, "--size")) {
      if (!strcmp(args.val, "small")) large = 0;
      else if (!strcmp(args.val, "large")) large = 1;
      else app_arg_error(&args, "--size: '%s' is neither small nor large", args.val);
      continue;
    }
    if (app_arg_int(&args, "--pages", 1, 1 << 20, "count", &pages)) continue;
    if (app_arg_string(&args, "--json", &json)) continue;
    app_arg_unknown(&args);
  }
  if (large < 0) app_usage_exit(prog, kUsage, "--size is required");
  const int me = rdsm_rank(), nodes = rdsm_nodes();
  if (nodes < 2) app_usage_exit(prog, kUsage, "needs at least 2 nodes: a writer and a home (rdsm run -n 2 ...)");
  const size_t psz = rdsm_page_size();

  app_verdict verdict = app_verdict_create();
  result *results = (result *)rdsm_malloc_all(sizeof(result) * (size_t)nodes, RDSM_PLACE_DEFAULT);

  if (me == 0) {
    uint8_t *p = (uint8_t *)rdsm_malloc_placed((size_t)pages * psz, RDSM_PLACE_LOCAL);
    for (long i = 0; i < pages; ++i) *(uint64_t *)(p + (size_t)i * psz) = touch_value(i);
    rdsm_publish_root(0, p);
  }
  rdsm_barrier();
  uint8_t *base = (uint8_t *)rdsm_root(0);
  if (me == 1) {
    /* Read every page so the writes below find valid copies: what is
     * measured is twin + diff, not the fetch. */
    volatile uint64_t sink = 0;
    for (long i = 0; i < pages; ++i) sink += *(volatile uint64_t *)(base + (size_t)i * psz);
    (void)sink;
  }
  rdsm_barrier();

  /* One unmeasured round with other values first, so the measured round
   * finds the mappings and twin slots it uses already set up, as they are
   * in a running program (steady state, not first touch). */
  if (me == 1) {
    for (long i = 0; i < pages; ++i) {
      uint8_t *pg = base + (size_t)i * psz;
      if (large) {
        for (size_t j = 0; j < psz; ++j) pg[j] = (uint8_t)~large_byte(i, j);
      } else {
        size_t off = small_offset(i, psz);
        pg[off] = (uint8_t)~large_byte(i, off);
      }
    }
  }
  rdsm_barrier();
  if (me == 1) {
    volatile uint64_t sink = 0;
    for (long i = 0; i < pages; ++i) sink += *(volatile uint64_t *)(base + (size_t)i * psz);
    (void)sink;
  }
  rdsm_barrier();

  rdsm_reset_stats();
  double write_seconds = 0;
  if (me == 1) {
    double t0 = rdsm_wtime();
    for (long i = 0; i < pages; ++i) {
      uint8_t *pg = base + (size_t)i * psz;
      if (large) {
        for (size_t j = 0; j < psz; ++j) pg[j] = large_byte(i, j);
      } else {
        size_t off = small_offset(i, psz);
        pg[off] = large_byte(i, off);
      }
    }
    write_seconds = rdsm_wtime() - t0;
    if (use_release) rdsm_release();
  }
  rdsm_barrier();
  rdsm_get_stats(&results[me].stats);
  results[me].write_seconds = write_seconds;
  if (me == 1) results[me].baseline_seconds = baseline_seconds((size_t)pages, psz);
  rdsm_barrier();

  int pass = 0;
  if (me == 0) {
    /* Node 0 is the home: after the barrier its own pages must hold node 1's
     * writes and nothing else changed. */
    uint64_t bad = 0;
    long first_page = -1;
    size_t first_byte = 0;
    uint8_t first_got = 0, first_want = 0;
    for (long i = 0; i < pages; ++i) {
      const uint8_t *pg = base + (size_t)i * psz;
      for (size_t j = 0; j < psz; ++j) {
        uint8_t want = expected_byte(i, j, psz, large);
        if (pg[j] != want && bad++ == 0) {
          first_page = i;
          first_byte = j;
          first_got = pg[j];
          first_want = want;
        }
      }
    }
    pass = bad == 0;
    const rdsm_stats *w = &results[1].stats, *home = &results[0].stats;
    double n = (double)pages;
    if (pass)
      printf("PASS micro_diff: size %s, %lld pages, protocol %s: diff at writer %.3f us/page (%.6f s), "
             "apply at home %.3f us/page (%.6f s), diffs %llu, diff_bytes %llu (%.1f per page)\n",
             large ? "large" : "small", pages, rdsm_protocol_name(), w->barrier_protocol * 1e6 / n,
             w->barrier_protocol, home->handler * 1e6 / n, home->handler, (unsigned long long)w->diffs,
             (unsigned long long)w->diff_bytes, (double)w->diff_bytes / n);
    else
      printf("FAIL micro_diff: size %s, %lld pages: node 0 sees %llu wrong bytes; first page %ld byte %zu: "
             "expected 0x%02x got 0x%02x\n",
             large ? "large" : "small", pages, (unsigned long long)bad, first_page, first_byte, first_want,
             first_got);
    printf("  writer write loop %.3f us/page (faults and twins)\n", results[1].write_seconds * 1e6 / n);
    printf("  baseline at the writer: memcmp + memcpy of the same pages %.3f us/page; diff / baseline = %.2f\n",
           results[1].baseline_seconds * 1e6 / n, w->barrier_protocol / results[1].baseline_seconds);
    printf("  home handler time applying diffs %.6f s (of %.6f s handler time)\n", home->handler_diff,
           home->handler);
    app_print_breakdown(stdout, "  node 1 (writer)", w);
    app_print_breakdown(stdout, "  node 0 (home)", home);
    fflush(stdout);
    FILE *f = app_json_begin(prog, json, "micro_diff", pass);
    if (f) {
      fprintf(f,
              ", \"size\": \"%s\", \"pages\": %lld, \"page_size\": %zu, \"release\": %s, "
              "\"writer_diff_seconds\": %.9f, \"writer_diff_us_per_page\": %.6f, "
              "\"home_apply_seconds\": %.9f, \"home_apply_us_per_page\": %.6f, "
              "\"diffs\": %llu, \"diff_bytes\": %llu, \"write_loop_seconds\": %.9f, "
              "\"baseline_memcmp_memcpy_seconds\": %.9f, \"home_diff_handler_seconds\": %.9f, \"writer_stats\": ",
              large ? "large" : "small", pages, psz, use_release ? "true" : "false", w->barrier_protocol,
              w->barrier_protocol * 1e6 / n, home->handler, home->handler * 1e6 / n, (unsigned long long)w->diffs,
              (unsigned long long)w->diff_bytes, results[1].write_seconds, results[1].baseline_seconds,
              home->handler_diff);
      app_json_stats(f, w);
      fprintf(f, ", \"home_stats\": ");
      app_json_stats(f, home);
      app_json_end(f, NULL);
    }
  }
  int status = app_verdict_publish(verdict, pass);
  rdsm_finalize();
  return status;
}
