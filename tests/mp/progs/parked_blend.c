/* parked_blend: a diff whose every word is only partly written, of pages
 * the home writes too, goes home as a blend while the home is parked in
 * the barrier (whole_page_writes.cpp: write_masked_alone, park).
 *
 * Two nodes; kPages pages homed at node 0 (homes fixed), which node 1
 * copies first.  Each round node 0 writes byte 3 of every 4-byte word (the
 * pages stay writable there: the home may be writing them, its word says
 * so) and enters the barrier, where it parks; node 1 waits 100 ms, so
 * that node 0 is parked by then, writes bytes 0..2 of
 * every word and enters the barrier: its release claims each page alone
 * (the home's application cannot write while parked) and writes the
 * page's 32-byte blocks back whole, node 0's bytes with the values they
 * hold.  After each round both nodes read every byte; at the end node 1
 * must have claimed every page of every round (its `diffs_claimed`).
 * Without the park, node 1 finds the home writing and sends byte-masked
 * writes (0 claims); a blend that wrote node 1's copy of node 0's bytes
 * would lose them.
 *
 *   rdsm run -n 2 --protocol rdsm --axes home=fixed parked_blend
 * Prints PASS or FAIL (exit status 1 on FAIL). */
#include <time.h>

#include "schedule_test.h"

enum { kPages = 8, kRounds = 4 };

static unsigned char home_byte(int round, size_t word) { return (unsigned char)(round * 37 + word * 5 + 1); }
static unsigned char writer_byte(int round, size_t word, int k) {
  return (unsigned char)(round * 11 + word * 3 + k * 101 + 2);
}

/* Reads every page (the sum only keeps the reads). */
static volatile unsigned sum_sink;
static void read_all(const unsigned char *a) {
  unsigned s = 0;
  for (size_t i = 0; i < kPages * rdsm_page_size(); i += 64) s += a[i];
  sum_sink = s;
}

static int check(const unsigned char *a, int me, int round) {
  const size_t words = kPages * rdsm_page_size() / 4;
  for (size_t w = 0; w < words; ++w)
    for (int k = 0; k < 4; ++k) {
      unsigned char want = k == 3 ? home_byte(round, w) : writer_byte(round, w, k);
      if (a[4 * w + (size_t)k] != want) {
        fprintf(stderr, "FAIL parked_blend: node %d reads byte %zu as %d, not %d after round %d\n", me,
                4 * w + (size_t)k, a[4 * w + (size_t)k], want, round);
        return 1;
      }
    }
  return 0;
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank();
  require_nodes(2, "parked_blend");
  unsigned char *a = pages_of_node0(kPages, 0);
  const size_t words = kPages * rdsm_page_size() / 4;
  /* Node 1 copies the pages first: node 0's writes are noticed from then on. */
  if (me == 1) read_all(a);
  rdsm_barrier();
  rdsm_stats before, after;
  rdsm_get_stats(&before);
  int bad = 0;
  for (int round = 1; round <= kRounds && !bad; ++round) {
    if (me == 0) {
      for (size_t w = 0; w < words; ++w) a[4 * w + 3] = home_byte(round, w);
    } else {
      struct timespec wait = {0, 100 * 1000 * 1000};
      nanosleep(&wait, NULL);
      for (size_t w = 0; w < words; ++w)
        for (int k = 0; k < 3; ++k) a[4 * w + (size_t)k] = writer_byte(round, w, k);
    }
    rdsm_barrier();
    bad |= check(a, me, round);
    rdsm_barrier();
  }
  rdsm_get_stats(&after);
  const uint64_t claimed = after.diffs_claimed - before.diffs_claimed;
  if (!bad && me == 1 && claimed != (uint64_t)kPages * kRounds) {
    fprintf(stderr, "FAIL parked_blend: node 1 claimed %llu pages at their home, not %d (%d pages, %d rounds)\n",
            (unsigned long long)claimed, kPages * kRounds, kPages, kRounds);
    bad = 1;
  }
  bad = join_verdict(bad, "parked_blend");
  rdsm_finalize();
  return bad ? 1 : 0;
}
