/* misuse CASE: calls the rdsm API wrongly in one way.  The runtime must end
 * the program with a message naming the call; if the call returns instead,
 * this program says so and exits with status 0, which the test counts as a
 * failure.
 *   lock_before_init     rdsm_lock(0) before rdsm_init
 *   trylock_before_init  rdsm_trylock(0) before rdsm_init
 *   double_init          rdsm_init twice
 *   lock_negative        rdsm_lock(-1)
 *   lock_past_end        rdsm_lock(rdsm_lock_count())
 *   trylock_past_end     rdsm_trylock(rdsm_lock_count())
 *   malloc_zero          rdsm_malloc(0)
 *   malloc_huge          rdsm_malloc(64 MiB); run with a 16 MiB region
 *   root_slot            rdsm_publish_root(99, p) */
#include <stdio.h>
#include <string.h>

#include "rdsm.h"

static int returned(const char *what) {
  fprintf(stderr, "misuse: %s returned instead of ending the program\n", what);
  if (rdsm_initialized()) rdsm_finalize();
  return 0;
}

/* With --threads 2: every thread of the node makes a collective call. */
static void malloc_all_here(void *arg) {
  (void)arg;
  rdsm_malloc_all(64, RDSM_PLACE_DEFAULT);
}

/* With --threads 2: thread 0 of node 0 takes lock 1, thread 1 unlocks it. */
static void unlock_thread_0s_lock(void *arg) {
  (void)arg;
  int local = rdsm_thread_id() % rdsm_node_threads();
  if (rdsm_rank() == 0 && local == 0) rdsm_lock(1);
  rdsm_barrier();
  if (rdsm_rank() == 0 && local == 1) rdsm_unlock(1);
  rdsm_barrier();
}

int main(int argc, char **argv) {
  const char *c;
  if (argc < 2) {
    fprintf(stderr, "usage: misuse CASE\n");
    return 64;
  }
  c = argv[1];

  if (strcmp(c, "lock_before_init") == 0) {
    rdsm_lock(0);
    return returned("a lock before initialisation");
  }

  if (strcmp(c, "trylock_before_init") == 0) {
    rdsm_trylock(0);
    return returned("a trylock before initialisation");
  }

  rdsm_init(&argc, &argv);
  if (strcmp(c, "double_init") == 0) {
    rdsm_init(&argc, &argv);
    return returned("a second initialisation");
  }
  if (strcmp(c, "lock_negative") == 0) {
    rdsm_lock(-1);
    return returned("lock id -1");
  }
  if (strcmp(c, "lock_past_end") == 0) {
    rdsm_lock(rdsm_lock_count());
    return returned("lock id lock_count()");
  }
  if (strcmp(c, "trylock_past_end") == 0) {
    rdsm_trylock(rdsm_lock_count());
    return returned("trylock of lock id lock_count()");
  }
  if (strcmp(c, "malloc_zero") == 0) {
    void *p = rdsm_malloc(0);
    fprintf(stderr, "misuse: got %p\n", p);
    return returned("an allocation of 0 bytes");
  }
  if (strcmp(c, "malloc_huge") == 0) {
    void *p = rdsm_malloc((size_t)64 << 20);
    fprintf(stderr, "misuse: got %p\n", p);
    return returned("an allocation larger than the region");
  }
  if (strcmp(c, "root_slot") == 0) {
    void *p = rdsm_malloc(64);
    rdsm_publish_root(99, p);
    return returned("root slot 99");
  }
  if (strcmp(c, "malloc_all_in_threads") == 0) {
    rdsm_run_threads(malloc_all_here, NULL);
    return returned("rdsm_malloc_all inside rdsm_run_threads");
  }
  if (strcmp(c, "unlock_other_thread") == 0) {
    rdsm_run_threads(unlock_thread_0s_lock, NULL);
    return returned("an unlock by a thread that does not hold the lock");
  }
  fprintf(stderr, "misuse: unknown case '%s'\n", c);
  rdsm_finalize();
  return 64;
}
