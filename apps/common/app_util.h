/* Helpers shared by the example and benchmark programs: argument parsing,
 * the job-wide PASS/FAIL verdict, statistics printing and a small PRNG.
 *
 * Header only, every function static inline: each program is built from a
 * single .c file.  Only the public rdsm API is used. */
#ifndef RDSM_APP_UTIL_H
#define RDSM_APP_UTIL_H

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdsm.h"

/* ---- arguments ---------------------------------------------------------- */

/* Every node parses the same arguments, so every node reaches the same
 * conclusion; only node 0 prints, so the message appears once. */
static inline void app_usage_exit(const char *prog, const char *usage, const char *fmt, ...) {
  if (rdsm_rank() == 0) {
    if (fmt) {
      va_list ap;
      va_start(ap, fmt);
      fprintf(stderr, "%s: ", prog);
      vfprintf(stderr, fmt, ap);
      fprintf(stderr, "\n");
      va_end(ap);
    }
    fprintf(stderr, "usage: %s %s\n", prog, usage);
  }
  exit(2);
}

/* --help: not an error, so the job ends normally (every node finalizes). */
static inline void app_help_exit(const char *prog, const char *usage) {
  if (rdsm_rank() == 0) printf("usage: %s %s\n", prog, usage);
  rdsm_finalize();
  exit(0);
}

/* The value of the option at argv[*i], advancing *i past it; -h/--help
 * prints the usage and ends the job normally, a missing value is a usage
 * error.  Every program's option loop starts with it. */
static inline const char *app_option_value(int argc, char **argv, int *i, const char *prog, const char *usage) {
  const char *opt = argv[*i];
  if (!strcmp(opt, "-h") || !strcmp(opt, "--help")) app_help_exit(prog, usage);
  if (*i + 1 >= argc) app_usage_exit(prog, usage, "option %s needs a value", opt);
  return argv[++*i];
}

/* The value of --size: test, medium or paper, else a usage error. */
static inline const char *app_size_name(const char *prog, const char *usage, const char *val) {
  if (strcmp(val, "test") && strcmp(val, "medium") && strcmp(val, "paper"))
    app_usage_exit(prog, usage, "--size: '%s' is not test, medium or paper", val);
  return val;
}

/* Parses a whole decimal integer in [min, max]; 0 on success. */
static inline int app_parse_i64(const char *s, long long min, long long max, long long *out) {
  if (!s || !*s) return -1;
  char *end = NULL;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || *end != '\0' || v < min || v > max) return -1;
  *out = v;
  return 0;
}

static inline int app_parse_u64(const char *s, uint64_t *out) {
  if (!s || !*s || *s == '-') return -1;
  char *end = NULL;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || *end != '\0') return -1;
  *out = (uint64_t)v;
  return 0;
}

/* ---- verdict ------------------------------------------------------------ */

/* One slot per node plus the verdict, in shared memory.  Each node reports
 * whether its own checks passed; node 0 decides for the job and publishes the
 * decision, so that every node exits with the same status. */
typedef struct app_verdict {
  volatile int32_t *slots; /* [0, nodes): node reports; [nodes]: verdict */
} app_verdict;

/* Collective: every node calls it at the same point. */
static inline app_verdict app_verdict_create(void) {
  app_verdict v;
  v.slots = (volatile int32_t *)rdsm_malloc_all(sizeof(int32_t) * (size_t)(rdsm_nodes() + 1), RDSM_PLACE_DEFAULT);
  return v;
}

/* Collective.  Each node passes whether its own checks passed; returns, on
 * node 0, whether every node's did (other nodes get their own result). */
static inline int app_verdict_gather(app_verdict v, int local_ok) {
  int me = rdsm_rank(), n = rdsm_nodes();
  v.slots[me] = local_ok ? 1 : 2;
  rdsm_barrier();
  if (me != 0) return local_ok;
  int ok = 1;
  for (int i = 0; i < n; ++i) ok = ok && v.slots[i] == 1;
  return ok;
}

/* Collective.  Node 0's pass decides; returns the exit status for every node
 * (0 on PASS, 1 on FAIL).  Node 0 must have printed its PASS/FAIL line. */
static inline int app_verdict_publish(app_verdict v, int pass) {
  int n = rdsm_nodes();
  if (rdsm_rank() == 0) v.slots[n] = pass ? 1 : 2;
  rdsm_barrier();
  return v.slots[n] == 1 ? 0 : 1;
}

/* ---- statistics --------------------------------------------------------- */

static inline void app_print_breakdown(FILE *f, const char *label, const rdsm_stats *s) {
  fprintf(f,
          "%s: total %.6f s = compute %.6f + data_wait %.6f + lock_wait %.6f + barrier_wait %.6f"
          " + barrier_protocol %.6f; handler %.6f s; read_faults %" PRIu64 " write_faults %" PRIu64
          " pages_fetched %" PRIu64 " twins %" PRIu64 " diffs %" PRIu64 " diff_bytes %" PRIu64
          " messages %" PRIu64 " message_bytes %" PRIu64 " one_sided_ops %" PRIu64 " barriers %" PRIu64 "\n",
          label, s->total, s->compute, s->data_wait, s->lock_wait, s->barrier_wait, s->barrier_protocol,
          s->handler, s->read_faults, s->write_faults, s->pages_fetched, s->twins, s->diffs, s->diff_bytes,
          s->messages_sent, s->message_bytes, s->one_sided_ops, s->barriers);
}

/* The same figures as a JSON object (no trailing newline). */
static inline void app_json_stats(FILE *f, const rdsm_stats *s) {
  fprintf(f,
          "{\"total\": %.9f, \"compute\": %.9f, \"data_wait\": %.9f, \"lock_wait\": %.9f, "
          "\"barrier_wait\": %.9f, \"barrier_protocol\": %.9f, \"handler\": %.9f, "
          "\"read_faults\": %" PRIu64 ", \"write_faults\": %" PRIu64 ", \"pages_fetched\": %" PRIu64
          ", \"twins\": %" PRIu64 ", \"diffs\": %" PRIu64 ", \"diff_bytes\": %" PRIu64
          ", \"messages_sent\": %" PRIu64 ", \"message_bytes\": %" PRIu64 ", \"one_sided_ops\": %" PRIu64
          ", \"invalidations\": %" PRIu64 ", \"lock_acquires\": %" PRIu64 ", \"barriers\": %" PRIu64 "}",
          s->total, s->compute, s->data_wait, s->lock_wait, s->barrier_wait, s->barrier_protocol, s->handler,
          s->read_faults, s->write_faults, s->pages_fetched, s->twins, s->diffs, s->diff_bytes, s->messages_sent,
          s->message_bytes, s->one_sided_ops, s->invalidations, s->lock_acquires, s->barriers);
}

/* Opens a JSON output file or says why not (node 0 only calls it). */
static inline FILE *app_json_open(const char *prog, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) fprintf(stderr, "%s: cannot write %s: %s\n", prog, path, strerror(errno));
  return f;
}

/* ---- misc --------------------------------------------------------------- */

static inline int app_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median of n values (sorts v in place). */
static inline double app_median(double *v, size_t n) {
  if (n == 0) return 0.0;
  qsort(v, n, sizeof *v, app_cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* splitmix64: tiny, fast, good enough for schedules; every node computes the
 * same stream from the same state. */
static inline uint64_t app_splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* A stateless hash of a few numbers: the same inputs give the same output on
 * every node, so schedules need not be stored or exchanged. */
static inline uint64_t app_hash4(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  uint64_t s = a;
  uint64_t h = app_splitmix64(&s);
  s = h ^ b;
  h = app_splitmix64(&s);
  s = h ^ c;
  h = app_splitmix64(&s);
  s = h ^ d;
  return app_splitmix64(&s);
}

#endif /* RDSM_APP_UTIL_H */
