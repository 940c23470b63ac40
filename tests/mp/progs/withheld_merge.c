/* withheld_merge: a diff withheld for a home move, of a page whose home
 * names it "maybe written" (home_migration.cpp, keep_withheld_on).
 *
 * Three nodes; 64 pages homed at node 0 (H), which writes them all before
 * anyone copies them: untracked.  Between two barriers node 1 (W) writes
 * bytes [200, 300) of every page of two aligned groups of 16 pages, G1 and
 * G2, so its release withholds their diffs, expecting their homes to move
 * to it.  H waits 300 ms, until W has copied them, then writes bytes
 * [0, 100) of one page of each group, P1 and P2, untracked: at its release
 * it learns of W's copies and names P1 and P2 "maybe written".  Node 2
 * writes bytes [400, 500) of another page of G2, so G2 is not W's alone.
 *   - P1 moves to W: W's copy must take H's bytes where W did not write.
 *   - P2 stays at H: W's diff goes home, and W's copy, which lacks H's
 *     bytes, must be dropped.
 * After the barrier every node must read H's, W's and node 2's bytes.
 *
 *   rdsm run -n 3 --protocol rdsm withheld_merge
 * Prints PASS or FAIL (exit status 1 on FAIL). */
#include <time.h>

#include "schedule_test.h"

enum { kPages = 64, kGroup = 16, kHomeByte = 5, kWorkerByte = 6, kOtherByte = 7 };

static int check(const unsigned char *page, size_t from, size_t to, int want, const char *what, int me, int index) {
  for (size_t i = from; i < to; ++i)
    if (page[i] != want) {
      fprintf(stderr, "FAIL withheld_merge: node %d reads byte %zu of page %d as %d, not %d (%s)\n", me, i, index,
              page[i], want, what);
      return 1;
    }
  return 0;
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank();
  require_nodes(3, "withheld_merge");
  const size_t psz = rdsm_page_size();
  unsigned char *base = pages_of_node0(kPages, 1); /* barrier 1 */
  unsigned char *g1 = aligned_group(base, kGroup);
  unsigned char *g2 = g1 + (size_t)kGroup * psz;
  unsigned char *p1 = g1 + 3 * psz, *p2 = g2 + 5 * psz, *q2 = g2 + 9 * psz;
  if (me == 1) {
    for (int i = 0; i < 2 * kGroup; ++i) memset(g1 + (size_t)i * psz + 200, kWorkerByte, 100);
  } else if (me == 0) {
    struct timespec wait = {0, 300 * 1000 * 1000};
    nanosleep(&wait, NULL);
    memset(p1, kHomeByte, 100);
    memset(p2, kHomeByte, 100);
  } else {
    memset(q2 + 400, kOtherByte, 100);
  }
  rdsm_barrier(); /* 2: P1 moves to node 1, P2 stays */
  int bad = 0;
  for (int i = 0; i < 2 * kGroup && !bad; ++i) {
    const unsigned char *page = g1 + (size_t)i * psz;
    bad |= check(page, 200, 300, kWorkerByte, "node 1's write", me, i);
    if (page == p1 || page == p2)
      bad |= check(page, 0, 100, kHomeByte, page == p1 ? "node 0's write to a page that moved to node 1"
                                                        : "node 0's write to a page that stayed, copied by node 1",
                   me, i);
    else
      bad |= check(page, 0, 100, 1, "the initial bytes", me, i);
    bad |= check(page, 400, 500, page == q2 ? kOtherByte : 1, "node 2's write", me, i);
  }
  rdsm_barrier(); /* 3 */
  if (me == 0 && !bad) printf("PASS withheld_merge\n");
  rdsm_finalize();
  return bad ? 1 : 0;
}
