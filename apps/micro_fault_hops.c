/* Page fault latency by fault type, the table of the sequentially
 * consistent Multiview DSM's papers: node 1 takes PAGES faults of each kind
 * on pages node 0 owns (placed at node 0, written by it), while every other
 * node waits in a barrier.
 *
 *  read_miss   node 1 reads a page it holds no copy of
 *  upgrade     node 1 writes a page it holds a read-only copy of
 *  write_miss  node 1 writes a page it holds no copy of
 *  read_3hop   a read miss on a page whose manager (under sc) is node 2:
 *              requestor, manager and owner are three nodes (needs 3 nodes)
 *  read_shared a read miss on a page node 2 has read first, so that under
 *              sc its owner holds it read-only: with fetch=one-sided the
 *              faulting thread reads it from the owner itself, the papers'
 *              RDMA-R (needs 3 nodes)
 *  read_produced a read miss on a page node 1 read before, which node 0 has
 *              written again since (a producer's output, read in every
 *              phase): under sc with fetch=one-sided the owner made it
 *              read-only at the barrier, so the faulting thread reads it
 *              from the owner itself
 *
 * Under sc each page has a manager, node page mod nodes (page numbered in
 * the region); read_3hop's pages are managed by node 2 (three hops), the
 * others' by node 0, the owner, so that a fault takes two hops (requestor
 * -> manager and owner -> requestor).  The pages
 * are numbered from the region's first page: this program's first
 * allocation starts there (the allocator hands the region out in order),
 * which it checks.  Under a release-consistency preset the same accesses
 * are a fetch, a twin and a fetch with a twin (there is no manager: the
 * 3-hop row is a plain read miss).
 *
 * Each figure is loop time / PAGES, with the median of the individually
 * timed faults beside it.  The run fails if a value read is wrong, or if
 * node 0 does not see node 1's writes after the last barrier.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/app_util.h"
#include "rdsm.h"

static const char *kUsage = "[--pages P] [--json FILE]\n"
                            "  node 1 takes P (default 256) faults of each kind on pages node 0 owns: read miss,\n"
                            "  upgrade (write to a read-only copy), write miss, a read miss on a page node 0 wrote\n"
                            "  again after node 1 read it, and with 3 nodes or more a read miss whose manager\n"
                            "  (under sc) is a third node and one from a read-only owner; reports microseconds\n"
                            "  per fault.\n"
                            "  Needs at least 2 nodes.";

enum { kReadMiss, kUpgrade, kWriteMiss, kRead3Hop, kReadShared, kReadProduced, kKinds };
static const char *const kKindName[kKinds] = {"read_miss",   "upgrade",     "write_miss",
                                              "read_3hop",   "read_shared", "read_produced"};
enum { kSets = 5 };
/* The kinds that need a third node. */
static int runs_with(int kind, int nodes) { return nodes >= 3 || (kind != kRead3Hop && kind != kReadShared); }

typedef struct kind_result {
  double us;         /* loop time per fault */
  double median_us;  /* of the individually timed faults */
  rdsm_stats stats;
} kind_result;

typedef struct shared_result {
  kind_result kind[kKinds];
  uint64_t bad_reads;
} shared_result;

/* Page j of the set a kind uses: pages whose number is `manager` modulo
 * nodes.  Read miss and upgrade share a set (the upgrade writes the copies
 * the read miss brought); the others have their own. */
static long page_of(int kind, long j, long pages, int nodes) {
  long set = kind == kUpgrade         ? 0
             : kind == kWriteMiss    ? 1
             : kind == kRead3Hop     ? 2
             : kind == kReadShared   ? 3
             : kind == kReadProduced ? 4
                                     : 0;
  int manager = kind == kRead3Hop ? 2 : 0;
  return (set * pages + j) * nodes + manager;
}

static uint64_t tag(long page) { return (uint64_t)page * 2654435761u + 7; }
/* What node 0 writes over the read_produced pages before they are measured. */
static uint64_t produced(long page) { return ~tag(page); }
static uint64_t expected(int kind, long page) { return kind == kReadProduced ? produced(page) : tag(page); }

/* Reads the first word of every page of a kind's set, unmeasured: how many
 * are not the tag node 0 wrote first. */
static uint64_t read_set(int kind, const uint8_t *base, long pages, size_t psz, int nodes) {
  uint64_t bad = 0;
  for (long j = 0; j < pages; ++j) {
    long p = page_of(kind, j, pages, nodes);
    bad += *(const volatile uint64_t *)(base + (size_t)p * psz) != tag(p);
  }
  return bad;
}

static void take_faults(kind_result *r, int kind, uint8_t *base, long pages, size_t psz, int nodes, double *tmp,
                        uint64_t *bad) {
  rdsm_reset_stats();
  double t0 = rdsm_wtime(), prev = t0;
  for (long j = pages - 1; j >= 0; --j) { /* downwards: no stream for a prefetch to follow */
    uint8_t *pg = base + (size_t)page_of(kind, j, pages, nodes) * psz;
    if (kind == kUpgrade || kind == kWriteMiss)
      pg[64] = 1;
    else
      *bad += *(volatile uint64_t *)pg != expected(kind, page_of(kind, j, pages, nodes));
    double now = rdsm_wtime();
    tmp[j] = (now - prev) * 1e6;
    prev = now;
  }
  r->us = (prev - t0) * 1e6 / (double)pages;
  r->median_us = app_median(tmp, (size_t)pages);
  rdsm_get_stats(&r->stats);
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const char *prog = argc > 0 ? argv[0] : "micro_fault_hops";
  long long pages = 256;
  const char *json = NULL;
  app_args args = app_args_start(argc, argv, "micro_fault_hops", kUsage);
  while (app_args_next(&args)) {
    if (app_arg_int(&args, "--pages", 1, 1 << 16, "count", &pages)) continue;
    if (app_arg_string(&args, "--json", &json)) continue;
    app_arg_unknown(&args);
  }
  const int me = rdsm_rank(), nodes = rdsm_nodes();
  if (nodes < 2) app_usage_exit(prog, kUsage, "needs at least 2 nodes (run it with rdsm run -n 2 or more)");
  const size_t psz = rdsm_page_size();
  /* kSets sets of pages, each spread over every manager. */
  const size_t total = kSets * (size_t)pages * (size_t)nodes;
  uint8_t *base = (uint8_t *)rdsm_malloc_all(total * psz, RDSM_PLACE_LOCAL);
  const int numbered = !rdsm_is_shared(base - 1);  /* the region's first page */
  shared_result *res = (shared_result *)rdsm_malloc_all(sizeof(shared_result), RDSM_PLACE_DEFAULT);
  app_verdict verdict = app_verdict_create();
  double *tmp = (double *)malloc(sizeof(double) * (size_t)pages);
  int local_ok = tmp != NULL;
  if (!tmp) fprintf(stderr, "%s: node %d: out of memory\n", prog, me);
  shared_result mine;
  memset(&mine, 0, sizeof mine);

  if (me == 0)
    for (size_t p = 0; p < total; ++p) *(uint64_t *)(base + p * psz) = tag((long)p);
  rdsm_barrier();
  for (int kind = 0; kind < kKinds; ++kind) {
    if (!runs_with(kind, nodes)) continue;
    if (kind == kReadShared) { /* node 2 reads first: the owner serves it read-only from then on */
      if (me == 2)
        mine.bad_reads += read_set(kReadShared, base, pages, psz, nodes);
      rdsm_barrier();
    }
    if (kind == kReadProduced) { /* node 1 has read the pages; node 0 writes them again */
      if (me == 1)
        mine.bad_reads += read_set(kReadProduced, base, pages, psz, nodes);
      rdsm_barrier();
      if (me == 0)
        for (long j = 0; j < pages; ++j) {
          long p = page_of(kReadProduced, j, pages, nodes);
          *(uint64_t *)(base + (size_t)p * psz) = produced(p);
        }
      rdsm_barrier();
    }
    if (me == 1 && tmp) take_faults(&mine.kind[kind], kind, base, pages, psz, nodes, tmp, &mine.bad_reads);
    rdsm_barrier();
    /* Under release consistency node 0's next releases may name the pages
     * node 1 just copied as written (a home cannot tell whether it wrote a
     * page after it was copied): node 1 reads them again, unmeasured, until
     * its copies stay valid, so that the upgrade finds them read-only.
     * Under sc they are valid already and these reads take no fault. */
    for (int settle = 0; kind == kReadMiss && settle < 2; ++settle) {
      if (me == 1)
        mine.bad_reads += read_set(kReadMiss, base, pages, psz, nodes);
      rdsm_barrier();
    }
  }
  if (me == 1) *res = mine;
  free(tmp);
  int all_ok = app_verdict_gather(verdict, local_ok);

  int pass = 0;
  if (me == 0) {
    uint64_t lost = 0; /* node 1's writes, seen here after the barrier */
    for (long j = 0; j < pages; ++j)
      for (int kind = kUpgrade; kind <= kWriteMiss; ++kind)
        lost += base[(size_t)page_of(kind, j, pages, nodes) * psz + 64] != 1;
    const shared_result *r = res;
    pass = all_ok && r->bad_reads == 0 && lost == 0;
    if (pass) {
      printf("PASS micro_fault_hops: %lld pages, protocol %s, node 1: read miss %.3f us, upgrade %.3f us, write miss "
             "%.3f us, ",
             pages, rdsm_protocol_name(), r->kind[kReadMiss].us, r->kind[kUpgrade].us, r->kind[kWriteMiss].us);
      printf("read miss on a page written again since %.3f us, ", r->kind[kReadProduced].us);
      if (nodes >= 3)
        printf("read miss over 3 nodes %.3f us, read miss from a read-only owner %.3f us\n", r->kind[kRead3Hop].us,
               r->kind[kReadShared].us);
      else
        printf("read miss over 3 nodes and from a read-only owner: need 3 nodes\n");
    } else {
      printf("FAIL micro_fault_hops: %lld pages, protocol %s: %llu bad reads at node 1, %llu writes of node 1 not "
             "seen at node 0%s\n",
             pages, rdsm_protocol_name(), (unsigned long long)r->bad_reads, (unsigned long long)lost,
             all_ok ? "" : ", a node ran out of memory");
    }
    if (!numbered)
      printf("  (the pages are not numbered from the region's first page here: under sc their managers are not "
             "the ones named)\n");
    for (int kind = 0; kind < kKinds; ++kind) {
      if (!runs_with(kind, nodes)) continue;
      const rdsm_stats *s = &r->kind[kind].stats;
      printf("  %-13s %.3f us per fault (median %.3f): read_faults %llu write_faults %llu pages_fetched %llu "
             "twins %llu messages %llu one_sided_ops %llu\n",
             kKindName[kind], r->kind[kind].us, r->kind[kind].median_us, (unsigned long long)s->read_faults,
             (unsigned long long)s->write_faults, (unsigned long long)s->pages_fetched, (unsigned long long)s->twins,
             (unsigned long long)s->messages_sent, (unsigned long long)s->one_sided_ops);
    }
    fflush(stdout);
    FILE *f = app_json_begin(prog, json, "micro_fault_hops", pass);
    if (f) {
      fprintf(f, ", \"pages\": %lld, \"page_size\": %zu, \"managers_known\": %s", pages, psz,
              numbered ? "true" : "false");
      for (int kind = 0; kind < kKinds; ++kind) {
        if (!runs_with(kind, nodes)) continue;
        fprintf(f, ", \"%s_us\": %.6f, \"%s_median_us\": %.6f, \"%s_stats\": ", kKindName[kind], r->kind[kind].us,
                kKindName[kind], r->kind[kind].median_us, kKindName[kind]);
        app_json_stats(f, &r->kind[kind].stats);
      }
      app_json_end(f, NULL);
    }
  }
  int status = app_verdict_publish(verdict, pass);
  rdsm_finalize();
  return status;
}
