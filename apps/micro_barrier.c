/* Barrier micro-benchmark: microseconds per empty rdsm_barrier().
 *
 * After a few warm-up barriers every node times ROUNDS barriers with no
 * shared-memory work between them, so each barrier carries no write notices
 * and the figure is the synchronisation itself: arrival, the departure
 * message or the atomic counter, and waking up.  Reported: node 0's loop
 * time / ROUNDS, the largest over the nodes, and each node's figure.  PASS
 * when every node completed the loop and counted ROUNDS barriers.
 *
 * With --threads T every thread of every node takes part (rdsm_run_threads):
 * a barrier of N x T threads, gathered within each node first.  A node's
 * figure is then its thread 0's loop; the node still counts one barrier per
 * round (the node-level one).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/app_util.h"
#include "rdsm.h"

static const char *kUsage = "[--rounds R] [--json FILE]\n"
                            "  every node calls rdsm_barrier() R times (default 10000) with nothing in between;\n"
                            "  reports microseconds per barrier (node 0 and the largest over the nodes).";

enum { kWarmup = 16 };

typedef struct node_result {
  double seconds;
  rdsm_stats stats;
} node_result;

typedef struct loop_job {
  long long rounds;
  double seconds; /* thread 0's loop */
} loop_job;

static void barrier_loop(void *arg) {
  loop_job *j = (loop_job *)arg;
  for (int w = 0; w < kWarmup; ++w) rdsm_barrier();
  /* Thread 0 resets after the warm-up barriers, while the others wait in
   * the first timed one, which it then completes. */
  const int thread0 = rdsm_thread_id() == rdsm_rank() * rdsm_node_threads();
  if (thread0) rdsm_reset_stats();
  double t0 = rdsm_wtime();
  for (long long r = 0; r < j->rounds; ++r) rdsm_barrier();
  if (thread0) j->seconds = rdsm_wtime() - t0;
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const char *prog = argc > 0 ? argv[0] : "micro_barrier";
  long long rounds = 10000;
  const char *json = NULL;
  app_args args = app_args_start(argc, argv, "micro_barrier", kUsage);
  while (app_args_next(&args)) {
    if (app_arg_int(&args, "--rounds", 1, 100000000, "count", &rounds)) continue;
    if (app_arg_string(&args, "--json", &json)) continue;
    app_arg_unknown(&args);
  }
  const int me = rdsm_rank(), nodes = rdsm_nodes();

  app_verdict verdict = app_verdict_create();
  node_result *results = (node_result *)rdsm_malloc_all(sizeof(node_result) * (size_t)nodes, RDSM_PLACE_DEFAULT);

  loop_job job = {rounds, 0.0};
  rdsm_run_threads(barrier_loop, &job);
  double seconds = job.seconds;
  const int threads = rdsm_node_threads();
  char shape[32] = ""; /* " x T threads" with --threads */
  if (threads > 1) snprintf(shape, sizeof shape, " x %d threads", threads);
  rdsm_stats st;
  rdsm_get_stats(&st);
  /* Written after the loop: the loop's barriers carry no notices. */
  results[me].seconds = seconds;
  results[me].stats = st;
  int local_ok = st.barriers == (uint64_t)rounds;
  int all_ok = app_verdict_gather(verdict, local_ok);

  int pass = 0;
  if (me == 0) {
    pass = all_ok;
    double us0 = results[0].seconds * 1e6 / (double)rounds, us_max = 0, us_mean = 0;
    for (int q = 0; q < nodes; ++q) {
      double us = results[q].seconds * 1e6 / (double)rounds;
      if (us > us_max) us_max = us;
      us_mean += us;
    }
    us_mean /= nodes;
    if (pass)
      printf("PASS micro_barrier: %d nodes%s x %lld barriers, protocol %s: node 0 %.3f us per barrier, max %.3f us, "
             "mean %.3f us\n",
             nodes, shape, rounds, rdsm_protocol_name(), us0, us_max, us_mean);
    else
      printf("FAIL micro_barrier: %d nodes%s x %lld barriers, protocol %s: some node counted a different number of "
             "barriers\n",
             nodes, shape, rounds, rdsm_protocol_name());
    for (int q = 0; q < nodes; ++q)
      printf("  node %d: %.3f us per barrier, barriers %llu, barrier_wait %.6f s, barrier_protocol %.6f s, "
             "messages %llu, one_sided_ops %llu\n",
             q, results[q].seconds * 1e6 / (double)rounds, (unsigned long long)results[q].stats.barriers,
             results[q].stats.barrier_wait, results[q].stats.barrier_protocol,
             (unsigned long long)results[q].stats.messages_sent, (unsigned long long)results[q].stats.one_sided_ops);
    fflush(stdout);
    FILE *f = app_json_begin(prog, json, "micro_barrier", pass);
    if (f) {
      fprintf(f, ", \"threads\": %d, \"rounds\": %lld, \"node0_us\": %.6f, \"max_us\": %.6f, \"mean_us\": %.6f, \"node_us\": [", threads, rounds,
              us0, us_max, us_mean);
      for (int q = 0; q < nodes; ++q) fprintf(f, "%s%.6f", q ? ", " : "", results[q].seconds * 1e6 / (double)rounds);
      fprintf(f, "], \"stats\": [");
      for (int q = 0; q < nodes; ++q) {
        if (q) fprintf(f, ", ");
        app_json_stats(f, &results[q].stats);
      }
      fprintf(f, "]");
      app_json_end(f, NULL);
    }
  }
  int status = app_verdict_publish(verdict, pass);
  rdsm_finalize();
  return status;
}
