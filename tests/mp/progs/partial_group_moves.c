/* partial_group_moves: whole aligned groups that one node writes in part,
 * while the pages' home writes the rest of them unnoticed, move by the
 * budget only (home_migration.cpp: kPartlyWritten, the group rule).
 *
 * Two nodes; 1024 pages (64 aligned groups) homed at node 0.  In every
 * epoch node 1 writes the first half of every page and node 0, their home,
 * the second half: node 0 writes its pages untracked, and names them
 * "maybe written" only if node 1 copied them before its release, so node 1
 * looks like their only writer, group after group (a radix sort's buckets,
 * which every node fills a part of).
 *   Epochs 1 and 2: changed whole, every page would move to node 1 with its
 *     group, outside the budget (in epoch 1 if the home was silent, else in
 *     epoch 2); changed in part, at most the budgets of two barriers move
 *     (64, then 128).
 *   Epoch 3: node 0 writes its half of the moved pages as a node that is
 *     not their home: every move so far is regretted, and moves stop.
 *   Epoch 4: as epoch 2; nothing moves any more.
 * After each barrier every node must read every byte written so far; node
 * 1 must have become home of at most 192 pages, node 0 of none.
 *
 *   rdsm run -n 2 --protocol rdsm partial_group_moves
 * Prints PASS or FAIL (exit status 1 on FAIL). */
#include "schedule_test.h"

enum { kPages = 1024, kGroup = 16, kEpochs = 4, kTwoBudgets = 64 + 128 };

/* The value node `node` writes into its half of page i in epoch e. */
static unsigned char value_of(int node, int i, int e) { return (unsigned char)(1 + node * 100 + e * 10 + i % 7); }

static int check(const unsigned char *pages, int epoch, int me) {
  const size_t psz = rdsm_page_size(), half = psz / 2;
  for (int i = 0; i < kPages; ++i)
    for (size_t b = 0; b < psz; ++b) {
      const int node = b < half ? 1 : 0;
      const unsigned char want = value_of(node, i, epoch), got = pages[(size_t)i * psz + b];
      if (got != want) {
        fprintf(stderr, "FAIL partial_group_moves: node %d reads byte %zu of page %d as %d, not %d after epoch %d\n",
                me, b, i, got, want, epoch);
        return 1;
      }
    }
  return 0;
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank();
  require_nodes(2, "partial_group_moves");
  const size_t psz = rdsm_page_size(), half = psz / 2;
  unsigned char *base = pages_of_node0(kPages + kGroup, 1); /* barrier 1 */
  unsigned char *pages = aligned_group(base, kGroup);
  rdsm_stats before;
  rdsm_get_stats(&before);
  int bad = 0;
  uint64_t moved_after_2 = 0;
  for (int e = 1; e <= kEpochs && !bad; ++e) {
    /* Each node's half of every page: node 1 the first, node 0 the second. */
    for (int i = 0; i < kPages; ++i)
      memset(pages + (size_t)i * psz + (me == 1 ? 0 : half), value_of(me, i, e), half);
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
  const uint64_t moved = after.migrations - before.migrations, most = me == 1 ? kTwoBudgets : 0;
  if (!bad && (moved_after_2 > most || moved > most)) {
    fprintf(stderr,
            "FAIL partial_group_moves: node %d became home of %llu pages by epoch 2 and %llu in all, not %llu or "
            "fewer\n",
            me, (unsigned long long)moved_after_2, (unsigned long long)moved, (unsigned long long)most);
    bad = 1;
  }
  rdsm_barrier();
  if (me == 0 && !bad) printf("PASS partial_group_moves\n");
  rdsm_finalize();
  return bad ? 1 : 0;
}
