/* finalize_answers: a node in rdsm_finalize still answers its peers.
 *
 * Under rewrites=compare a page a node writes in release after release
 * stays kept (writable, compared with its twin at each release).  When
 * another node writes the same page in the last interval, the keeper
 * learns it from the notices of rdsm_finalize's barrier and sends its
 * comparison home then, after that barrier, and waits for the home to
 * acknowledge.  The home has by then left the protocol's barrier for the
 * job's last one; in poll mode it answers only while it waits, so that
 * barrier must deliver messages, or the job hangs after its last line.
 *
 * Node 0 homes PAGES pages; node 1 caches them and writes a byte of each
 * in ROUNDS releases; then node 0 writes another byte of each and every
 * node calls rdsm_finalize.  Node 0 prints PASS after checking node 1's
 * bytes; the test fails when the job does not end. */
#include <stdio.h>

#include "rdsm.h"

enum { kPages = 64, kRounds = 6 };

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank();
  const size_t psz = rdsm_page_size();
  if (me == 0) {
    char *p = (char *)rdsm_malloc_placed((size_t)kPages * psz, RDSM_PLACE_LOCAL);
    for (int i = 0; i < kPages; ++i) p[(size_t)i * psz] = 1;
    rdsm_publish_root(0, p);
  }
  rdsm_barrier();
  char *base = (char *)rdsm_root(0);
  if (me == 1)
    for (int r = 0; r < kRounds; ++r) {
      for (int i = 0; i < kPages; ++i) base[(size_t)i * psz + 8] = (char)(r + 2);
      rdsm_release();
    }
  rdsm_barrier();
  if (me == 0) {
    int bad = 0;
    for (int i = 0; i < kPages; ++i) bad += base[(size_t)i * psz + 8] != (char)(kRounds + 1);
    for (int i = 0; i < kPages; ++i) base[(size_t)i * psz + 16] = 3;
    printf("%s finalize_answers (%s): %d of %d pages without node 1's last write\n", bad ? "FAIL" : "PASS",
           rdsm_protocol_name(), bad, kPages);
    fflush(stdout);
  }
  rdsm_finalize();
  return 0;
}
