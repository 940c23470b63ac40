/* strided_gaps: a column read down rows where some of the column's pages
 * are held already (a transpose's column after a few of its pages were
 * refreshed at an acquire, or read before).
 *
 * The matrix has 2 x kRows rows of kRowPages pages, homed by block: node 0
 * homes the first kRows rows.  Node 1 first reads page 0 of every
 * kHeldEvery-th row of node 0's (those copies stay), then, counting its
 * read faults, page 0 of every row of node 0's, checking the values node 0
 * wrote.  Strided prefetch brings the column along the stride of the
 * faults; a row whose page is held must not end the window, or every held
 * page costs a fault and the three faults that find the stride again.
 * Node 1 fails if the column took more than kRows / 16 read faults.
 *
 *   rdsm run -n 2 --protocol rdsm strided_gaps
 * Prints PASS or FAIL on node 1 (exit status 1 on FAIL). */
#include "schedule_test.h"

enum { kRows = 256, kRowPages = 4, kHeldEvery = 8 };

static uint64_t value(int row) { return (uint64_t)row * 7 + 3; }

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank();
  require_nodes(2, "strided_gaps");
  const size_t psz = rdsm_page_size(), words = psz / sizeof(uint64_t);
  uint64_t *m = (uint64_t *)rdsm_malloc_all(2 * kRows * kRowPages * psz, RDSM_PLACE_BLOCK);
#define AT(row) m[(size_t)(row) * kRowPages * words + 5]
  if (me == 0)
    for (int r = 0; r < kRows; ++r) AT(r) = value(r);
  rdsm_barrier();
  int bad = 0;
  if (me == 1) {
    for (int r = 0; r < kRows; r += kHeldEvery) bad += AT(r) != value(r);
    rdsm_stats before, after;
    rdsm_get_stats(&before);
    for (int r = 0; r < kRows; ++r) bad += AT(r) != value(r);
    rdsm_get_stats(&after);
    const unsigned long long faults = after.read_faults - before.read_faults;
    if (bad) printf("FAIL strided_gaps: node 1 read %d wrong values of node 0's rows\n", bad);
    if (faults > kRows / 16) {
      printf("FAIL strided_gaps: a column of %d rows, one in %d held already, took %llu read faults; expected at "
             "most %d\n",
             kRows, kHeldEvery, faults, kRows / 16);
      bad = 1;
    }
    if (!bad) printf("PASS strided_gaps\n");
  }
  rdsm_barrier();
  rdsm_finalize();
  return bad ? 1 : 0;
}
