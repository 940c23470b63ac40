/* withheld_shared: a page whose withheld diff turned out shared is not
 * withheld again (home_migration.cpp: withhold_missed_).
 *
 * Three nodes; pages C (every other page of 64) homed at node 0, which
 * never writes them.  Four times over:
 *   - node 1 writes bytes [0, 64) of every page of C alone: its last
 *     written epoch had another writer (or none), so nothing moves;
 *   - node 1 writes bytes [64, 128) and node 2 bytes [2048, 2112): node 1
 *     wrote the pages alone in their last written epoch, so its release
 *     guesses they move to it and withholds their diffs, but node 2's
 *     notices say otherwise and the diffs go home after the barrier,
 *     where the home waits for them (`withheld_unmoved`).
 * The first such epoch teaches node 1 that the pages are shared: it must
 * withhold no more than one diff per page of C over the four rounds
 * (Ocean's coarse grids' boundary pages, withheld at nearly every barrier
 * otherwise).  After every barrier each node checks every byte written so
 * far.
 *
 *   rdsm run -n 3 --protocol rdsm withheld_shared
 * Prints PASS or FAIL (exit status 1 on FAIL). */
#include "schedule_test.h"

enum { kPages = 64, kRounds = 4, kOtherOffset = 2048 };

/* Bytes [from, from + 64) of every page of C read `want`. */
static int check_bytes(const unsigned char *c, size_t from, int want) {
  for (int i = 0; i < kPages; i += 2)
    if (check_page_bytes(c + (size_t)i * rdsm_page_size(), from, from + 64, want, "withheld_shared", "C", i)) return 1;
  return 0;
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank();
  require_nodes(3, "withheld_shared");
  const size_t psz = rdsm_page_size();
  unsigned char *c = pages_of_node0(kPages, -1); /* barrier */
  rdsm_stats before;
  rdsm_get_stats(&before);
  int bad = 0;
  for (int round = 0; round < kRounds && !bad; ++round) {
    if (me == 1)
      for (int i = 0; i < kPages; i += 2) memset(c + (size_t)i * psz, 10 + round, 64);
    rdsm_barrier(); /* node 1 alone */
    bad |= check_bytes(c, 0, 10 + round);
    if (me == 1)
      for (int i = 0; i < kPages; i += 2) memset(c + (size_t)i * psz + 64, 30 + round, 64);
    if (me == 2)
      for (int i = 0; i < kPages; i += 2) memset(c + (size_t)i * psz + kOtherOffset, 50 + round, 64);
    rdsm_barrier(); /* nodes 1 and 2 */
    bad |= check_bytes(c, 64, 30 + round) | check_bytes(c, kOtherOffset, 50 + round);
  }
  rdsm_stats after;
  rdsm_get_stats(&after);
  const unsigned long long unmoved = after.withheld_unmoved - before.withheld_unmoved;
  if (me == 1 && unmoved > kPages / 2) {
    fprintf(stderr, "FAIL withheld_shared: node 1 withheld %llu diffs of the %d shared pages over %d rounds\n",
            unmoved, kPages / 2, kRounds);
    bad = 1;
  }
  bad = join_verdict(bad, "withheld_shared");
  rdsm_finalize();
  return bad ? 1 : 0;
}
