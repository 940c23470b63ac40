/* Page fault micro-benchmark: the cost of one fault of each kind, measured
 * on node 1 while every other node waits in a barrier.
 *
 *  read   node 0 homes PAGES pages and writes one word of each; node 1 reads
 *         one word of each: a read fault that fetches the page from node 0
 *         (the micro_page figure with a single reader).
 *  twin   node 1 now holds those pages valid and read-only; it writes one
 *         byte of each: a write fault on a cached copy, which makes the twin
 *         (a copy of the page kept to compute the diff at the release) and
 *         opens the page for writing.  No fetch.
 *  twin_warm  the same once more after a barrier: the twins now go to
 *         memory the first round touched, as in an iterative program's steady
 *         state (the first round also pays the kernel's first touch of the
 *         twin memory).
 *  home   node 1 homes PAGES pages of its own (RDSM_PLACE_LOCAL) and writes
 *         each once; node 0 reads them, so they have copies elsewhere and
 *         node 1 must notice its writes (a home page nobody copied is left
 *         writable and never faults); the barriers that follow write-protect
 *         them; node 1 then writes one byte of each: a write fault on a home
 *         page, with neither fetch nor twin.
 *  read_again  node 0 writes its pages once more, which invalidates node 1's
 *         copies; node 1 reads them again: a read fault like the first, but
 *         into memory that already held the page (the steady state of an
 *         iterative program; the first read also pays for allocating it).
 *
 * Under sc (one writer per page, no twins) twin is an upgrade: the manager
 * invalidates node 0's copy and no data moves; node 1 then owns the pages
 * writable across barriers, so twin_warm takes no fault at all.
 *
 * Each figure is loop time / PAGES; the median of the individually timed
 * faults is given next to it.  The counters of each phase (rdsm_get_stats
 * after rdsm_reset_stats) show what was measured: read has PAGES read faults
 * and fetches, twin PAGES write faults and twins and no fetch, home PAGES
 * write faults and no twin.  A phase whose counters differ is reported (the
 * figure then measures something else) but does not fail the run; the run
 * fails if any value read or written is wrong.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/app_util.h"
#include "rdsm.h"

static const char *kUsage = "[--pages P] [--json FILE]\n"
                            "  node 1 takes P (default 1024) faults of each kind: read (fetch from node 0),\n"
                            "  write on a valid copy homed at node 0 (twin), write on its own home page;\n"
                            "  reports microseconds per fault.  Needs at least 2 nodes.";

enum { kRead, kTwin, kTwinWarm, kHome, kReadAgain, kPhases };
static const char *const kPhaseName[kPhases] = {"read", "twin", "twin_warm", "home", "read_again"};

typedef struct phase_result {
  double seconds;    /* the whole loop */
  double median_us;  /* of the individually timed faults */
  rdsm_stats stats;
} phase_result;

typedef struct shared_result {
  phase_result phase[kPhases];
  uint64_t bad_reads;  /* node 1: words that did not hold what node 0 wrote */
  uint64_t bad_home;   /* node 1: own home bytes that lost a write */
} shared_result;

/* What node 0 writes into word 0 of page i: never 0; a new value in each
 * round (the read_again phase is round 1). */
static uint64_t tag_round = 0;
static uint64_t page_tag(long i) { return (uint64_t)i * 2654435761u + 1 + 2 * tag_round; }
/* Where node 1 writes in page i (past word 0), and what. */
static size_t write_offset(long i, size_t psz) { return sizeof(uint64_t) + ((size_t)i * 61) % (psz - sizeof(uint64_t)); }
static uint8_t write_byte(long i) { return (uint8_t)(0x80 | (i % 127)); }

/* One access to page i of base; counts a wrong value in *bad. */
typedef void (*page_op)(uint8_t *base, long i, size_t psz, uint64_t *bad);

static void op_read(uint8_t *base, long i, size_t psz, uint64_t *bad) {
  *bad += *(volatile uint64_t *)(base + (size_t)i * psz) != page_tag(i);
}
static void op_write(uint8_t *base, long i, size_t psz, uint64_t *bad) {
  (void)bad;
  *(volatile uint8_t *)(base + (size_t)i * psz + write_offset(i, psz)) = write_byte(i);
}

/* The order the pages are touched in: from the last page down to the
 * first.  A protocol that works ahead of a stream (preset rdsm: prefetch of
 * the pages after a miss or along a stride of misses, pages opened after a
 * write whose predecessor is writable) then still takes one fault per page
 * here, the cost measured: no page's predecessor has been touched before
 * it, and a stride of one page down is not one a transpose makes. */
static long *page_order(long pages) {
  long *order = (long *)malloc(sizeof(long) * (size_t)(pages > 0 ? pages : 1));
  if (!order) return NULL;
  for (long k = 0; k < pages; ++k) order[k] = pages - 1 - k;
  return order;
}

/* Runs fn over every page in page_order, timing the loop as a whole and each
 * access (whose median goes to r), with the counters of just this loop.  tmp
 * holds pages doubles. */
static void time_pages(phase_result *r, page_op fn, uint8_t *base, long pages, size_t psz, double *tmp,
                       uint64_t *bad) {
  long *order = page_order(pages);
  if (!order) {
    fprintf(stderr, "micro_fault: out of memory\n");
    exit(1);
  }
  rdsm_reset_stats();
  double t0 = rdsm_wtime(), prev = t0;
  for (long k = 0; k < pages; ++k) {
    long i = order[k];
    fn(base, i, psz, bad);
    double now = rdsm_wtime();
    tmp[k] = (now - prev) * 1e6;
    prev = now;
  }
  r->seconds = prev - t0;
  rdsm_get_stats(&r->stats);
  r->median_us = app_median(tmp, (size_t)pages);
  free(order);
}

/* Whether the protocol keeps one writer per page (sc, with any axes): a
 * write to a valid copy is then an upgrade, without a twin, and the writer
 * keeps the page writable across barriers until somebody else asks. */
static int single_writer(void) {
  const char *name = rdsm_protocol_name();
  return strncmp(name, "sc", 2) == 0 && (name[2] == '\0' || name[2] == '+');
}

/* Whether a phase's counters show PAGES faults of the kind it is named for. */
static int counters_as_expected(int phase, const rdsm_stats *s, uint64_t pages, int sw) {
  switch (phase) {
    case kRead:
    case kReadAgain: return s->read_faults == pages && s->pages_fetched == pages && s->write_faults == 0;
    case kTwinWarm:
      if (sw) return s->write_faults == 0 && s->read_faults == 0 && s->pages_fetched == 0;  /* still writable */
      /* fall through */
    case kTwin:
      return s->write_faults == pages && s->twins == (sw ? 0 : pages) && s->pages_fetched == 0 && s->read_faults == 0;
    default: return s->write_faults == pages && s->twins == 0 && s->pages_fetched == 0 && s->read_faults == 0;
  }
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const char *prog = argc > 0 ? argv[0] : "micro_fault";
  long long pages = 1024;
  const char *json = NULL;
  app_args args = app_args_start(argc, argv, "micro_fault", kUsage);
  while (app_args_next(&args)) {
    if (app_arg_int(&args, "--pages", 1, 1 << 20, "count", &pages)) continue;
    if (app_arg_string(&args, "--json", &json)) continue;
    app_arg_unknown(&args);
  }
  const int me = rdsm_rank(), nodes = rdsm_nodes();
  if (nodes < 2) app_usage_exit(prog, kUsage, "needs at least 2 nodes (run it with rdsm run -n 2 or more)");
  const size_t psz = rdsm_page_size();

  app_verdict verdict = app_verdict_create();
  shared_result *res = (shared_result *)rdsm_malloc_all(sizeof(shared_result), RDSM_PLACE_DEFAULT);
  double *tmp = (double *)malloc(sizeof(double) * (size_t)pages);
  int local_ok = tmp != NULL;
  if (!tmp) fprintf(stderr, "%s: node %d: out of memory\n", prog, me);
  shared_result mine;
  memset(&mine, 0, sizeof mine);

  if (me == 0) {
    uint8_t *p = (uint8_t *)rdsm_malloc_placed((size_t)pages * psz, RDSM_PLACE_LOCAL);
    for (long i = 0; i < pages; ++i) *(uint64_t *)(p + (size_t)i * psz) = page_tag(i);
    rdsm_publish_root(0, p);
  }
  /* Node 1's own pages, written once so that they are homed and valid. */
  uint8_t *own = NULL;
  if (me == 1) {
    own = (uint8_t *)rdsm_malloc_placed((size_t)pages * psz, RDSM_PLACE_LOCAL);
    for (long i = 0; i < pages; ++i) own[(size_t)i * psz] = 1;
    rdsm_publish_root(1, own);
  }
  rdsm_barrier();
  uint8_t *remote = (uint8_t *)rdsm_root(0);
  if (me == 0) {
    /* Copies of node 1's pages, so that node 1 tracks its writes to them. */
    const uint8_t *theirs = (const uint8_t *)rdsm_root(1);
    volatile uint8_t sink = 0;
    for (long i = 0; i < pages; ++i) sink += theirs[(size_t)i * psz];
    (void)sink;
  }
  /* Node 0 copies before the phase, not during it: under sc its reads
   * write-protect node 1's pages, and each such change of a running
   * process's mapping interrupts node 1's CPU (a TLB shootdown) while it
   * is being timed. */
  rdsm_barrier();

  /* read faults (fetches) */
  if (me == 1 && tmp) time_pages(&mine.phase[kRead], op_read, remote, pages, psz, tmp, &mine.bad_reads);
  rdsm_barrier();
  /* Node 0's first release after node 1 copied a page names it as written
   * (the home cannot know whether it wrote the page after the copy), and
   * node 0 may have released before node 1 finished reading, so node 1's
   * copies are invalidated at this barrier or the next: read them again,
   * unmeasured, until they stay valid, so the next phase finds them valid.
   * Four rounds, not two: under the default preset a home page whose
   * copies were all dropped by a barrier's end goes back to being written
   * unnoticed, so node 0's copies of node 1's pages stay (and node 1 goes
   * on tracking them) only once node 0 refreshes them instead of dropping
   * them, which a page earns by being read again after a drop. */
  for (int settle = 0; settle < 4; ++settle) {
    if (me == 1 && tmp) {
      volatile uint64_t sink = 0;
      for (long i = 0; i < pages; ++i) sink += *(volatile uint64_t *)(remote + (size_t)i * psz);
      (void)sink;
    }
    if (me == 0) {
      /* The same for node 0's copies of node 1's pages, named as written at
       * node 1's first release after node 0 read them: a node whose copy is
       * invalidated stops counting as a holder, and the home phase needs
       * holders. */
      const uint8_t *theirs = (const uint8_t *)rdsm_root(1);
      volatile uint8_t sink = 0;
      for (long i = 0; i < pages; ++i) sink += theirs[(size_t)i * psz];
      (void)sink;
    }
    rdsm_barrier();
  }
  /* write faults on valid copies (twins) */
  if (me == 1 && tmp) time_pages(&mine.phase[kTwin], op_write, remote, pages, psz, tmp, &mine.bad_reads);
  rdsm_barrier();
  /* the same again: the copies are valid and write-protected once more, and
   * this time the twins go to memory the first round already touched (the
   * steady state of an iterative program) */
  if (me == 1 && tmp) time_pages(&mine.phase[kTwinWarm], op_write, remote, pages, psz, tmp, &mine.bad_reads);
  rdsm_barrier();
  /* write faults on own home pages, write-protected by the barrier above */
  if (me == 1 && tmp) {
    time_pages(&mine.phase[kHome], op_write, own, pages, psz, tmp, &mine.bad_home);
    for (long i = 0; i < pages; ++i) {
      const uint8_t *pg = own + (size_t)i * psz;
      mine.bad_home += pg[0] != 1 || pg[write_offset(i, psz)] != write_byte(i);
    }
  }
  rdsm_barrier();
  /* read faults again: node 0 writes word 0 of each of its pages once more
   * (a new value), so node 1's copies are invalidated at the barrier;
   * node 1 fetches them again into memory that already holds them, as an
   * iterative program does in its steady state (the first read phase also
   * paid for the first use of that memory). */
  tag_round = 1;
  if (me == 0)
    for (long i = 0; i < pages; ++i) *(volatile uint64_t *)(remote + (size_t)i * psz) = page_tag(i);
  rdsm_barrier();
  if (me == 1 && tmp) time_pages(&mine.phase[kReadAgain], op_read, remote, pages, psz, tmp, &mine.bad_reads);
  if (me == 1) *res = mine;
  free(tmp);
  int all_ok = app_verdict_gather(verdict, local_ok);

  int pass = 0;
  if (me == 0) {
    /* The twin phase's writes reached their home (this node) by now. */
    uint64_t bad_home_copy = 0;
    for (long i = 0; i < pages; ++i) {
      const uint8_t *pg = remote + (size_t)i * psz;
      bad_home_copy += *(const uint64_t *)pg != page_tag(i) || pg[write_offset(i, psz)] != write_byte(i);
    }
    const shared_result *r = res;
    pass = all_ok && r->bad_reads == 0 && r->bad_home == 0 && bad_home_copy == 0;
    const int sw = single_writer();
    double us[kPhases];
    int as_expected[kPhases];
    for (int ph = 0; ph < kPhases; ++ph) {
      us[ph] = r->phase[ph].seconds * 1e6 / (double)pages;
      as_expected[ph] = counters_as_expected(ph, &r->phase[ph].stats, (uint64_t)pages, sw);
    }
    if (pass)
      printf("PASS micro_fault: %lld pages, protocol %s, node 1: read fault (fetch) %.3f us (%.3f us into memory "
             "that held the page before), %s %.3f us (%s%.3f us%s), %s %.3f us\n",
             pages, rdsm_protocol_name(), us[kRead], us[kReadAgain],
             sw ? "write fault on a read-only copy (upgrade, no twin)" : "write fault with twin", us[kTwin],
             sw ? "then writable until another node asks: " : "", us[kTwinWarm],
             sw ? " a write" : " with warm twin memory",
             sw ? "write fault on its own page" : "write fault on home page", us[kHome]);
    else
      printf("FAIL micro_fault: %lld pages, protocol %s: %llu bad reads at node 1, %llu bad bytes in node 1's own "
             "pages, %llu pages at node 0 without node 1's write%s\n",
             pages, rdsm_protocol_name(), (unsigned long long)r->bad_reads, (unsigned long long)r->bad_home,
             (unsigned long long)bad_home_copy, all_ok ? "" : ", a node ran out of memory");
    for (int ph = 0; ph < kPhases; ++ph) {
      const rdsm_stats *s = &r->phase[ph].stats;
      printf("  %-10s %.3f us per fault (median %.3f): read_faults %llu write_faults %llu pages_fetched %llu twins %llu "
             "messages %llu one_sided_ops %llu%s\n",
             kPhaseName[ph], us[ph], r->phase[ph].median_us, (unsigned long long)s->read_faults,
             (unsigned long long)s->write_faults, (unsigned long long)s->pages_fetched, (unsigned long long)s->twins,
             (unsigned long long)s->messages_sent, (unsigned long long)s->one_sided_ops,
             as_expected[ph] ? "" : "  [counters not as expected: the figure measures something else]");
    }
    fflush(stdout);
    FILE *f = app_json_begin(prog, json, "micro_fault", pass);
    if (f) {
      fprintf(f, ", \"pages\": %lld, \"page_size\": %zu", pages, psz);
      for (int ph = 0; ph < kPhases; ++ph) {
        fprintf(f, ", \"%s_us\": %.6f, \"%s_median_us\": %.6f, \"%s_counters_as_expected\": %s, \"%s_stats\": ",
                kPhaseName[ph], us[ph], kPhaseName[ph], r->phase[ph].median_us, kPhaseName[ph],
                as_expected[ph] ? "true" : "false", kPhaseName[ph]);
        app_json_stats(f, &r->phase[ph].stats);
      }
      app_json_end(f, NULL);
    }
  }
  int status = app_verdict_publish(verdict, pass);
  rdsm_finalize();
  return status;
}
