/* prefetched_rereads: a column of another node's rows, rewritten by its
 * home and read again after every barrier (a transpose's columns in an FFT
 * repeated many times), comes back by strided prefetch, not by a miss of
 * its own page; those re-reads must earn the pages refreshes at the
 * barriers, as a missed page's do (copy_refresh.cpp).
 *
 * The matrix has 2 x kRows rows of kRowPages pages, homed by block: node 0
 * homes the first kRows rows.  In each of kRounds rounds node 0 writes
 * page 0 of each of its rows, and after the barrier node 1 reads them down
 * the column, checking the values; a round's values differ from the last.
 * From round kSettled on node 1 must take no more than kRows / 16 read
 * faults in all, and have at least half the column's pages refreshed a
 * round: refreshed at the barriers, the column is read without a fault
 * but where a page's rounds of refreshes run out (copy_refresh.cpp's
 * grants); without them every round costs the faults that find the
 * stride and those after each prefetch window (8 a round here), and only
 * the pages those faults missed are refreshed.
 *
 *   rdsm run -n 2 --protocol rdsm prefetched_rereads
 * Prints PASS or FAIL on node 0 (exit status 1 on FAIL). */
#include "schedule_test.h"

enum { kRows = 256, kRowPages = 4, kRounds = 12, kSettled = 6 };
#define AT(row, page) m[((size_t)(row) * kRowPages + (size_t)(page)) * words + 5]

static uint64_t value(int row, int round) { return (uint64_t)row * 7 + (uint64_t)round * 100003 + 3; }

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank();
  require_nodes(2, "prefetched_rereads");
  const size_t words = rdsm_page_size() / sizeof(uint64_t);
  uint64_t *m = rows_homed_by_block(kRows, kRowPages);
  rdsm_barrier();
  rdsm_stats settled;
  int bad = rewrite_reread_rounds(&AT(0, 0), (size_t)kRowPages * words, kRows, kRounds, kSettled, value, &settled,
                                  "prefetched_rereads");
  if (me == 1) {
    rdsm_stats end;
    rdsm_get_stats(&end);
    const unsigned long long faults = end.read_faults - settled.read_faults,
                             refreshed = end.refreshed - settled.refreshed;
    if (faults > kRows / 16 || refreshed < (unsigned long long)kRows * (kRounds - kSettled) / 2) {
      printf("FAIL prefetched_rereads: node 1 read the column in rounds %d..%d with %llu read faults "
             "and %llu pages refreshed; expected at most %d faults and at least %d refreshes\n",
             kSettled, kRounds - 1, faults, refreshed, kRows / 16, kRows * (kRounds - kSettled) / 2);
      bad = 1;
    }
  }
  bad = join_verdict(bad, "prefetched_rereads");
  rdsm_finalize();
  return bad ? 1 : 0;
}
