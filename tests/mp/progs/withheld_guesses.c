/* withheld_guesses: a barrier's release withholds only the diffs of pages
 * that will move (home_migration.cpp: withhold_likely_moves).  A diff
 * withheld for a page that then stays goes home after the barrier, where
 * its home waits for it (`withheld_unmoved` counts them).
 *
 * Two nodes; pages homed at node 0.
 *   Epoch 1: node 0 fills 48 pages (A) before anyone copies them: it
 *     writes them untracked.
 *   Epoch 2: node 1 reads every page of an aligned group of 16 pages G of
 *     A, then sets a flag under a lock, then writes bytes [100, 200) of
 *     every page of G; node 0 waits for the flag (taking the lock) before
 *     it goes to the barrier, so its releases find node 1's first copies
 *     and name the pages "maybe written": the group does not move at this
 *     barrier, and node 1 must not withhold its diffs.
 *   Epoch 3: node 1 writes every other page of 400 pages B (never written
 *     by node 0): no group, nothing moves.
 *   Epoch 4: node 1 writes the same pages of B again: alone twice, each
 *     may move, but a barrier moves only a budget of such scattered pages;
 *     node 1 must withhold no more diffs than move.
 * After each barrier both nodes must read every byte written so far; node
 * 1 must have withheld some diffs and sent none of them after a barrier.
 *
 *   rdsm run -n 2 --protocol rdsm withheld_guesses
 * Prints PASS or FAIL (exit status 1 on FAIL). */
#include "schedule_test.h"

enum { kPages = 48, kGroup = 16, kScatter = 400, kWorkerByte = 6, kScatterByte = 9, kFlagLock = 1 };

static const char *const kProg = "withheld_guesses";

static int check_group(const unsigned char *g) {
  const size_t psz = rdsm_page_size();
  int bad = 0;
  for (int i = 0; i < kGroup && !bad; ++i) {
    const unsigned char *page = g + (size_t)i * psz;
    bad |= check_page_bytes(page, 0, 100, 1, kProg, "G", i) |
           check_page_bytes(page, 100, 200, kWorkerByte, kProg, "G", i) | check_page_bytes(page, 200, psz, 1, kProg, "G", i);
  }
  return bad;
}

static int check_scatter(const unsigned char *b, int round) {
  const size_t psz = rdsm_page_size();
  for (int i = 0; i < kScatter; ++i)
    if (check_page_bytes(b + (size_t)i * psz, 0, 64, i % 2 ? 0 : kScatterByte + round, kProg, "B", i)) return 1;
  return 0;
}

static int expect(int ok, const char *what, int me, unsigned long long got) {
  if (ok) return 0;
  fprintf(stderr, "FAIL withheld_guesses: node %d %s (%llu)\n", me, what, got);
  return 1;
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank();
  require_nodes(2, "withheld_guesses");
  const size_t psz = rdsm_page_size();
  unsigned char *a = pages_of_node0(kPages, 1); /* barrier 1 */
  unsigned char *g = aligned_group(a, kGroup);
  if (me == 0) {
    rdsm_publish_root(1, rdsm_malloc_placed((size_t)kScatter * psz, RDSM_PLACE_LOCAL));
    rdsm_publish_root(2, rdsm_malloc_placed(psz, RDSM_PLACE_LOCAL));
  }
  rdsm_barrier(); /* 2 */
  unsigned char *b = (unsigned char *)rdsm_root(1);
  volatile int *copied = (volatile int *)rdsm_root(2);
  rdsm_stats before;
  rdsm_get_stats(&before);
  if (me == 1) {
    unsigned sum = 0;
    for (int i = 0; i < kGroup; ++i) sum += g[(size_t)i * psz];
    rdsm_lock(kFlagLock);
    *copied = (int)sum;
    rdsm_unlock(kFlagLock);
    for (int i = 0; i < kGroup; ++i) memset(g + (size_t)i * psz + 100, kWorkerByte, 100);
  } else {
    for (int seen = 0; !seen;) {
      rdsm_lock(kFlagLock);
      seen = *copied != 0;
      rdsm_unlock(kFlagLock);
    }
  }
  rdsm_barrier(); /* 3: G stays */
  int bad = check_group(g);
  rdsm_stats mid;
  rdsm_get_stats(&mid);
  if (me == 1)
    bad |= expect(mid.diffs_withheld == before.diffs_withheld, "withheld the diffs of G, which its home named maybe written",
                  me, (unsigned long long)(mid.diffs_withheld - before.diffs_withheld));
  for (int round = 0; round < 2; ++round) {
    if (me == 1)
      for (int i = 0; i < kScatter; i += 2) memset(b + (size_t)i * psz, kScatterByte + round, 64);
    rdsm_barrier(); /* 4, 6: B's pages move within the budget */
    bad |= check_scatter(b, round);
    rdsm_barrier(); /* 5, 7 */
  }
  rdsm_stats after;
  rdsm_get_stats(&after);
  if (me == 1) {
    const unsigned long long withheld = after.diffs_withheld - mid.diffs_withheld;
    bad |= expect(withheld > 0, "withheld no diff of B's pages, written alone twice", me, withheld);
    bad |= expect(after.withheld_unmoved == before.withheld_unmoved, "sent withheld diffs after a barrier", me,
                  (unsigned long long)(after.withheld_unmoved - before.withheld_unmoved));
    bad |= expect(after.migrations - mid.migrations == withheld, "did not become home of every page it withheld", me,
                  (unsigned long long)(after.migrations - mid.migrations));
  }
  rdsm_barrier(); /* 8 */
  if (me == 0 && !bad) printf("PASS withheld_guesses\n");
  rdsm_finalize();
  return bad ? 1 : 0;
}
