/* bulk_rereads: more pages of another node than one acquire refreshes
 * (copy_refresh.cpp's kMaxRefreshPages), rewritten by their home and read
 * again after every barrier, are dropped at each barrier, not refreshed:
 * refreshing keeps every such copy counted at its home, whose release then
 * compares each of those pages with its twin at every barrier, written or
 * not (an FFT of 2^21 points repeated: 2,600 to 4,000 pages named at each
 * barrier, 0.82-0.83 of the time when they are dropped); the prefetcher
 * brings a bulk of pages back in a few reads.
 *
 * Node 0 homes kPages consecutive pages and writes one word of each in
 * each of kRounds rounds; after the barrier node 1 reads them front to
 * back, checking the values.  From round kSettled on node 1 must have
 * refreshed none of them, and read them with at most kPages / 16 read
 * faults a round (prefetch windows grow to 64 pages).
 *
 *   rdsm run -n 2 --protocol rdsm bulk_rereads
 * Prints PASS or FAIL on node 0 (exit status 1 on FAIL). */
#include "schedule_test.h"

enum { kPages = 1024, kRounds = 12, kSettled = 6 };
#define AT(page) m[(size_t)(page) * words + 3]

static uint64_t value(int page, int round) { return (uint64_t)page * 13 + (uint64_t)round * 1000003 + 1; }

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank();
  require_nodes(2, "bulk_rereads");
  const size_t words = rdsm_page_size() / sizeof(uint64_t);
  uint64_t *m = rows_homed_by_block(kPages, 1);  /* node 0 homes the first kPages pages */
  rdsm_barrier();
  rdsm_stats settled;
  int bad = rewrite_reread_rounds(&AT(0), words, kPages, kRounds, kSettled, value, &settled, "bulk_rereads");
  if (me == 1) {
    rdsm_stats end;
    rdsm_get_stats(&end);
    const unsigned long long faults = end.read_faults - settled.read_faults,
                             refreshed = end.refreshed - settled.refreshed;
    const int rounds = kRounds - kSettled;
    if (refreshed != 0 || faults > (unsigned long long)kPages / 16 * rounds) {
      printf("FAIL bulk_rereads: node 1 read the pages in rounds %d..%d with %llu read faults and %llu pages "
             "refreshed; expected none refreshed and at most %d faults\n",
             kSettled, kRounds - 1, faults, refreshed, kPages / 16 * rounds);
      bad = 1;
    } else {
      printf("bulk_rereads: node 1, rounds %d..%d: %llu read faults, none refreshed\n", kSettled, kRounds - 1,
             faults);
    }
  }
  bad = join_verdict(bad, "bulk_rereads");
  rdsm_finalize();
  return bad ? 1 : 0;
}
