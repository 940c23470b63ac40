/* keep_window: the adaptive keep window of rewrites=compare
 * (rewrite_detection.cpp), seen in node 1's write faults.
 *
 * Node 0 homes PAGES pages, 32 apart (no stream or dense group of writes);
 * node 1 caches them, then writes one byte of each every GAP releases
 * (rdsm_release), ROUNDS times, with no barrier in between (homes stay
 * put).  A page written again GAP releases after the last time stays kept
 * (writable, compared with its twin at each release) for about 1.5 x the
 * longest gap it has shown, at most 96 releases: so for a GAP of up to 64,
 * once the first two rounds have taught each page its gap, no write
 * faults; for a GAP of more than 96, every round faults again (every
 * write, with write-ahead off; a preset that opens pages ahead along the
 * stride of the faults takes fewer faults, but at least one a round).  A fixed window of 2 releases would
 * fault in every round of both.  Pages opened ahead count as found written
 * like any other.
 *
 *   keep_window GAP[,GAP2] few|every
 * With GAP2 the rounds alternate the two gaps (a V-cycle's levels: a short
 * gap on the way down and up, a long one to the next cycle): the window
 * follows the longer, so 4,20 takes no fault where a window of 1.5 x the
 * last gap would fault every other round.
 * Counts node 1's write faults after the first two rounds (three with
 * GAP2): "few" expects none, "every" at least one a round.  Run under a preset with
 * rewrites=compare (the default).  Node 0 checks that the last round's
 * bytes reached it.  Prints PASS or FAIL on node 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdsm.h"

enum { kPages = 16, kSpacing = 32, kRounds = 8, kLearnRounds = 2 };

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank();
  if (argc != 3 || rdsm_nodes() != 2 || (strcmp(argv[2], "few") && strcmp(argv[2], "every"))) {
    if (me == 0) fprintf(stderr, "usage: rdsm run -n 2 keep_window GAP few|every\n");
    rdsm_finalize();
    return 2;
  }
  const int gap = atoi(argv[1]);
  const char *comma = strchr(argv[1], ',');
  const int gap2 = comma ? atoi(comma + 1) : gap;
  const int learn = comma ? kLearnRounds + 1 : kLearnRounds;  /* the long gap comes second */
  const int expect_few = !strcmp(argv[2], "few");
  const size_t psz = rdsm_page_size();
  unsigned long long *faults = (unsigned long long *)rdsm_malloc_all(sizeof *faults, RDSM_PLACE_DEFAULT);
  if (me == 0) {
    char *p = (char *)rdsm_malloc_placed((size_t)kPages * kSpacing * psz, RDSM_PLACE_LOCAL);
    for (int i = 0; i < kPages; ++i) p[(size_t)i * kSpacing * psz] = 1;
    rdsm_publish_root(0, p);
  }
  rdsm_barrier();
  char *base = (char *)rdsm_root(0);
  if (me == 1) {
    volatile char sink = 0;
    for (int i = 0; i < kPages; ++i) sink += base[(size_t)i * kSpacing * psz];  /* cached copies */
    (void)sink;
    for (int r = 0; r < kRounds; ++r) {
      if (r == learn) rdsm_reset_stats();
      for (int i = 0; i < kPages; ++i) base[(size_t)i * kSpacing * psz + 8] = (char)(r + 2);
      for (int k = 0; k < (r % 2 ? gap2 : gap); ++k) rdsm_release();
    }
    rdsm_stats s;
    rdsm_get_stats(&s);
    *faults = s.write_faults;
  }
  rdsm_barrier();
  if (me == 0) {
    int bad = 0;
    for (int i = 0; i < kPages; ++i) bad += base[(size_t)i * kSpacing * psz + 8] != (char)(kRounds + 1);
    const unsigned long long rounds = (unsigned long long)(kRounds - learn), f = *faults;
    const int ok = !bad && (expect_few ? f == 0 : f >= rounds);
    printf("%s keep_window (%s): gap %d,%d releases, %llu write faults in the last %llu rounds of %d pages (expected "
           "%s), %d pages without the last write\n",
           ok ? "PASS" : "FAIL", rdsm_protocol_name(), gap, gap2, f, rounds, kPages,
           expect_few ? "none" : "at least one a round", bad);
  }
  rdsm_finalize();
  return 0;
}
