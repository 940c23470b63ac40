/* group_after_moves: a worker's group of the master's pages, some of which
 * moved to it already, written whole (home_migration.cpp: the group rule
 * counts pages moved to the writer and written by nobody else).
 *
 * Two nodes; an aligned group G of 16 pages homed at node 0, which never
 * writes them.
 *   Epochs 1 and 2: node 1 writes bytes [100, 200) of G's last 4 pages,
 *     with new values each epoch (the last: the pages its write faults
 *     open ahead are after them, outside G).  Written alone in two epochs,
 *     they move to node 1 at the second barrier (by the budget: they are
 *     no whole group).
 *   Epoch 3: node 1 writes bytes [200, 300) of all 16 pages, after 300 ms,
 *     so that node 0 has released before the copies are taken (a home that
 *     releases after copies of pages it may write unnoticed, as it may
 *     every home page nobody had copied, names them maybe written).  Its last 4
 *     are its own now, written unnoticed; the other 12 are written by node
 *     1 alone: the group is node 1's, and the 12 move to it at the third
 *     barrier.  Counting only the pages named in notices, the group would
 *     never look whole again, and its pages would wait for the budget.
 * At the end every node must read every byte written.  (Not before: node
 * 1's reads would copy G's pages before its writes of epoch 3, copies node
 * 0 would name maybe written, and node 0's copies of the 4 pages would
 * make node 1 note its writes to them.)
 *
 *   rdsm run -n 2 --protocol rdsm group_after_moves
 * Prints PASS or FAIL (exit status 1 on FAIL). */
#include <time.h>

#include "schedule_test.h"

enum { kGroup = 16, kLast = 4, kPages = 2 * kGroup, kByte1 = 6, kByte3 = 8 };  /* epoch e writes kByte1 + e - 1 */

/* Every byte of G as the three epochs leave it. */
static int check_group(const unsigned char *g, int me) {
  const size_t psz = rdsm_page_size();
  for (int i = 0; i < kGroup; ++i)
    for (size_t b = 0; b < psz; ++b) {
      int want = 0;
      if (b >= 100 && b < 200 && i >= kGroup - kLast) want = kByte1 + 1;  /* epoch 2's */
      if (b >= 200 && b < 300) want = kByte3;
      if (g[(size_t)i * psz + b] != want) {
        fprintf(stderr, "FAIL group_after_moves: node %d reads byte %zu of page %d as %d, not %d at the end\n", me,
                b, i, g[(size_t)i * psz + b], want);
        return 1;
      }
    }
  return 0;
}

static int expect_moves(uint64_t moved, uint64_t want, int me, int epoch) {
  if (moved == want) return 0;
  fprintf(stderr, "FAIL group_after_moves: node %d became home of %llu pages at barrier %d, not %llu\n", me,
          (unsigned long long)moved, epoch, (unsigned long long)want);
  return 1;
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank();
  require_nodes(2, "group_after_moves");
  const size_t psz = rdsm_page_size();
  unsigned char *g = aligned_group(pages_of_node0(kPages, -1), kGroup); /* barrier */
  int bad = 0;
  rdsm_stats before, after;
  for (int epoch = 1; epoch <= 2; ++epoch) {
    rdsm_get_stats(&before);
    if (me == 1)
      for (int i = kGroup - kLast; i < kGroup; ++i) memset(g + (size_t)i * psz + 100, kByte1 + epoch - 1, 100);
    rdsm_barrier();
    rdsm_get_stats(&after);
    bad |= expect_moves(after.migrations - before.migrations, me == 1 && epoch == 2 ? kLast : 0, me, epoch);
  }
  rdsm_get_stats(&before);
  if (me == 1) {
    struct timespec wait = {0, 300 * 1000 * 1000};
    nanosleep(&wait, NULL);
    for (int i = 0; i < kGroup; ++i) memset(g + (size_t)i * psz + 200, kByte3, 100);
  }
  rdsm_barrier();
  rdsm_get_stats(&after);
  bad |= expect_moves(after.migrations - before.migrations, me == 1 ? kGroup - kLast : 0, me, 3);
  rdsm_barrier();
  bad |= check_group(g, me);
  rdsm_barrier();
  if (me == 0 && !bad) printf("PASS group_after_moves\n");
  rdsm_finalize();
  return bad ? 1 : 0;
}
