/* bulk_rereads: more pages of another node than one acquire refreshes
 * (copy_refresh.cpp's kMaxRefreshPages), rewritten by their home and read
 * again after every barrier, are dropped at each barrier, not refreshed:
 * refreshing keeps every such copy counted at its home, whose release then
 * compares each of those pages with its twin at every barrier, written or
 * not (an FFT of 2^21 points repeated: 2,600 to 4,000 pages named at each
 * barrier, 0.82-0.88 of the time when they are dropped); the prefetcher
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
  uint64_t *verdict = (uint64_t *)rdsm_malloc_all(sizeof *verdict, RDSM_PLACE_DEFAULT);
  rdsm_barrier();
  int bad = 0;
  rdsm_stats settled;
  for (int round = 0; round < kRounds; ++round) {
    if (me == 0)
      for (int p = 0; p < kPages; ++p) AT(p) = value(p, round);
    rdsm_barrier();
    if (round == kSettled) rdsm_get_stats(&settled);
    if (me == 1) {
      int wrong = 0;
      for (int p = 0; p < kPages; ++p) wrong += AT(p) != value(p, round);
      if (wrong) printf("FAIL bulk_rereads: node 1 read %d wrong values in round %d\n", wrong, round);
      bad |= wrong != 0;
    }
    rdsm_barrier();
  }
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
    *verdict = (uint64_t)bad;
  }
  rdsm_barrier();
  if (me == 0) {
    bad |= *verdict != 0;
    if (!bad) printf("PASS bulk_rereads\n");
  }
  rdsm_barrier();
  rdsm_finalize();
  return bad ? 1 : 0;
}
