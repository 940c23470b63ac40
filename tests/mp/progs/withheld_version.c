/* withheld_version: a diff withheld for a home move must not count as
 * arrived because an earlier diff of the same interval bumped the page's
 * version (home_migration.cpp, "Withheld diffs").
 *
 * Three nodes and one page P homed at node 0 (H).  Node 1 (W) writes P in
 * two intervals, so that P stays writable at W between releases ("kept",
 * rewrites=compare).  H then names P in a notice (its first release after
 * W copied the page: H may have written it unnoticed), and W learns that
 * notice at a lock acquire, outside any barrier: W's kept copy may hold
 * writes of its open interval, so they go home at once, tagged with that
 * interval's id, which so becomes P's version of W at H before the
 * interval is closed.  W alone wrote P in that epoch, so at the next
 * barrier W is P's last single writer.
 *
 * In the next epoch W and node 2 write P.  At its release W may withhold
 * P's diff, expecting P to move to it; the others then wait for the
 * withheld interval's version before they read P.  That version is already
 * there (the early diff), so unless the runtime never withholds a page
 * whose interval already reached its home, H and node 2 read P without
 * W's last writes whenever W is slow to send the diff at the barrier.  The
 * test makes W slow there: RDSM_FAULT=barrier:1:N:delay, N the barrier
 * after the second epoch (tests/mp/tests.cmake).
 *
 *   rdsm run -n 3 --protocol rdsm withheld_version
 * Prints PASS or FAIL (exit status 1 on FAIL). */
#include <stdio.h>
#include <string.h>

#include "schedule_test.h"

enum { kLock = 0, kW = 2048, kX = 3000, kLen = 100 };

static void set_flag(volatile unsigned *flag, unsigned v) {
  rdsm_lock(kLock);
  *flag = v;
  rdsm_unlock(kLock);
}

static int check(const unsigned char *p, size_t from, unsigned char want, const char *what) {
  for (size_t i = from; i < from + kLen; ++i)
    if (p[i] != want) {
      fprintf(stderr, "FAIL withheld_version: node %d reads byte %zu of %s as %d, not %d\n", rdsm_rank(), i, what,
              p[i], want);
      return 1;
    }
  return 0;
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank();
  require_nodes(3, "withheld_version");
  const size_t psz = rdsm_page_size();
  if (me == 0) {
    unsigned char *p = (unsigned char *)rdsm_malloc_placed(psz, RDSM_PLACE_LOCAL);
    unsigned *flags = (unsigned *)rdsm_malloc_placed(psz, RDSM_PLACE_LOCAL);
    memset(p, 0, psz);
    memset(flags, 0, psz);
    rdsm_publish_root(0, p);
    rdsm_publish_root(1, flags);
  }
  rdsm_barrier(); /* 1 */
  unsigned char *p = (unsigned char *)rdsm_root(0);
  volatile unsigned *flags = (volatile unsigned *)rdsm_root(1);

  /* Epoch 1: W writes P alone, twice; H names P after W copied it. */
  if (me == 1) {
    memset(p + kW, 1, kLen);
    set_flag(&flags[0], 1);  /* release: P's diff; P write-protected */
    memset(p + kW, 2, kLen); /* written again soon: kept from now on */
    set_flag(&flags[1], 1);  /* release: P stays writable, with its twin */
    /* The acquire that brings H's notice of P; no release meanwhile (each
     * would age P's keep window until P is write-protected). */
    do rdsm_acquire();
    while (flags[2] != 1);
  } else if (me == 0) {
    /* H makes no release until W's last one: it would name P (W's diffs
     * change H's copy) and W would drop P before keeping it.  H is the
     * flags' home: W's diff lands in the copy it reads. */
    while (flags[1] != 1) {
    }
    set_flag(&flags[2], 1); /* this release names P */
  }
  rdsm_barrier(); /* 2 */

  /* Epoch 2: W and node 2 write P. */
  if (me == 1) memset(p + kW, 3, kLen);
  if (me == 2) memset(p + kX, 4, kLen);
  rdsm_barrier(); /* 3: W is held here (RDSM_FAULT) */
  int bad = check(p, kW, 3, "node 1's part") + check(p, kX, 4, "node 2's part");
  rdsm_barrier(); /* 4 */
  if (me == 0 && !bad) printf("PASS withheld_version\n");
  rdsm_finalize();
  return bad ? 1 : 0;
}
