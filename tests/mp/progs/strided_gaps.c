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
 * Then node 0 does the same down page 2 of the rows it homes of a second
 * matrix nobody wrote (home pages never mapped there: mapped, not
 * fetched, along the stride), with the same limit; node 1's copies of
 * page 0 of each row keep a fault from mapping more than the rest of its
 * row.
 *
 *   rdsm run -n 2 --protocol rdsm strided_gaps
 * Prints PASS or FAIL on node 0 (exit status 1 on FAIL). */
#include "schedule_test.h"

enum { kRows = 256, kRowPages = 4, kHeldEvery = 8 };
#define AT(row, page) m[((size_t)(row) * kRowPages + (size_t)(page)) * words + 5]

static uint64_t value(int row, int page) { return (uint64_t)row * 7 + (uint64_t)page * 1000 + 3; }

/* Reads page `page` of every kHeldEvery-th row of node 0's, then of every
 * row, counting the second walk's read faults; 1 if a value is wrong (not
 * value(), or 0 where nobody wrote) or the walk took too many faults. */
static int column(uint64_t *m, int page, size_t words, int me, int written) {
#define WANT(r) (written ? value(r, page) : 0)
  int bad = 0;
  for (int r = 0; r < kRows; r += kHeldEvery) bad += AT(r, page) != WANT(r);
  rdsm_stats before, after;
  rdsm_get_stats(&before);
  for (int r = 0; r < kRows; ++r) bad += AT(r, page) != WANT(r);
  rdsm_get_stats(&after);
  const unsigned long long faults = after.read_faults - before.read_faults;
  if (bad) printf("FAIL strided_gaps: node %d read %d wrong values of node 0's rows\n", me, bad);
  if (faults > kRows / 16) {
    printf("FAIL strided_gaps: node %d read page %d down %d rows, one in %d held already, with %llu read faults; "
           "expected at most %d\n",
           me, page, kRows, kHeldEvery, faults, kRows / 16);
    bad = 1;
  }
  return bad != 0;
#undef WANT
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank();
  require_nodes(2, "strided_gaps");
  const size_t words = rdsm_page_size() / sizeof(uint64_t);
  uint64_t *m = rows_homed_by_block(kRows, kRowPages);
  uint64_t *m2 = rows_homed_by_block(kRows, kRowPages);
  if (me == 0)
    for (int r = 0; r < kRows; ++r) AT(r, 0) = value(r, 0);
  rdsm_barrier();
  int bad = 0;
  if (me == 1) {
    bad = column(m, 0, words, 1, 1);
    for (int r = 0; r < kRows; ++r) bad |= m2[(size_t)r * kRowPages * words] != 0;
  }
  rdsm_barrier();
  if (me == 0) bad = column(m2, 2, words, 0, 0);
  bad = join_verdict(bad, "strided_gaps");
  rdsm_finalize();
  return bad ? 1 : 0;
}
