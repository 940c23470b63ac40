/* Minipages allocated one after another (sc --minipages on|explicit) are
 * neighbouring virtual pages, runs of 16 within a view, so that a
 * protection change of such a group (the read-shared minipages an owner
 * downgrades at a barrier under fetch=one-sided) is one backend call
 * (api/shared_allocator.hpp).  Node 0 allocates 64 small records, each a
 * minipage, and checks their addresses; then rounds of: node 0 writes every
 * record, barrier, every other node reads and checks them all, barrier.
 * Prints PASS or FAIL from node 0; exits 1 on a failure. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "rdsm.h"

enum { kRecords = 64, kGroup = 16, kRounds = 6 };

typedef struct record {
  uint64_t round, index;
} record;

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank();
  const size_t page = rdsm_page_size();
  record **table = rdsm_malloc_all(sizeof(record *) * kRecords, RDSM_PLACE_DEFAULT);
  int *failed = rdsm_malloc_all(sizeof(int), RDSM_PLACE_DEFAULT);
  if (me == 0) {
    for (int i = 0; i < kRecords; ++i) table[i] = rdsm_malloc_minipage(sizeof(record));
    /* Neighbouring virtual pages but for the step from one view to the
     * next, once per kGroup records (the table above may have taken the
     * first slots of the group, under --minipages on). */
    int breaks = 0;
    for (int i = 0; i + 1 < kRecords; ++i)
      if ((uintptr_t)table[i + 1] / page != (uintptr_t)table[i] / page + 1) ++breaks;
    if (breaks > kRecords / kGroup) {
      printf("FAIL minipage_groups: %d of %d records allocated one after another are not on the page after the "
             "last one's (at most %d may be)\n", breaks, kRecords - 1, kRecords / kGroup);
      *failed = 1;
    }
  }
  rdsm_barrier();
  for (int r = 1; r <= kRounds && !*failed; ++r) {
    if (me == 0)
      for (int i = 0; i < kRecords; ++i) {
        table[i]->round = (uint64_t)r;
        table[i]->index = (uint64_t)i;
      }
    rdsm_barrier();
    if (me != 0)
      for (int i = 0; i < kRecords; ++i)
        if (table[i]->round != (uint64_t)r || table[i]->index != (uint64_t)i) {
          printf("FAIL minipage_groups: node %d, round %d: record %d reads round %llu, index %llu\n", me, r, i,
                 (unsigned long long)table[i]->round, (unsigned long long)table[i]->index);
          rdsm_lock(0);
          *failed = 1;
          rdsm_unlock(0);
          break;
        }
    rdsm_barrier();
  }
  const int ok = !*failed;
  rdsm_barrier();
  if (me == 0 && ok) printf("PASS minipage_groups: %d records in groups of %d, %d rounds\n", kRecords, kGroup, kRounds);
  rdsm_finalize();
  return ok ? 0 : 1;
}
