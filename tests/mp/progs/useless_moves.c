/* useless_moves: moves by the second-epoch rule are budgeted, and stop for
 * good once the pages moved are written by other nodes (home_migration.cpp:
 * the move budget, regretted moves).
 *
 * Two nodes; 256 pages homed at node 0, which fills them.  Node 1 writes
 * only the even pages, so no aligned group is written whole (the group
 * rule never applies), and writes them alone in two epochs in a row:
 *   Epoch 1: node 1 writes bytes [0, 64) of every even page.  Nothing moves
 *     (a first epoch moves whole groups only).
 *   Epoch 2: node 1 writes bytes [64, 128) again.  All 128 pages qualify;
 *     the budget of a barrier lets the first 64 move to node 1.
 *   Epoch 3: node 0 writes bytes [128, 192) of every even page: the 64
 *     moved pages are written by a node other than their new home, every
 *     move so far proved useless, and moves stop.
 *   Epochs 4 and 5: node 1 writes bytes [192, 256), then [256, 320), alone
 *     in two epochs in a row again: the 64 pages still homed at node 0
 *     would move, but moves have stopped.
 * After each barrier every node must read every byte written so far; node
 * 1 must have become home of 64 pages in all, node 0 of none.
 *
 *   rdsm run -n 2 --protocol rdsm useless_moves
 * Prints PASS or FAIL (exit status 1 on FAIL). */
#include "schedule_test.h"

enum { kPages = 256, kGroup = 16, kBytes = 64, kEpochs = 5 };

/* The value written into the bytes of epoch e (from 1). */
static int value_of(int e) { return 10 + e; }

static int check(const unsigned char *pages, int epochs_done, int me) {
  const size_t psz = rdsm_page_size();
  for (int i = 0; i < kPages; ++i) {
    const unsigned char *page = pages + (size_t)i * psz;
    for (int e = 1; e <= kEpochs; ++e) {
      const int want = (i % 2 == 0 && e <= epochs_done) ? value_of(e) : 1;
      for (size_t b = (size_t)(e - 1) * kBytes; b < (size_t)e * kBytes; ++b)
        if (page[b] != want) {
          fprintf(stderr, "FAIL useless_moves: node %d reads byte %zu of page %d as %d, not %d after epoch %d\n", me,
                  b, i, page[b], want, epochs_done);
          return 1;
        }
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank();
  require_nodes(2, "useless_moves");
  const size_t psz = rdsm_page_size();
  unsigned char *base = pages_of_node0(kPages + kGroup, 1); /* barrier 1 */
  unsigned char *pages = aligned_group(base, kGroup);
  rdsm_stats before;
  rdsm_get_stats(&before);
  int bad = 0;
  uint64_t moved_after_2 = 0;
  for (int e = 1; e <= kEpochs && !bad; ++e) {
    const int writer = e == 3 ? 0 : 1;
    if (me == writer)
      for (int i = 0; i < kPages; i += 2) memset(pages + (size_t)i * psz + (size_t)(e - 1) * kBytes, value_of(e), kBytes);
    rdsm_barrier();
    bad |= check(pages, e, me);
    rdsm_barrier(); /* the reads above are an epoch of their own, written by nobody */
    if (e == 2) {
      rdsm_stats now;
      rdsm_get_stats(&now);
      moved_after_2 = now.migrations - before.migrations;
    }
  }
  rdsm_stats after;
  rdsm_get_stats(&after);
  const uint64_t moved = after.migrations - before.migrations, want = me == 1 ? 64 : 0;
  if (!bad && (moved_after_2 != want || moved != want)) {
    fprintf(stderr, "FAIL useless_moves: node %d became home of %llu pages by epoch 2 and %llu in all, not %llu\n", me,
            (unsigned long long)moved_after_2, (unsigned long long)moved, (unsigned long long)want);
    bad = 1;
  }
  rdsm_barrier();
  if (me == 0 && !bad) printf("PASS useless_moves\n");
  rdsm_finalize();
  return bad ? 1 : 0;
}
