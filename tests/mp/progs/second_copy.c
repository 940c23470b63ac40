/* second_copy: a home must learn of every copy of a page it writes
 * untracked, including a copy taken while the page's first copy is still
 * being announced (first_copy_log.cpp).
 *
 * Three nodes; page P homed at node 0 (H), which writes it before anyone
 * copies it (untracked: no fault, no notice); page Q homed at node 2 (X)
 * carries the handshakes.  Node 1 (Y) reads P first: it counts its copy at
 * H and is held there for 300 ms before it announces the copy in H's count
 * of first copies (RDSM_FAULT=copy_counted:1:1:delay, tests/mp/tests.cmake).
 * Meanwhile X reads P too, the second copy, and says so in Q; H sees that
 * under a lock, writes P under the same lock and releases it.  X then
 * takes the lock and reads P: it must see H's bytes.  A home that only
 * learnt of first copies would find no copy announced at that release,
 * name P in no notice, and X would read its old copy.
 *
 *   RDSM_FAULT=copy_counted:1:1:delay rdsm run -n 3 --protocol genima second_copy
 * Prints PASS or FAIL (exit status 1 on FAIL). */
#include <time.h>

#include "schedule_test.h"

enum { kLock = 1, kLen = 200 };

struct handshake {
  long copied; /* X holds its copy of P */
  long written; /* H wrote P */
};

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank();
  require_nodes(3, "second_copy");
  if (me == 2) {
    struct handshake *q = rdsm_malloc_placed(rdsm_page_size(), RDSM_PLACE_LOCAL);
    memset(q, 0, sizeof *q);
    rdsm_publish_root(1, q);
  }
  unsigned char *p = pages_of_node0(1, 1); /* barrier; P untracked at node 0 */
  struct handshake *q = rdsm_root(1);
  int bad = 0;
  if (me == 1) {
    /* The first copy: held between its count and its announcement.  Node
     * 0 may write the page meanwhile (nothing orders this read after it or
     * before), so either value is right. */
    volatile unsigned char *vp = p;
    unsigned char v = vp[100];
    if (v != 1 && v != 7) {
      fprintf(stderr, "FAIL second_copy: node 1 reads byte 100 as %d, neither 1 nor 7\n", v);
      bad = 1;
    }
  } else if (me == 2) {
    sleep_ms(60); /* node 1 is held by now */
    volatile unsigned char *vp = p;
    if (vp[100] != 1) {
      fprintf(stderr, "FAIL second_copy: node 2 reads byte 100 as %d before any write, not 1\n", vp[100]);
      bad = 1;
    }
    rdsm_lock(kLock);
    q->copied = 1;
    rdsm_unlock(kLock);
    for (long written = 0; !written;) {
      rdsm_lock(kLock);
      written = q->written;
      if (written)
        for (int i = 0; i < kLen && !bad; ++i)
          if (vp[i] != 7) {
            fprintf(stderr, "FAIL second_copy: node 2 reads byte %d of the page as %d under the lock, not the 7 "
                            "node 0 wrote there before releasing it: node 0 did not learn of node 2's copy\n",
                    i, vp[i]);
            bad = 1;
          }
      rdsm_unlock(kLock);
    }
  } else {
    for (long copied = 0; !copied;) {
      rdsm_lock(kLock);
      copied = q->copied;
      if (copied) {
        memset(p, 7, kLen);
        q->written = 1;
      }
      rdsm_unlock(kLock);
    }
  }
  rdsm_barrier();
  if (me == 2 && !bad) printf("PASS second_copy\n");
  rdsm_finalize();
  return bad ? 1 : 0;
}
