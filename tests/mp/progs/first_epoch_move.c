/* first_epoch_move: a worker's first epoch over whole groups of pages the
 * master filled (home_migration.cpp: withheld diffs, the group rule).
 *
 * Three nodes; 48 pages homed at node 0, which fills them before anyone
 * copies them.
 *   Epoch 1: nobody writes.
 *   Epoch 2: node 1 writes bytes [100, 200) of every page of two aligned
 *     groups of 16 pages, G1 and G2, for the first time; node 2 writes
 *     bytes [300, 400) of one page Q of G2.  Both wait 300 ms first, so
 *     that node 0 has released before anyone copies its pages (a home that
 *     releases after the copies names them "maybe written": withheld_merge
 *     has that case).  Node 1 wrote G1 whole and
 *     alone: it moves to node 1 at this barrier, and node 1's release
 *     withholds its diffs (its copy is the page).  G2 has a second writer:
 *     nothing of it moves, and node 1's diffs of G2 go home after all (at
 *     the catch-up for Q, at the barrier's end for the rest).
 * After each barrier every node must read every byte written so far; node
 * 1 must have become home of G1's 16 pages, sending no diff for them.
 *
 *   rdsm run -n 3 --protocol rdsm first_epoch_move
 * Prints PASS or FAIL (exit status 1 on FAIL). */
#include <time.h>

#include "schedule_test.h"

enum { kPages = 48, kGroup = 16, kWorkerByte = 6, kOtherByte = 7 };

static int check_groups(const unsigned char *g1, const unsigned char *q, int epoch, int me) {
  const size_t psz = rdsm_page_size();
  for (int i = 0; i < 2 * kGroup; ++i) {
    const unsigned char *page = g1 + (size_t)i * psz;
    for (size_t b = 0; b < psz; ++b) {
      int want = 1;
      if (epoch == 2 && b >= 100 && b < 200) want = kWorkerByte;
      if (epoch == 2 && page == q && b >= 300 && b < 400) want = kOtherByte;
      if (page[b] != want) {
        fprintf(stderr, "FAIL first_epoch_move: node %d reads byte %zu of page %d as %d, not %d after epoch %d\n", me,
                b, i, page[b], want, epoch);
        return 1;
      }
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank();
  require_nodes(3, "first_epoch_move");
  const size_t psz = rdsm_page_size();
  unsigned char *base = pages_of_node0(kPages, 1); /* barrier 1 */
  unsigned char *g1 = aligned_group(base, kGroup);
  unsigned char *g2 = g1 + (size_t)kGroup * psz;
  unsigned char *q = g2 + 9 * psz;
  rdsm_barrier(); /* 2: epoch 1 ends */
  rdsm_stats before;
  rdsm_get_stats(&before);
  if (me != 0) {
    struct timespec wait = {0, 300 * 1000 * 1000};
    nanosleep(&wait, NULL);
  }
  if (me == 1) {
    for (int i = 0; i < 2 * kGroup; ++i) memset(g1 + (size_t)i * psz + 100, kWorkerByte, 100);
  } else if (me == 2) {
    memset(q + 300, kOtherByte, 100);
  }
  rdsm_barrier(); /* 3: G1 moves to node 1 */
  rdsm_stats after;
  rdsm_get_stats(&after);
  int bad = check_groups(g1, q, 2, me);
  const uint64_t moved = after.migrations - before.migrations, want = me == 1 ? kGroup : 0;
  if (moved != want) {
    fprintf(stderr, "FAIL first_epoch_move: node %d became home of %llu pages, not %llu\n", me,
            (unsigned long long)moved, (unsigned long long)want);
    bad = 1;
  }
  const uint64_t diffs = after.diffs - before.diffs;
  if (me == 1 && diffs > kGroup) {
    fprintf(stderr, "FAIL first_epoch_move: node 1 sent %llu diffs, more than G2's %d: G1's were not withheld\n",
            (unsigned long long)diffs, kGroup);
    bad = 1;
  }
  rdsm_barrier(); /* 4 */
  if (me == 0 && !bad) printf("PASS first_epoch_move\n");
  rdsm_finalize();
  return bad ? 1 : 0;
}
