/* first_copy_log: a home must learn that a page it writes untracked was
 * copied even when the log of first copies cannot name the page
 * (first_copy_log.cpp).
 *
 * Two nodes and one page P homed at node 0 (H).  H writes P before anyone
 * copies it, so it writes P untracked: no fault, no notice.  Node 1 then
 * reads P, its first copy: it counts the copy at H, and is held there for
 * 300 ms before it logs the page (RDSM_FAULT=first_copy_log:1:1:delay,
 * tests/mp/tests.cmake).  Meanwhile H releases again and again (lock
 * hand-offs with itself): each sees the count of first copies moved and
 * no log entry for it, and must look at all its untracked pages.  After a
 * barrier H writes P again; node 1 must read the new bytes after the next
 * barrier.  Had H taken the log's silence for "no page", it would still
 * write P untracked, name it in no notice, and node 1 would keep reading
 * its old copy.
 *
 *   RDSM_FAULT=first_copy_log:1:1:delay rdsm run -n 2 --protocol rdsm first_copy_log
 * Prints PASS or FAIL (exit status 1 on FAIL). */
#include <time.h>

#include "schedule_test.h"

enum { kLock = 1, kLen = 200 };

static double seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank();
  require_nodes(2, "first_copy_log");
  unsigned char *p = pages_of_node0(1, 1); /* barrier 1; untracked: nobody has copied P */
  int bad = 0;
  if (me == 1) {
    /* The first copy; held between its count and its log entry. */
    if (p[100] != 1) {
      fprintf(stderr, "FAIL first_copy_log: node 1 reads byte 100 as %d before any rewrite, not 1\n", p[100]);
      bad = 1;
    }
  } else {
    /* Releases while node 1 is held (and a while after). */
    double end = seconds() + 0.8;
    while (seconds() < end) {
      rdsm_lock(kLock);
      rdsm_unlock(kLock);
    }
  }
  rdsm_barrier(); /* 2 */
  if (me == 0) memset(p, 7, kLen);
  rdsm_barrier(); /* 3 */
  if (me == 1)
    for (int i = 0; i < kLen && !bad; ++i)
      if (p[i] != 7) {
        fprintf(stderr, "FAIL first_copy_log: node 1 reads byte %d of the page as %d, not 7: node 0 kept writing it "
                        "untracked after node 1 copied it\n", i, p[i]);
        bad = 1;
      }
  rdsm_barrier(); /* 4 */
  if (me == 1 && !bad) printf("PASS first_copy_log\n");
  rdsm_finalize();
  return bad ? 1 : 0;
}
