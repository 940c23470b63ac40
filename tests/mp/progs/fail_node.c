/* fail_node MODE RANK DIR [marker...]
 *
 * Every node joins the job, records its pid in DIR/pid.<rank> and meets the
 * others at a barrier; then node RANK fails in the way MODE says while the
 * others wait in a second barrier that can never complete:
 *   segv        a store to an inaccessible page (a real SIGSEGV outside
 *               the shared region)
 *   exit3       exit(3)
 *   hang        sleeps until it is killed
 *   nofinalize  returns 0 from main without calling rdsm_finalize
 *   migrate     does not fail by itself: node 0 first writes an array,
 *               then every node rewrites its own block of it in two epochs,
 *               so that one of the next two barriers moves the blocks'
 *               homes (under home=migrate)
 *               and RDSM_FAULT=home_migration:RANK[:N] ends node RANK
 *               there; the job must not get past that barrier
 * Just before failing, node RANK writes the time (microseconds since the
 * epoch) to DIR/failtime.  DIR may be "-" to record nothing.  Further
 * arguments are ignored (tests use one to find the job's processes). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "rdsm.h"

static const char *g_dir;

/* Writes DIR/name atomically, so a reader never sees half a line. */
static void record(const char *name, long long value) {
  char path[4096], tmp[4200];
  FILE *f;
  if (!g_dir || strcmp(g_dir, "-") == 0) return;
  snprintf(path, sizeof path, "%s/%s", g_dir, name);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  f = fopen(tmp, "w");
  if (!f) {
    perror(tmp);
    exit(70);
  }
  fprintf(f, "%lld\n", value);
  if (fclose(f) != 0 || rename(tmp, path) != 0) {
    perror(path);
    exit(70);
  }
}

static long long now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int main(int argc, char **argv) {
  const char *mode;
  int target, me;
  char name[64];

  if (argc < 4) {
    fprintf(stderr, "usage: fail_node segv|exit3|hang|nofinalize|migrate RANK DIR [marker...]\n");
    return 64;
  }
  mode = argv[1];
  target = atoi(argv[2]);
  g_dir = argv[3];
  if (strcmp(mode, "segv") && strcmp(mode, "exit3") && strcmp(mode, "hang") && strcmp(mode, "nofinalize") &&
      strcmp(mode, "migrate")) {
    fprintf(stderr, "fail_node: unknown mode '%s'\n", mode);
    return 64;
  }

  rdsm_init(&argc, &argv);
  me = rdsm_rank();
  snprintf(name, sizeof name, "pid.%d", me);
  record(name, (long long)getpid());
  rdsm_barrier();

  if (strcmp(mode, "migrate") == 0) {
    size_t page = rdsm_page_size(), pages = 16 * (size_t)rdsm_nodes();
    unsigned char *a = rdsm_malloc_all(pages * page, RDSM_PLACE_FIRST_TOUCH);
    if (me == 0) memset(a, 1, pages * page);
    rdsm_barrier();
    memset(a + (size_t)me * 16 * page, 2 + me, 16 * page);
    if (me == target) record("failtime", now_us());
    /* Node 0 may name its blocks "maybe written" at this barrier (it learns
     * of the copies only now), and then they wait for a second epoch. */
    rdsm_barrier();
    memset(a + (size_t)me * 16 * page, 6 + me, 16 * page);
    rdsm_barrier(); /* the blocks have moved home by here; node RANK dies on the way */
    rdsm_finalize();
    fprintf(stderr, "fail_node: node %d got past the barrier at which node %d was to die\n", me, target);
    return 72;
  }

  if (me == target) {
    record("failtime", now_us());
    if (strcmp(mode, "segv") == 0) {
      /* A page of our own without access, not a null pointer: sanitizers
       * check stores through null pointers before they happen. */
      volatile int *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if ((void *)p == MAP_FAILED) {
        perror("fail_node: mmap");
        return 70;
      }
      if (rdsm_is_shared((const void *)p)) {
        fprintf(stderr, "fail_node: a private mapping is inside the shared region\n");
        return 70;
      }
      *p = 42;
      fprintf(stderr, "fail_node: the store to an inaccessible page did not fault\n");
      return 71;
    }
    if (strcmp(mode, "exit3") == 0) exit(3);
    if (strcmp(mode, "hang") == 0)
      for (;;) pause();
    if (strcmp(mode, "nofinalize") == 0) return 0;
  }

  /* The other nodes: wait for a node that will never come. */
  rdsm_barrier();
  rdsm_finalize();
  fprintf(stderr, "fail_node: node %d got past a barrier that node %d never reached\n", me, target);
  return 72;
}
