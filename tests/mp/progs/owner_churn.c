/* owner_churn [SECONDS [PAGES]]: for SECONDS (default 1.5), every node writes
 * a word of its own in each of PAGES shared pages (default 2), over and
 * over, and reads the other nodes' words in them, with no synchronisation:
 * the pages change hands at nearly every access, and a node's writes fault
 * while its own threads are giving the page away.  Under sc with
 * fetch=one-sided most reads are of a page its owner holds writable, which
 * the reader write-protects in the owner's address space itself
 * (sc_peer_downgrade.cpp); a write of the owner's that slips past that
 * protection while the owner's access is being lowered is lost when
 * another copy becomes the page, and the writer finds its own word older
 * than it left it.
 *
 * Checked on every node, as sequential consistency requires of any
 * program: before each write a node reads its own word back (the value it
 * wrote last: no write of its own was lost), and the other nodes' words it
 * reads never go backwards (each writer's writes in its order); after a
 * barrier at the end every word holds the last value its node wrote.
 * Prints PASS (node 0) with the rounds made, or FAIL with the first broken
 * rule (exit status 1). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "rdsm.h"

#define MAX_NODES 16
#define MAX_PAGES 64

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank(), nodes = rdsm_nodes();
  const double seconds = argc > 1 ? atof(argv[1]) : 1.5;
  const long pages = argc > 2 ? atol(argv[2]) : 2;
  if (nodes > MAX_NODES || !(seconds > 0) || pages < 1 || pages > MAX_PAGES) {
    if (me == 0)
      fprintf(stderr, "owner_churn [SECONDS [PAGES]]: SECONDS > 0, PAGES 1..%d, at most %d nodes\n", MAX_PAGES,
              MAX_NODES);
    rdsm_finalize();
    return 2;
  }
  /* Word n of page p: node n's.  Cyclic placement: every node manages and
   * first owns some of the pages.  The rounds each node made, on a page of
   * their own. */
  volatile uint64_t *words = rdsm_malloc_all((size_t)pages * 4096, RDSM_PLACE_CYCLIC);
  volatile uint64_t *made = rdsm_malloc_all(4096, RDSM_PLACE_CYCLIC);
  static uint64_t seen[MAX_NODES][MAX_PAGES];
  long bad = 0;
  uint64_t r = 0;
  rdsm_barrier();
  const double end = now_s() + seconds;
  while (!bad && (r & 63 || now_s() < end)) {
    ++r;
    for (long p = 0; p < pages && !bad; ++p) {
      volatile uint64_t *page = words + p * 512;
      const uint64_t mine = page[me];
      if (mine != r - 1) {
        printf("FAIL owner_churn: node %d, round %llu, page %ld: its own word reads %llu, it wrote %llu last\n", me,
               (unsigned long long)r, p, (unsigned long long)mine, (unsigned long long)(r - 1));
        bad = 1;
        break;
      }
      page[me] = r;
      for (int n = 0; n < nodes; ++n) {
        if (n == me) continue;
        const uint64_t v = page[n];
        if (v < seen[n][p]) {
          printf("FAIL owner_churn: node %d, round %llu, page %ld: node %d's word went back from %llu to %llu\n", me,
                 (unsigned long long)r, p, n, (unsigned long long)seen[n][p], (unsigned long long)v);
          bad = 1;
          break;
        }
        seen[n][p] = v;
      }
    }
  }
  made[me] = bad ? 0 : r;
  rdsm_barrier();
  for (int n = 0; n < nodes && !bad; ++n)
    for (long p = 0; p < pages && made[n]; ++p)
      if (words[p * 512 + n] != made[n]) {
        printf("FAIL owner_churn: node %d at the end: page %ld, node %d's word is %llu, not %llu\n", me, p, n,
               (unsigned long long)words[p * 512 + n], (unsigned long long)made[n]);
        bad = 1;
        break;
      }
  if (me == 0 && !bad) {
    printf("PASS owner_churn: %d nodes, %ld pages, rounds", nodes, pages);
    for (int n = 0; n < nodes; ++n) printf(" %llu", (unsigned long long)made[n]);
    printf("\n");
  }
  fflush(stdout);
  rdsm_finalize();
  return bad ? 1 : 0;
}
