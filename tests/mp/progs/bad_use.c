/* bad_use CASE [marker...]: uses the rdsm API wrongly in one way (the cases
 * misuse.c does not cover).  The runtime must end the job with a message
 * that names the cause and what to do; if the wrong call returns instead,
 * this program says so and exits with status 0, which the tests count as a
 * failure.
 *   unlock_not_held   rdsm_unlock(3) without rdsm_lock(3)
 *   lock_twice        rdsm_lock(3) twice (locks are not recursive)
 *   trylock_held      rdsm_lock(3), then rdsm_trylock(3)
 *   barrier_some      only node 0 calls rdsm_barrier, the others finalize
 *   after_finalize    rdsm_barrier after rdsm_finalize
 *   publish_private   rdsm_publish_root(0, p) with p on the stack
 *   placement         rdsm_malloc_placed with an unknown placement
 *   stats_null        rdsm_get_stats(NULL)
 *   region_taken      maps memory at RDSM_REGION_BASE, then rdsm_init
 * Further arguments are ignored (tests use one to find the job's
 * processes). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "rdsm.h"

static int returned(const char *what) {
  fprintf(stderr, "bad_use: %s returned instead of ending the program\n", what);
  if (rdsm_initialized()) rdsm_finalize();
  return 0;
}

int main(int argc, char **argv) {
  const char *c;
  if (argc < 2) {
    fprintf(stderr, "usage: bad_use CASE [marker...]\n");
    return 64;
  }
  c = argv[1];

  if (strcmp(c, "region_taken") == 0) {
    const char *base = getenv("RDSM_REGION_BASE");
    void *want, *got;
    if (!base) {
      fprintf(stderr, "bad_use: region_taken needs RDSM_REGION_BASE\n");
      return 64;
    }
    want = (void *)(uintptr_t)strtoull(base, NULL, 0);
    got = mmap(want, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (got != want) {
      fprintf(stderr, "bad_use: cannot map memory at %p\n", want);
      return 64;
    }
    rdsm_init(&argc, &argv);
    return returned("rdsm_init over a range already in use");
  }

  rdsm_init(&argc, &argv);
  if (strcmp(c, "unlock_not_held") == 0) {
    rdsm_unlock(3);
    return returned("unlocking a lock not held");
  }
  if (strcmp(c, "lock_twice") == 0) {
    rdsm_lock(3);
    rdsm_lock(3);
    return returned("locking a lock twice");
  }
  if (strcmp(c, "trylock_held") == 0) {
    rdsm_lock(3);
    rdsm_trylock(3);
    return returned("trying a lock this node holds");
  }
  if (strcmp(c, "barrier_some") == 0) {
    if (rdsm_rank() == 0) rdsm_barrier();
    rdsm_finalize();
    if (rdsm_rank() == 0) fprintf(stderr, "bad_use: a barrier of node 0 alone returned\n");
    return 0;
  }
  if (strcmp(c, "after_finalize") == 0) {
    rdsm_finalize();
    rdsm_barrier();
    fprintf(stderr, "bad_use: a barrier after rdsm_finalize returned instead of ending the program\n");
    return 0;
  }
  if (strcmp(c, "publish_private") == 0) {
    int local = 0;
    rdsm_publish_root(0, &local);
    return returned("publishing a private pointer");
  }
  if (strcmp(c, "placement") == 0) {
    void *p = rdsm_malloc_placed(64, (rdsm_placement)99);
    fprintf(stderr, "bad_use: got %p\n", p);
    return returned("an unknown placement");
  }
  if (strcmp(c, "stats_null") == 0) {
    rdsm_get_stats(NULL);
    return returned("rdsm_get_stats(NULL)");
  }
  fprintf(stderr, "bad_use: unknown case '%s'\n", c);
  rdsm_finalize();
  return 64;
}
