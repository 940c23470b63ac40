/* withheld_merge: pages a worker writes alone while their home names them
 * "maybe written" (home_migration.cpp: the group rule, withheld diffs,
 * keep_withheld_on).
 *
 * Three nodes; 64 pages homed at node 0 (H), which writes them all before
 * anyone copies them: untracked.
 *   Epoch 1: node 1 (W) writes bytes [200, 300) of every page of two
 *     aligned groups of 16 pages, G1 and G2.  H waits 300 ms, until W has
 *     copied them, then writes bytes [0, 100) of one page of each group,
 *     P1 and P2, untracked: at its release it learns of W's copies and
 *     names all of them "maybe written".  W wrote whole groups alone, but
 *     the home may have written them too (it did, P1 and P2): nothing
 *     moves, W's diffs go home and its copies, which lack H's bytes, are
 *     dropped.
 *   Epoch 2: W writes bytes [300, 400) of every page of G1 and G2 again:
 *     alone for the second time, so its release withholds their diffs.
 *     Node 2 writes bytes [400, 500) of P2.  Every page but P2 moves to W
 *     (its copy is the page); P2, with two writers, stays at H, and W's
 *     withheld diff goes home.
 * After each barrier every node must read every byte written so far, and
 * W must have become home of 31 pages.
 *
 *   rdsm run -n 3 --protocol rdsm withheld_merge
 * Prints PASS or FAIL (exit status 1 on FAIL). */
#include <time.h>

#include "schedule_test.h"

enum { kPages = 64, kGroup = 16, kHomeByte = 5, kWorkerByte = 6, kWorkerByte2 = 8, kOtherByte = 7 };

static int check(const unsigned char *page, size_t from, size_t to, int want, const char *what, int me, int index) {
  for (size_t i = from; i < to; ++i)
    if (page[i] != want) {
      fprintf(stderr, "FAIL withheld_merge: node %d reads byte %zu of page %d as %d, not %d (%s)\n", me, i, index,
              page[i], want, what);
      return 1;
    }
  return 0;
}

/* Every byte of G1 and G2 as it must be after epoch `epoch`. */
static int check_groups(const unsigned char *g1, const unsigned char *p1, const unsigned char *p2, int epoch,
                        int me) {
  const size_t psz = rdsm_page_size();
  int bad = 0;
  for (int i = 0; i < 2 * kGroup && !bad; ++i) {
    const unsigned char *page = g1 + (size_t)i * psz;
    bad |= check(page, 0, 100, page == p1 || page == p2 ? kHomeByte : 1, "node 0's write, or the initial bytes",
                 me, i);
    bad |= check(page, 200, 300, kWorkerByte, "node 1's first write", me, i);
    bad |= check(page, 300, 400, epoch == 2 ? kWorkerByte2 : 1, "node 1's second write", me, i);
    bad |= check(page, 400, 500, epoch == 2 && page == p2 ? kOtherByte : 1, "node 2's write", me, i);
  }
  return bad;
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank();
  require_nodes(3, "withheld_merge");
  const size_t psz = rdsm_page_size();
  unsigned char *base = pages_of_node0(kPages, 1); /* barrier 1 */
  unsigned char *g1 = aligned_group(base, kGroup);
  unsigned char *g2 = g1 + (size_t)kGroup * psz;
  unsigned char *p1 = g1 + 3 * psz, *p2 = g2 + 5 * psz;
  rdsm_stats before;
  rdsm_get_stats(&before);
  if (me == 1) {
    for (int i = 0; i < 2 * kGroup; ++i) memset(g1 + (size_t)i * psz + 200, kWorkerByte, 100);
  } else if (me == 0) {
    struct timespec wait = {0, 300 * 1000 * 1000};
    nanosleep(&wait, NULL);
    memset(p1, kHomeByte, 100);
    memset(p2, kHomeByte, 100);
  }
  rdsm_barrier(); /* 2: nothing moves */
  int bad = check_groups(g1, p1, p2, 1, me);
  rdsm_barrier(); /* 3 */
  if (me == 1) {
    for (int i = 0; i < 2 * kGroup; ++i) memset(g1 + (size_t)i * psz + 300, kWorkerByte2, 100);
  } else if (me == 2) {
    memset(p2 + 400, kOtherByte, 100);
  }
  rdsm_barrier(); /* 4: all but P2 move to node 1 */
  bad |= check_groups(g1, p1, p2, 2, me);
  rdsm_stats after;
  rdsm_get_stats(&after);
  const uint64_t moved = after.migrations - before.migrations, want = me == 1 ? 2 * kGroup - 1 : 0;
  if (moved != want) {
    fprintf(stderr, "FAIL withheld_merge: node %d became home of %llu pages, not %llu\n", me,
            (unsigned long long)moved, (unsigned long long)want);
    bad = 1;
  }
  rdsm_barrier(); /* 5 */
  if (me == 0 && !bad) printf("PASS withheld_merge\n");
  rdsm_finalize();
  return bad ? 1 : 0;
}
