/* Pieces shared by the programs that build one protocol schedule
 * (withheld_version, first_copy_log, withheld_merge, first_epoch_move, withheld_guesses,
 * withheld_shared, group_after_moves, parked_blend, dense_refused, partial_group_moves), require_nodes for dense_scatter, and
 * what strided_gaps, strided_tiles, prefetched_rereads and bulk_rereads share. */
#ifndef RDSM_TESTS_SCHEDULE_TEST_H
#define RDSM_TESTS_SCHEDULE_TEST_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdsm.h"

/* The schedule needs exactly `nodes` nodes: otherwise a usage line and
 * exit status 2. */
static inline void require_nodes(int nodes, const char *prog) {
  if (rdsm_nodes() == nodes) return;
  if (rdsm_rank() == 0) fprintf(stderr, "usage: rdsm run -n %d %s\n", nodes, prog);
  rdsm_finalize();
  exit(2);
}

/* `pages` pages homed at node 0, which fills them with `fill` before
 * anyone copies them (it writes them untracked; fill < 0: it does not
 * write them), published as root 0; every node gets them after a barrier. */
static inline unsigned char *pages_of_node0(size_t pages, int fill) {
  if (rdsm_rank() == 0) {
    unsigned char *p = (unsigned char *)rdsm_malloc_placed(pages * rdsm_page_size(), RDSM_PLACE_LOCAL);
    if (fill >= 0) memset(p, fill, pages * rdsm_page_size());
    rdsm_publish_root(0, p);
  }
  rdsm_barrier();
  return (unsigned char *)rdsm_root(0);
}

/* A matrix of 2 x `rows` rows of `row_pages` pages, homed by block: node
 * 0 homes the first `rows` rows, node 1 the others (two nodes). */
static inline uint64_t *rows_homed_by_block(size_t rows, size_t row_pages) {
  return (uint64_t *)rdsm_malloc_all(2 * rows * row_pages * rdsm_page_size(), RDSM_PLACE_BLOCK);
}

/* The first page at or after `p` that starts an aligned group of `group`
 * pages (the region's base is aligned, so addresses tell). */
static inline unsigned char *aligned_group(unsigned char *p, size_t group) {
  uintptr_t span = (uintptr_t)group * rdsm_page_size();
  return (unsigned char *)(((uintptr_t)p + span - 1) / span * span);
}
/* Rounds of a home rewriting words that another node reads back
 * (prefetched_rereads, bulk_rereads): in each of `rounds` rounds node 0
 * writes value(i, round) into word i * step of `m` (i < count); after a
 * barrier node 1 reads them all and checks them; then a barrier.  Each
 * node's statistics after round `settled`'s first barrier go to
 * *at_settled.  Returns nonzero on node 1 if it read a wrong value (each
 * round's count printed as "FAIL <prog>: ..."). */
static inline int rewrite_reread_rounds(uint64_t *m, size_t step, int count, int rounds, int settled,
                                        uint64_t (*value)(int i, int round), rdsm_stats *at_settled,
                                        const char *prog) {
  const int me = rdsm_rank();
  int bad = 0;
  for (int round = 0; round < rounds; ++round) {
    if (me == 0)
      for (int i = 0; i < count; ++i) m[(size_t)i * step] = value(i, round);
    rdsm_barrier();
    if (round == settled) rdsm_get_stats(at_settled);
    if (me == 1) {
      int wrong = 0;
      for (int i = 0; i < count; ++i) wrong += m[(size_t)i * step] != value(i, round);
      if (wrong) printf("FAIL %s: node 1 read %d wrong values in round %d\n", prog, wrong, round);
      bad |= wrong != 0;
    }
    rdsm_barrier();
  }
  return bad;
}

/* Bytes [from, to) of page `index` of the pages `what` all read `want`;
 * otherwise "FAIL <prog>: ..." names the first that does not, and 1. */
static inline int check_page_bytes(const unsigned char *page, size_t from, size_t to, int want, const char *prog,
                                   const char *what, int index) {
  for (size_t b = from; b < to; ++b)
    if (page[b] != want) {
      fprintf(stderr, "FAIL %s: node %d reads byte %zu of page %d of %s as %d, not %d\n", prog, rdsm_rank(), b,
              index, what, page[b], want);
      return 1;
    }
  return 0;
}

/* Every node's verdict joined to node 0's (every node calls it): node 0
 * prints "PASS <prog>" if none found anything wrong.  Returns this node's
 * verdict, the others' included on node 0. */
static inline int join_verdict(int bad, const char *prog) {
  uint64_t *verdicts = (uint64_t *)rdsm_malloc_all((size_t)rdsm_nodes() * sizeof *verdicts, RDSM_PLACE_DEFAULT);
  verdicts[rdsm_rank()] = (uint64_t)bad;
  rdsm_barrier();
  if (rdsm_rank() == 0) {
    for (int n = 0; n < rdsm_nodes(); ++n) bad |= verdicts[n] != 0;
    if (!bad) printf("PASS %s\n", prog);
  }
  rdsm_barrier();
  return bad;
}
#endif
