/* Pieces shared by the programs that build one protocol schedule
 * (withheld_version, first_copy_log, withheld_merge, first_epoch_move, withheld_guesses,
 * group_after_moves, parked_blend, dense_refused), require_nodes for dense_scatter, and
 * what strided_gaps and strided_tiles share. */
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
 * anyone copies them (it writes them untracked), published as root 0;
 * every node gets them after a barrier. */
static inline unsigned char *pages_of_node0(size_t pages, unsigned char fill) {
  if (rdsm_rank() == 0) {
    unsigned char *p = (unsigned char *)rdsm_malloc_placed(pages * rdsm_page_size(), RDSM_PLACE_LOCAL);
    memset(p, fill, pages * rdsm_page_size());
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
#endif
