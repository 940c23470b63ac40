/* shared_kept_page: a kept home page that another node writes too, under
 * --races (rewrite_detection.cpp, race_recording.cpp).
 *
 * Node 1 homes PAGES pages.  In every epoch node 0 writes the first half
 * of each page and node 1, the home, the second half, then both pass a
 * barrier and check every byte of every page.  The home keeps the pages
 * writable (rewrites=compare) and finds its own writes by comparing each
 * page with its twin at its release, while node 0's diffs for the same
 * pages land; under --races the diff handler updates the twin, then the
 * page.  A comparison that let a byte changing under it hide the home's
 * bytes further on would leave the page unnamed in the home's notices:
 * node 0's copy would stay valid with the last epoch's second half, and
 * node 0's check fails.  The first half is first in the page on purpose:
 * a comparison scans from the start.
 *
 * The two must meet: the home releases once it sees node 0's diffs begin
 * to land (the first byte of page 0 in its own copy, read without
 * synchronisation: a read, which the race report does not count), so that
 * its comparisons run into the handler applying the next pages' diffs.
 * The meeting is a matter of timing: an unprotected comparison was caught
 * in about three runs of four at 1,000 epochs, so the default is 2,000.
 *
 *   rdsm run -n 2 --races shared_kept_page [EPOCHS]
 * Prints PASS or FAIL (exit status 1 on FAIL). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rdsm.h"

enum { kPages = 64 };

static unsigned char value(int epoch, int node, size_t page) {
  return (unsigned char)(epoch * 7 + node * 101 + page * 13 + 1);
}

static long elapsed_ns(const struct timespec *from) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (now.tv_sec - from->tv_sec) * 1000000000L + (now.tv_nsec - from->tv_nsec);
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank();
  const int epochs = argc > 1 ? atoi(argv[1]) : 2000;
  if (rdsm_nodes() != 2 || epochs < 1) {
    if (me == 0) fprintf(stderr, "usage: rdsm run -n 2 shared_kept_page [EPOCHS]\n");
    rdsm_finalize();
    return 2;
  }
  const size_t psz = rdsm_page_size(), half = psz / 2;
  if (me == 1) {
    unsigned char *p = (unsigned char *)rdsm_malloc_placed(kPages * psz, RDSM_PLACE_LOCAL);
    memset(p, 0, kPages * psz);
    rdsm_publish_root(0, p);
  }
  rdsm_barrier();
  unsigned char *base = (unsigned char *)rdsm_root(0);
  long bad_epoch = -1, bad_page = -1, bad_byte = -1;
  for (int e = 0; e < epochs; ++e) {  /* every epoch, so that nobody waits alone at a barrier */
    for (size_t i = 0; i < kPages; ++i) memset(base + i * psz + (me ? half : 0), value(e, me, i), half);
    if (me == 1) {
      /* Until node 0's diffs begin to land here (20 ms at most: a preset
       * whose diffs land only later, or a slow node 0). */
      volatile unsigned char *first = base;
      struct timespec from;
      clock_gettime(CLOCK_MONOTONIC, &from);
      while (*first != value(e, 0, 0) && elapsed_ns(&from) < 20000000L) {
      }
    }
    rdsm_barrier();
    for (size_t i = 0; i < kPages && bad_epoch < 0; ++i)
      for (size_t b = 0; b < psz; ++b)
        if (base[i * psz + b] != value(e, b >= half, i)) {
          bad_epoch = e, bad_page = (long)i, bad_byte = (long)b;
          break;
        }
    rdsm_barrier();  /* everyone checked before the next epoch writes */
  }
  if (bad_epoch >= 0)
    printf("FAIL shared_kept_page (%s): node %d found byte %ld of page %ld stale after epoch %ld of %d\n",
           rdsm_protocol_name(), me, bad_byte, bad_page, bad_epoch, epochs);
  else if (me == 0)
    printf("PASS shared_kept_page (%s): %d epochs, %d pages written by both nodes\n", rdsm_protocol_name(), epochs,
           kPages);
  fflush(stdout);
  rdsm_finalize();
  return bad_epoch >= 0;
}
