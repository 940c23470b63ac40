/* strided_home: a node reading and writing its own home pages down a
 * column, one page of each row, where it never mapped them before (a
 * transpose's own rows).
 *
 * The matrix has 2 x kRows rows of kRowPages pages, homed by block: node 0
 * homes the first kRows rows.  Node 1 first reads page 0 and writes page 1
 * of each of node 0's rows (copies of those columns stay there); the other
 * pages of those rows nobody touches.  Then node 0, counting its faults:
 *   reads page 2 of every row (nobody's copy: it may write them untracked),
 *   writes page 1 of every row (copied elsewhere, never mapped here: the
 *   writes must be noticed),
 *   reads page 0 of every row (copied elsewhere: mapped readable),
 * then writes page 2 of every row; node 1 reads pages 1 and 2 of every row
 * back, checking node 0's writes (its old copies of page 1 must have been
 * dropped).
 *
 * A fault maps a row's pages from the faulting one to the next one copied
 * elsewhere or mapped already, so each column would cost one fault per
 * row; the runtime maps or opens the pages along the stride of the faults
 * instead, so a column costs a few.  With "count", node 0 fails if a
 * column took more than kRows / 4; without, only the values are checked
 * (presets without write-ahead fault on every page).  Prints PASS or FAIL
 * on node 0. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rdsm.h"

enum { kRows = 64, kRowPages = 16 };

static uint64_t value(int row, int page, int round) { return (uint64_t)row * 1000 + (uint64_t)page * 10 + round; }

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank();
  if (rdsm_nodes() != 2 || (argc > 1 && strcmp(argv[1], "count"))) {
    if (me == 0) fprintf(stderr, "usage: rdsm run -n 2 strided_home [count]\n");
    rdsm_finalize();
    return 2;
  }
  const int count = argc > 1;
  const size_t psz = rdsm_page_size(), words = psz / sizeof(uint64_t);
  uint64_t *m = (uint64_t *)rdsm_malloc_all(2 * kRows * kRowPages * psz, RDSM_PLACE_BLOCK);
  uint64_t *verdict = (uint64_t *)rdsm_malloc_all(sizeof *verdict, RDSM_PLACE_DEFAULT);
#define AT(row, page, w) m[((size_t)(row) * kRowPages + (size_t)(page)) * words + (w)]
  int bad = 0;
  if (me == 1) {
    for (int r = 0; r < kRows; ++r) bad += AT(r, 0, 5) != 0;
    for (int r = 0; r < kRows; ++r) AT(r, 1, 5) = value(r, 1, 1);
  }
  rdsm_barrier();
  if (me == 0) {
    rdsm_stats s[4];
    rdsm_get_stats(&s[0]);
    for (int r = 0; r < kRows; ++r) bad += AT(r, 2, 5) != 0;
    rdsm_get_stats(&s[1]);
    for (int r = 0; r < kRows; ++r) AT(r, 1, 7) = value(r, 1, 2);
    rdsm_get_stats(&s[2]);
    for (int r = 0; r < kRows; ++r) bad += AT(r, 0, 5) != 0 || AT(r, 1, 5) != value(r, 1, 1);
    rdsm_get_stats(&s[3]);
    for (int r = 0; r < kRows; ++r) AT(r, 2, 7) = value(r, 2, 2);
    const unsigned long long faults[3] = {s[1].read_faults - s[0].read_faults, s[2].write_faults - s[1].write_faults,
                                          s[3].read_faults - s[2].read_faults};
    if (bad) printf("FAIL strided_home: node 0 read %d wrong values of its own rows\n", bad);
    if (count && (faults[0] > kRows / 4 || faults[1] > kRows / 4 || faults[2] > kRows / 4)) {
      printf("FAIL strided_home: columns of %d rows took %llu read faults (nobody's copy), %llu write faults "
             "(copied elsewhere), %llu read faults (copied elsewhere); expected at most %d each\n",
             kRows, faults[0], faults[1], faults[2], kRows / 4);
      bad = 1;
    }
    *verdict = (uint64_t)bad;
  }
  rdsm_barrier();
  if (me == 1) {
    int wrong = bad;
    for (int r = 0; r < kRows; ++r) wrong += AT(r, 1, 7) != value(r, 1, 2) || AT(r, 2, 7) != value(r, 2, 2);
    if (wrong) *verdict = 2;
  }
  rdsm_barrier();
  if (me == 0) {
    if (*verdict == 2) printf("FAIL strided_home: node 1 read wrong or stale values of node 0's rows\n");
    if (*verdict == 0) printf("PASS strided_home\n");
  }
  rdsm_finalize();
  return 0;
}
