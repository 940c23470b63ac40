/* dense_refused: a page that dense write-ahead no longer opens, because it
 * was opened for nothing twice (write_ahead.cpp), must not be fetched by
 * it either: fetched and not opened, it would be valid here but unmapped,
 * and its next access would fault for ever.
 *
 * Three nodes; an aligned group of 16 pages homed at node 0.  In each of
 * three rounds nodes 1 and 2 write bytes 0 and 50 of pages 0, 3 and 7 of
 * the group (no stream, no stride: the third fault opens the group,
 * fetching what the node lacks; two writers, so no page moves), and node 0
 * writes byte 100 of page 12, so that the others' copies of it are dropped
 * at every barrier and fetched again.  Page 12 is opened and not written in
 * rounds 1 and 2; in round 3 nodes 1 and 2 read byte 300 of it.
 *
 *   rdsm run -n 3 --protocol rdsm dense_refused
 * Prints PASS or FAIL (exit status 1 on FAIL; a node faulting for ever is
 * ended by the launcher's --timeout). */
#include "schedule_test.h"

enum { kGroup = 16, kSpare = 12, kRounds = 3 };

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank();
  require_nodes(3, "dense_refused");
  const size_t psz = rdsm_page_size();
  unsigned char *g = aligned_group(pages_of_node0(2 * kGroup, 1), kGroup);
  const int written[3] = {0, 3, 7};
  int bad = 0;
  for (int round = 1; round <= kRounds && !bad; ++round) {
    if (me == 0) {
      g[(size_t)kSpare * psz + 100] = (unsigned char)(30 + round);
    } else {
      for (int k = 0; k < 3; ++k) g[(size_t)written[k] * psz + (me == 1 ? 0 : 50)] = (unsigned char)(10 * me + round);
      if (round == kRounds && g[(size_t)kSpare * psz + 300] != 1) {
        fprintf(stderr, "FAIL dense_refused: node %d reads byte 300 of page %d as %d, not 1\n", me, kSpare,
                g[(size_t)kSpare * psz + 300]);
        bad = 1;
      }
    }
    rdsm_barrier();
  }
  for (int k = 0; k < 3 && !bad; ++k) {
    const unsigned char *page = g + (size_t)written[k] * psz;
    if (page[0] != 10 + kRounds || page[50] != 20 + kRounds) {
      fprintf(stderr, "FAIL dense_refused: node %d reads page %d as %d/%d, not %d/%d\n", me, written[k], page[0],
              page[50], 10 + kRounds, 20 + kRounds);
      bad = 1;
    }
  }
  if (!bad && g[(size_t)kSpare * psz + 100] != 30 + kRounds) {
    fprintf(stderr, "FAIL dense_refused: node %d reads byte 100 of page %d as %d, not %d\n", me, kSpare,
            g[(size_t)kSpare * psz + 100], 30 + kRounds);
    bad = 1;
  }
  rdsm_barrier();
  if (me == 0 && !bad) printf("PASS dense_refused\n");
  rdsm_finalize();
  return bad ? 1 : 0;
}
