/* dense_scatter: dense write-ahead (write_ahead.cpp) on a permutation's
 * scatter, seen in the write faults of the scatter's interval and checked
 * byte for byte.
 *
 * Two nodes; an array of kBuckets buckets of kBucketPages pages, homed in
 * two blocks (node 0 the first half).  In each of kPasses passes every
 * node writes its half of every bucket (node 0 the first half), one
 * element at a time, the buckets in a pseudo-random order, as a radix
 * sort's cursors do: the first writes land on bucket starts all over the
 * array, two to a group of 16 pages when buckets are 8 pages long.  Each
 * node thus writes pages of both homes, and most pages are written by both
 * nodes.  After each pass's barrier both nodes read every element.
 *
 * Without growing blocks a write fault opened at most its group of 16
 * pages, and only once three pages of that group had faulted (two bucket
 * starts never do): a node took a fault on most of the pages it wrote.
 * Growing blocks (64, then 256 pages, once the interval has opened 4, then
 * 16 groups) and the node's own home pages opened too leave a few faults
 * per block.  The check: fewer than one write fault per kMaxPagesPerFault
 * pages the node writes, in every pass.
 *
 *   rdsm run -n 2 --protocol rdsm dense_scatter
 * Prints PASS or FAIL on node 0 (exit status 1 on FAIL). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "schedule_test.h"

enum { kBuckets = 256, kBucketPages = 8, kPasses = 2, kMaxPagesPerFault = 8 };

static uint32_t value(int pass, size_t i) { return (uint32_t)(i * 2654435761u) ^ (uint32_t)(pass * 40503u + 1); }

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank();
  require_nodes(2, "dense_scatter");
  const size_t per_page = rdsm_page_size() / sizeof(uint32_t);
  const size_t per_bucket = (size_t)kBucketPages * per_page, n = (size_t)kBuckets * per_bucket;
  uint32_t *a = (uint32_t *)rdsm_malloc_all(n * sizeof(uint32_t), RDSM_PLACE_BLOCK);
  size_t *cursor = (size_t *)malloc(kBuckets * sizeof(size_t));
  if (!cursor) {
    fprintf(stderr, "dense_scatter: out of memory\n");
    return 1;
  }
  int bad = 0;
  for (int pass = 0; pass < kPasses; ++pass) { /* every pass, failed or not: the barriers must match */
    rdsm_barrier();
    rdsm_reset_stats();
    /* This node's half of each bucket: elements [lo, lo + half). */
    const size_t half = per_bucket / 2;
    for (int b = 0; b < kBuckets; ++b) cursor[b] = (size_t)b * per_bucket + (size_t)me * half;
    uint32_t x = 12345u + (uint32_t)pass;
    for (size_t k = 0; k < half * kBuckets; ++k) {
      /* A bucket that still has room, picked pseudo-randomly. */
      x = x * 1103515245u + 12345u;
      int b = (int)((x >> 8) % kBuckets);
      while (cursor[b] == (size_t)b * per_bucket + (size_t)me * half + half) b = (b + 1) % kBuckets;
      a[cursor[b]] = value(pass, cursor[b]);
      ++cursor[b];
    }
    rdsm_stats st;
    rdsm_get_stats(&st);
    rdsm_barrier();
    const uint64_t pages_written = (uint64_t)kBuckets * kBucketPages / 2;
    if (!bad && st.write_faults * kMaxPagesPerFault > pages_written) {
      fprintf(stderr,
              "FAIL dense_scatter: node %d took %llu write faults in pass %d for the %llu pages it wrote (at most "
              "one per %d expected)\n",
              me, (unsigned long long)st.write_faults, pass, (unsigned long long)pages_written, kMaxPagesPerFault);
      bad = 1;
    }
    for (size_t i = 0; i < n && !bad; ++i)
      if (a[i] != value(pass, i)) {
        fprintf(stderr, "FAIL dense_scatter: node %d reads element %zu of pass %d as %u, not %u\n", me, i, pass,
                a[i], value(pass, i));
        bad = 1;
      }
  }
  free(cursor);
  rdsm_barrier();
  if (me == 0 && !bad) printf("PASS dense_scatter\n");
  rdsm_finalize();
  return bad ? 1 : 0;
}
