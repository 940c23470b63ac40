/* hw_mapped: under `--protocol hw` every node maps node 0's memory, and a
 * node's page-table entries for the shared data are made as the data is
 * allocated (Hlrc::populate_copies), as the other presets' nodes map their
 * copies then: threads sharing one page table would take no fault on data
 * another thread set up, and neither may hw's processes, or the limit hw
 * stands for pays in the parallel phase what rdsm does not.
 *
 * Node 0 writes every page of a 4 MiB array; after a barrier every other
 * node reads a word of each page, and the minor faults it took meanwhile
 * must stay under kMostFaults (reading the pages unmapped takes one fault
 * per 16 pages or so, the kernel's fault-around: 64 here).
 *
 *   rdsm run -n 2 --protocol hw hw_mapped
 * Prints PASS or FAIL (exit status 1 on FAIL). */
#define _GNU_SOURCE /* RUSAGE_THREAD: the reading thread's faults, not the runtime's */
#include <sys/resource.h>

#include "schedule_test.h"

enum { kPages = 1024, kWordsPerPage = 4096 / sizeof(long), kMostFaults = 8 };

static long minor_faults(void) {
  struct rusage u;
  getrusage(RUSAGE_THREAD, &u);
  return u.ru_minflt;
}

/* A word of each page, with no sanitizer between: ASan's shadow of the
 * pages read would take faults of its own (one per 8 pages read). */
__attribute__((no_sanitize_address)) static long sum_pages(const long *data, long *faults) {
  long sum = 0;
  const long before = minor_faults();
  for (long p = 0; p < kPages; ++p) sum += data[p * kWordsPerPage];
  *faults = minor_faults() - before;
  return sum;
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank();
  if (rdsm_nodes() < 2) require_nodes(2, "hw_mapped");
  long *data = (long *)rdsm_malloc_all((size_t)kPages * 4096, RDSM_PLACE_DEFAULT);
  int *failed = (int *)rdsm_malloc_all(sizeof(int) * 64, RDSM_PLACE_DEFAULT);
  if (me == 0)
    for (long p = 0; p < kPages; ++p) data[p * kWordsPerPage] = p * 7 + 1;
  rdsm_barrier();
  int bad = 0;
  if (me != 0) {
    long faults, want = 0;
    const long sum = sum_pages(data, &faults);
    for (long p = 0; p < kPages; ++p) want += p * 7 + 1;
    if (sum != want) {
      printf("FAIL hw_mapped: node %d read a sum of %ld, not %ld\n", me, sum, want);
      bad = 1;
    } else if (faults > kMostFaults) {
      printf("FAIL hw_mapped: node %d took %ld page faults reading %d pages node 0 wrote (at most %d expected: "
             "its view should map them as they are allocated)\n",
             me, faults, kPages, kMostFaults);
      bad = 1;
    }
  }
  fflush(stdout);
  if (me < 64) failed[me] = bad;
  rdsm_barrier();
  int any = 0;
  for (int i = 0; i < rdsm_nodes() && i < 64; ++i) any |= failed[i];
  if (me == 0 && !any) printf("PASS hw_mapped: %d nodes read %d pages without a fault each\n", rdsm_nodes(), kPages);
  rdsm_finalize();
  return any ? 1 : 0;
}
