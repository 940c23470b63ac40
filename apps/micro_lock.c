/* Lock micro-benchmark: microseconds per rdsm_lock + rdsm_unlock.
 *
 * Four phases, each on its own lock id.  Every id is chosen so that
 * id mod nodes == 1: its manager is node 1, a remote node for node 0.
 *
 *  uncontended  node 0 takes and releases the lock COUNT times while every
 *               other node waits in a barrier.  With manager-based locks
 *               only the first acquire leaves node 0 (the token stays with
 *               the last holder), so the first acquire is reported on its
 *               own next to the mean.
 *  hand-off     nodes 0 and 1 take the lock strictly in turn, HANDOFFS
 *               turns each: a shared turn variable, read and written under
 *               the lock, says whose turn it is; a node that finds it is not
 *               its turn releases the lock, yields the processor and tries
 *               again.  Every turn is
 *               therefore an acquire of a lock the other node just released,
 *               together with the page holding the turn variable.  Reported
 *               as total time / (2 x HANDOFFS).  With --threads, thread 0 of
 *               each node takes part.
 *  thread hand-off  with --threads T >= 2 only: the same between threads 0
 *               and 1 of node 0, which pass the lock to each other within
 *               the node (cohort locks; every 16 local hand-offs the node
 *               gives the lock back through the protocol).
 *  contended    every thread of every node takes the lock COUNT times and
 *               increments a counter under it.  Reported per node (its
 *               threads' mean loop time / COUNT, what one acquire + release
 *               costs a thread under contention) and for the job (slowest
 *               loop / (nodes x threads x COUNT), the time the lock is busy
 *               per critical section).  The counter must end at nodes x
 *               threads x COUNT and the hand-off turn counts at 2 x HANDOFFS.
 *
 * The two node phases need 2 nodes; a single node of 2 threads or more
 * runs the thread hand-off and the contended phase only.
 */
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/app_util.h"
#include "rdsm.h"

static const char *kUsage = "[--count K] [--handoffs H] [--json FILE]\n"
                            "  uncontended: node 0 takes a lock managed by node 1 K times (default 10000);\n"
                            "  hand-off: nodes 0 and 1 take one lock strictly in turn, H turns each (default K);\n"
                            "  thread hand-off (--threads 2 or more): threads 0 and 1 of node 0 do the same;\n"
                            "  contended: every thread takes one lock K times and increments a shared counter.\n"
                            "  Reports microseconds per acquire + release.  Needs 2 nodes, or 2 threads per node.";

/* What one node measured; written into shared memory, read by node 0. */
typedef struct node_result {
  double uncontended_seconds; /* node 0: the whole loop */
  double first_acquire_seconds; /* node 0: the first rdsm_lock of the loop */
  double handoff_seconds;     /* nodes 0 and 1: the hand-off loop */
  uint64_t handoff_attempts;  /* acquires taken, including those that found the other node's turn */
  double contended_seconds;   /* every node: its threads' mean contended loop */
  double contended_max_seconds; /* every node: its slowest thread's contended loop */
  rdsm_stats uncontended_stats, handoff_stats, contended_stats;
} node_result;

/* Shared state of the hand-off phase: one page of its own. */
typedef struct handoff_state {
  int32_t turn;    /* 0 or 1: the node whose turn it is */
  int32_t pad;
  int64_t turns;   /* turns taken by either node */
} handoff_state;

/* What the threads of one node share in the threaded phases (node memory:
 * the threads of a node are one process). */
typedef struct thread_job {
  volatile handoff_state *hs; /* thread hand-off: turn 0 or 1 = local thread */
  volatile int64_t *counter;  /* contended */
  int lock_handoff, lock_contended;
  long long handoffs, count;
  double handoff_seconds[2];
  uint64_t handoff_attempts[2];
  double contended_seconds[256]; /* per local thread (--threads is at most 256) */
} thread_job;

static int local_thread(void) { return rdsm_thread_id() - rdsm_rank() * rdsm_node_threads(); }

/* Takes `lock` until `handoffs` turns of `who` (0 or 1) are done, strictly
 * alternating with the other party through hs->turn.  Returns the acquires. */
static uint64_t take_turns(volatile handoff_state *hs, int lock, int who, long long handoffs) {
  uint64_t attempts = 0;
  for (long long done = 0; done < handoffs;) {
    rdsm_lock(lock);
    ++attempts;
    int mine_now = hs->turn == who;
    if (mine_now) {
      hs->turn = 1 - who;
      hs->turns = hs->turns + 1;
      ++done;
    }
    rdsm_unlock(lock);
    if (!mine_now) sched_yield(); /* let the other party run when they share a core */
  }
  return attempts;
}

/* Threads 0 and 1 of node 0 pass the lock to each other. */
static void thread_handoff(void *arg) {
  thread_job *j = (thread_job *)arg;
  const int local = local_thread();
  rdsm_barrier();
  if (rdsm_rank() == 0 && local <= 1) {
    double t0 = rdsm_wtime();
    j->handoff_attempts[local] = take_turns(j->hs, j->lock_handoff, local, j->handoffs);
    j->handoff_seconds[local] = rdsm_wtime() - t0;
  }
  rdsm_barrier();
}

static void contended(void *arg) {
  thread_job *j = (thread_job *)arg;
  double t0 = rdsm_wtime();
  for (long long k = 0; k < j->count; ++k) {
    rdsm_lock(j->lock_contended);
    *j->counter = *j->counter + 1;
    rdsm_unlock(j->lock_contended);
  }
  j->contended_seconds[local_thread()] = rdsm_wtime() - t0;
}

static void json_phase_stats(FILE *f, const char *name, const node_result *r, int nodes, size_t offset) {
  fprintf(f, "\"%s\": [", name);
  for (int q = 0; q < nodes; ++q) {
    if (q) fprintf(f, ", ");
    app_json_stats(f, (const rdsm_stats *)((const char *)&r[q] + offset));
  }
  fprintf(f, "]");
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const char *prog = argc > 0 ? argv[0] : "micro_lock";
  long long count = 10000, handoffs = -1;
  const char *json = NULL;
  app_args args = app_args_start(argc, argv, "micro_lock", kUsage);
  while (app_args_next(&args)) {
    if (app_arg_int(&args, "--count", 1, 100000000, "count", &count)) continue;
    if (app_arg_int(&args, "--handoffs", 1, 100000000, "count", &handoffs)) continue;
    if (app_arg_string(&args, "--json", &json)) continue;
    app_arg_unknown(&args);
  }
  if (handoffs < 0) handoffs = count;
  const int me = rdsm_rank(), nodes = rdsm_nodes(), threads = rdsm_node_threads();
  if (nodes < 2 && threads < 2)
    app_usage_exit(prog, kUsage, "needs at least 2 nodes or 2 threads (rdsm run -n 2, or -n 1 --threads 2)");
  /* Managed by node 1 (manager = id mod nodes), one id per phase. */
  const int lock_uncontended = 1, lock_handoff = 1 + nodes, lock_contended = 1 + 2 * nodes,
            lock_thread_handoff = 1 + 3 * nodes;
  if (lock_thread_handoff >= rdsm_lock_count())
    app_usage_exit(prog, kUsage, "needs lock ids up to %d; the job has %d (rdsm run --locks)", lock_thread_handoff,
                   rdsm_lock_count());
  const size_t psz = rdsm_page_size();

  app_verdict verdict = app_verdict_create();
  node_result *results = (node_result *)rdsm_malloc_all(sizeof(node_result) * (size_t)nodes, RDSM_PLACE_DEFAULT);
  volatile handoff_state *hs = (volatile handoff_state *)rdsm_malloc_all(psz, RDSM_PLACE_DEFAULT);
  volatile int64_t *counter = (volatile int64_t *)rdsm_malloc_all(psz, RDSM_PLACE_DEFAULT);
  volatile handoff_state *ths = (volatile handoff_state *)rdsm_malloc_all(psz, RDSM_PLACE_DEFAULT);
  static thread_job tj; /* static: too large for some threads' stacks, and one per process anyway */
  tj.hs = ths;
  tj.counter = counter;
  tj.lock_handoff = lock_thread_handoff;
  tj.lock_contended = lock_contended;
  tj.handoffs = handoffs;
  tj.count = count;
  node_result mine;
  memset(&mine, 0, sizeof mine);

  /* ---- uncontended: node 0 alone, the others in the barrier ---- */
  rdsm_barrier();
  if (me == 0 && nodes >= 2) {
    rdsm_reset_stats();
    double t0 = rdsm_wtime();
    rdsm_lock(lock_uncontended);
    double t1 = rdsm_wtime();
    rdsm_unlock(lock_uncontended);
    for (long long k = 1; k < count; ++k) {
      rdsm_lock(lock_uncontended);
      rdsm_unlock(lock_uncontended);
    }
    mine.uncontended_seconds = rdsm_wtime() - t0;
    mine.first_acquire_seconds = t1 - t0;
    rdsm_get_stats(&mine.uncontended_stats);
  }
  rdsm_barrier();

  /* ---- hand-off: nodes 0 and 1 in strict alternation ---- */
  rdsm_reset_stats();
  if (me <= 1 && nodes >= 2) {
    double t0 = rdsm_wtime();
    mine.handoff_attempts = take_turns(hs, lock_handoff, me, handoffs);
    mine.handoff_seconds = rdsm_wtime() - t0;
  }
  rdsm_get_stats(&mine.handoff_stats);
  rdsm_barrier();

  /* ---- thread hand-off: threads 0 and 1 of node 0 ---- */
  if (threads >= 2) rdsm_run_threads(thread_handoff, &tj);

  /* ---- contended: every thread, one lock ---- */
  rdsm_reset_stats();
  rdsm_run_threads(contended, &tj);
  for (int t = 0; t < threads; ++t) {
    mine.contended_seconds += tj.contended_seconds[t] / threads;
    if (tj.contended_seconds[t] > mine.contended_max_seconds) mine.contended_max_seconds = tj.contended_seconds[t];
  }
  rdsm_get_stats(&mine.contended_stats);
  results[me] = mine;
  rdsm_barrier();

  int pass = 0;
  if (me == 0) {
    int64_t got_counter = *counter, got_turns = hs->turns, got_thread_turns = ths->turns;
    int32_t got_turn = hs->turn;
    int64_t want_counter = (int64_t)nodes * threads * count, want_turns = nodes >= 2 ? 2 * handoffs : 0,
            want_thread_turns = threads >= 2 ? 2 * handoffs : 0;
    pass = got_counter == want_counter && got_turns == want_turns && got_turn == 0 &&
           got_thread_turns == want_thread_turns && ths->turn == 0;
    const node_result *r0 = &results[0];
    double unc_us = r0->uncontended_seconds * 1e6 / (double)count;
    double first_us = r0->first_acquire_seconds * 1e6;
    /* Mean of the acquires after the first: the cost of re-taking a lock
     * this node released last (0 when count is 1). */
    double rest_us = count > 1 ? (r0->uncontended_seconds - r0->first_acquire_seconds) * 1e6 / (double)(count - 1) : 0;
    double handoff_us = -1, thread_handoff_us = -1; /* -1: not run (JSON null) */
    uint64_t attempts = 0, thread_attempts = tj.handoff_attempts[0] + tj.handoff_attempts[1];
    if (nodes >= 2) {
      double handoff_wall = results[0].handoff_seconds > results[1].handoff_seconds ? results[0].handoff_seconds
                                                                                    : results[1].handoff_seconds;
      handoff_us = handoff_wall * 1e6 / (double)(2 * handoffs);
      attempts = results[0].handoff_attempts + results[1].handoff_attempts;
    }
    if (threads >= 2) {
      double wall = tj.handoff_seconds[0] > tj.handoff_seconds[1] ? tj.handoff_seconds[0] : tj.handoff_seconds[1];
      thread_handoff_us = wall * 1e6 / (double)(2 * handoffs);
    }
    double cont_max = 0, cont_mean_us = 0;
    for (int q = 0; q < nodes; ++q) {
      if (results[q].contended_max_seconds > cont_max) cont_max = results[q].contended_max_seconds;
      cont_mean_us += results[q].contended_seconds * 1e6 / (double)count;
    }
    cont_mean_us /= nodes;
    double cont_serial_us = cont_max * 1e6 / ((double)nodes * threads * (double)count);
    if (pass) {
      printf("PASS micro_lock: %d nodes x %d threads, protocol %s:", nodes, threads, rdsm_protocol_name());
      if (nodes >= 2)
        printf(" uncontended %.3f us per acquire+release (first %.3f us, then %.3f us), hand-off %.3f us,", unc_us,
               first_us, rest_us, handoff_us);
      if (threads >= 2) printf(" thread hand-off %.3f us,", thread_handoff_us);
      printf(" contended %.3f us per thread (%.3f us per critical section)\n", cont_mean_us, cont_serial_us);
    } else
      printf("FAIL micro_lock: %d nodes x %d threads, protocol %s: counter %lld (expected %lld), hand-off turns "
             "%lld (expected %lld), thread hand-off turns %lld (expected %lld), final turns %d and %d (expected "
             "0)\n",
             nodes, threads, rdsm_protocol_name(), (long long)got_counter, (long long)want_counter,
             (long long)got_turns, (long long)want_turns, (long long)got_thread_turns, (long long)want_thread_turns,
             got_turn, (int)ths->turn);
    if (nodes >= 2)
      printf("  uncontended: lock %d (manager node %d), %lld acquires by node 0, lock_acquires %llu, messages %llu, "
           "one_sided_ops %llu\n",
           lock_uncontended, lock_uncontended % nodes, count,
           (unsigned long long)r0->uncontended_stats.lock_acquires,
           (unsigned long long)r0->uncontended_stats.messages_sent,
           (unsigned long long)r0->uncontended_stats.one_sided_ops);
    if (nodes >= 2)
      printf("  hand-off: lock %d, %lld turns each for nodes 0 and 1, %llu acquires in all (%.3f per turn)\n",
             lock_handoff, handoffs, (unsigned long long)attempts, (double)attempts / (double)(2 * handoffs));
    if (threads >= 2)
      printf("  thread hand-off: lock %d, %lld turns each for threads 0 and 1 of node 0, %llu acquires in all "
             "(%.3f per turn)\n",
             lock_thread_handoff, handoffs, (unsigned long long)thread_attempts,
             (double)thread_attempts / (double)(2 * handoffs));
    for (int q = 0; q < nodes; ++q)
      printf("  contended node %d: %.3f us per acquire+release per thread, lock_wait %.6f s\n", q,
             results[q].contended_seconds * 1e6 / (double)count, results[q].contended_stats.lock_wait);
    fflush(stdout);
    FILE *f = app_json_begin(prog, json, "micro_lock", pass);
    if (f) {
      fprintf(f, ", \"threads\": %d, \"count\": %lld, \"handoffs\": %lld", threads, count, handoffs);
      if (nodes >= 2)
        fprintf(f,
                ", \"uncontended_us\": %.6f, \"uncontended_first_us\": %.6f, \"uncontended_rest_us\": %.6f, "
                "\"handoff_us\": %.6f, \"handoff_attempts\": %llu",
                unc_us, first_us, rest_us, handoff_us, (unsigned long long)attempts);
      else
        fprintf(f, ", \"uncontended_us\": null, \"uncontended_first_us\": null, \"uncontended_rest_us\": null, "
                   "\"handoff_us\": null, \"handoff_attempts\": null");
      if (threads >= 2)
        fprintf(f, ", \"thread_handoff_us\": %.6f, \"thread_handoff_attempts\": %llu", thread_handoff_us,
                (unsigned long long)thread_attempts);
      else
        fprintf(f, ", \"thread_handoff_us\": null, \"thread_handoff_attempts\": null");
      fprintf(f, ", \"contended_us\": %.6f, \"contended_serial_us\": %.6f, \"counter\": %lld, \"contended_node_us\": [",
              cont_mean_us, cont_serial_us, (long long)got_counter);
      for (int q = 0; q < nodes; ++q)
        fprintf(f, "%s%.6f", q ? ", " : "", results[q].contended_seconds * 1e6 / (double)count);
      fprintf(f, "], ");
      json_phase_stats(f, "uncontended_stats", results, nodes, offsetof(node_result, uncontended_stats));
      fprintf(f, ", ");
      json_phase_stats(f, "handoff_stats", results, nodes, offsetof(node_result, handoff_stats));
      fprintf(f, ", ");
      json_phase_stats(f, "contended_stats", results, nodes, offsetof(node_result, contended_stats));
      app_json_end(f, NULL);
    }
  }
  int status = app_verdict_publish(verdict, pass);
  rdsm_finalize();
  return status;
}
