/* SPLASH pause-flag micro-benchmark: microseconds per hand-off of a
 * SETPAUSE / WAITPAUSE pair between two processes of a fork-join program.
 *
 * The master and one CREATE'd worker take turns: one sets a flag, the other
 * waits for it (WAITPAUSE, then CLEARPAUSE, as SPLASH programs use it: the
 * SPLASH-2 radix sort's prefix tree), works, and sets the flag back.  Each
 * turn writes the next number of a shared counter, which the other side
 * checks after its wait: the pause must carry the writes made before it
 * (it is a release, the wait an acquire).  Two loops: hand-offs with no work
 * between them, and with --work microseconds of busy work on each side
 * before it sets the flag (a waiter that has waited a while: what a sleeping
 * wait loses shows there).  Reported: microseconds per hand-off beyond the
 * work.  PASS when every turn found the counter the other side wrote.
 *
 * A fork-join program: run it as one process (`rdsm run -n 1 micro_pause`);
 * it forks its worker itself.
 */
#include <stdio.h>
#include <stdlib.h>

#include "common/app_util.h"
#include "rdsm.h"
#include "rdsm_splash.h"

static const char *kUsage = "[--rounds R] [--work US] [--json FILE]\n"
                            "  two processes hand a pause flag back and forth R times (default 2000) with no\n"
                            "  work in between, then R / 4 times with US microseconds of work on each side\n"
                            "  (default 200); reports microseconds per hand-off beyond the work.";

struct shared {
  rdsm_splash_pause_t to_worker, to_master;
  rdsm_splash_lock_t id_lock;
  rdsm_splash_barrier_t start;
  long next_id;
  long counter;    /* written by the side whose turn it is */
  long mismatches; /* turns that found another number (written by each side at its end) */
  long worker_mismatches;
};

static struct shared *g;
static long long rounds = 2000, work_us = 200;
static double idle_us, busy_us;

static void busy_for(long long us) {
  unsigned long t0 = rdsm_splash_clock();
  while ((long long)(rdsm_splash_clock() - t0) < us) {
  }
}

/* One loop of `n` rounds; the master times it.  Each round is two hand-offs. */
static double hand_offs(long id, long long n, long long work, long *mismatches) {
  unsigned long t0 = rdsm_splash_clock();
  for (long long r = 0; r < n; ++r) {
    if (id == 0) {
      busy_for(work);
      g->counter = 2 * r + 1;
      rdsm_splash_pause_set(&g->to_worker);
      rdsm_splash_pause_wait(&g->to_master);
      rdsm_splash_pause_clear(&g->to_master);
      if (g->counter != 2 * r + 2) ++*mismatches;
    } else {
      rdsm_splash_pause_wait(&g->to_worker);
      rdsm_splash_pause_clear(&g->to_worker);
      if (g->counter != 2 * r + 1) ++*mismatches;
      busy_for(work);
      g->counter = 2 * r + 2;
      rdsm_splash_pause_set(&g->to_master);
    }
  }
  double us = (double)(rdsm_splash_clock() - t0);
  return (us - 2.0 * (double)n * (double)work) / (2.0 * (double)n);
}

static void take_turns(void) {
  long id, mismatches = 0;
  rdsm_splash_lock(&g->id_lock);
  id = g->next_id++;
  rdsm_splash_unlock(&g->id_lock);
  rdsm_splash_barrier(&g->start, 2);
  hand_offs(id, 16, 0, &mismatches); /* warm-up: the flags' pages and locks in place */
  double idle = hand_offs(id, rounds, 0, &mismatches);
  double busy = hand_offs(id, rounds / 4 > 0 ? rounds / 4 : 1, work_us, &mismatches);
  if (id == 0) {
    idle_us = idle;
    busy_us = busy;
    g->mismatches = mismatches;
  } else {
    g->worker_mismatches = mismatches;
  }
}

int main(int argc, char **argv) {
  const char *prog = argc > 0 ? argv[0] : "micro_pause";
  const char *json = NULL;
  app_args args = app_args_start(argc, argv, "micro_pause", kUsage);
  while (app_args_next(&args)) {
    if (app_arg_int(&args, "--rounds", 1, 100000000, "count", &rounds)) continue;
    if (app_arg_int(&args, "--work", 0, 1000000, "microseconds", &work_us)) continue;
    if (app_arg_string(&args, "--json", &json)) continue;
    app_arg_unknown(&args);
  }
  rdsm_splash_init(0);
  g = (struct shared *)rdsm_splash_malloc(sizeof *g);
  rdsm_splash_pause_init(&g->to_worker);
  rdsm_splash_pause_init(&g->to_master);
  rdsm_splash_lock_init(&g->id_lock);
  rdsm_splash_barrier_init(&g->start);
  g->next_id = 0;
  g->counter = 0;
  g->mismatches = g->worker_mismatches = 0;
  rdsm_splash_create(take_turns);
  take_turns();
  rdsm_splash_wait_for_end(1);

  const long bad = g->mismatches + g->worker_mismatches;
  const int pass = bad == 0;
  if (pass)
    printf("PASS micro_pause: 2 processes, protocol %s: %.2f us per hand-off idle, %.2f us beyond %lld us of work "
           "(%lld and %lld rounds)\n",
           rdsm_protocol_name(), idle_us, busy_us, work_us, rounds, rounds / 4 > 0 ? rounds / 4 : 1);
  else
    printf("FAIL micro_pause: 2 processes, protocol %s: %ld turns found a counter the other process had not "
           "written (a pause flag did not carry the writes before it)\n",
           rdsm_protocol_name(), bad);
  fflush(stdout);
  FILE *f = app_json_begin(prog, json, "micro_pause", pass);
  if (f) {
    fprintf(f, ", \"rounds\": %lld, \"work_us\": %lld, \"idle_us\": %.6f, \"busy_us\": %.6f", rounds, work_us, idle_us,
            busy_us);
    app_json_end(f, NULL);
  }
  rdsm_splash_end();
  return pass ? 0 : 1;
}
