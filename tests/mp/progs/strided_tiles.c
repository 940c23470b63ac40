/* strided_tiles: a transpose's read of another node's rows, tile by tile
 * (apps/fft's shape): for each tile of kTile rows, the first page of every
 * row of the tile, then the second page of every row, ..., kWidth pages.
 *
 * Node 0 homes and writes a matrix of kRows rows of kRowPages pages; node
 * 1 reads its column block of kWidth pages that way, counting its read
 * faults and checking every value.  Strided prefetch learns the width of
 * the block from the first tile's columns, then brings whole rows of it;
 * the two rows whose faults find the stride again at each tile must get
 * the rest of their width too, or each costs kWidth - 1 more faults.
 * Node 1 fails if the walk took more than kRows / 8 read faults.
 *
 *   rdsm run -n 2 --protocol rdsm strided_tiles
 * Prints PASS or FAIL on node 1 (exit status 1 on FAIL). */
#include "schedule_test.h"

enum { kRows = 512, kRowPages = 8, kWidth = 4, kTile = 24 };

static uint64_t value(int row, int page) { return (uint64_t)row * 11 + (uint64_t)page * 1000 + 1; }

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank();
  require_nodes(2, "strided_tiles");
  const size_t words = rdsm_page_size() / sizeof(uint64_t);
  uint64_t *m = rows_homed_by_block(kRows, kRowPages);
#define AT(row, page) m[((size_t)(row) * kRowPages + (size_t)(page)) * words + 9]
  if (me == 0)
    for (int r = 0; r < kRows; ++r)
      for (int p = 0; p < kRowPages; ++p) AT(r, p) = value(r, p);
  rdsm_barrier();
  int bad = 0;
  if (me == 1) {
    rdsm_stats before, after;
    rdsm_get_stats(&before);
    for (int t = 0; t < kRows; t += kTile)
      for (int p = 0; p < kWidth; ++p)
        for (int r = t; r < t + kTile && r < kRows; ++r) bad += AT(r, p) != value(r, p);
    rdsm_get_stats(&after);
    const unsigned long long faults = after.read_faults - before.read_faults;
    if (bad) printf("FAIL strided_tiles: node 1 read %d wrong values of node 0's rows\n", bad);
    if (faults > kRows / 8) {
      printf("FAIL strided_tiles: %d rows read %d pages wide in tiles of %d took %llu read faults; expected at "
             "most %d\n",
             kRows, kWidth, kTile, faults, kRows / 8);
      bad = 1;
    }
    if (!bad) printf("PASS strided_tiles\n");
  }
  rdsm_barrier();
  rdsm_finalize();
  return bad ? 1 : 0;
}
