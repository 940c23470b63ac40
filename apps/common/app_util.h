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

/* ---- option loop -------------------------------------------------------- */

/* Every program's option loop reads as the list of the options it knows:
 *
 *   app_args args = app_args_start(argc, argv, "barnes", kUsage);
 *   while (app_args_next(&args)) {
 *     if (app_arg_size(&args, &a.size)) continue;
 *     if (app_arg_int(&args, "-b", 2, 1L << 22, "body count", &bodies)) continue;
 *     if (app_arg_double(&args, "--theta", 0.0, 1.0, APP_OPEN_MIN, &a.theta)) continue;
 *     if (app_arg_string(&args, "--json", &a.json)) continue;
 *     app_arg_unknown(&args);
 *   }
 *
 * Every option takes a value, except those named in `flags` (set before
 * the loop, e.g. args.flags = "--release"; read with app_arg_flag);
 * -h/--help prints the usage and ends the job normally; a bad value is a
 * usage error that names the option, the value and what was expected. */
typedef struct app_args {
  int argc, i;
  char **argv;
  const char *prog, *usage;
  const char *flags;     /* options without a value, separated by spaces */
  const char *opt, *val; /* the option being read and its value (NULL for a flag) */
} app_args;

static inline app_args app_args_start(int argc, char **argv, const char *name, const char *usage) {
  app_args a = {argc, 0, argv, argc > 0 ? argv[0] : name, usage, NULL, NULL, NULL};
  return a;
}

/* Whether `opt` is one of the space-separated words of `flags`. */
static inline int app_args_is_flag(const char *flags, const char *opt) {
  size_t n = strlen(opt);
  for (const char *w = flags; w && *w;) {
    while (*w == ' ') ++w;
    size_t len = strcspn(w, " ");
    if (len && len == n && !strncmp(w, opt, n)) return 1;
    w += len;
  }
  return 0;
}

/* Moves to the next option and its value; 0 when there are no more. */
static inline int app_args_next(app_args *a) {
  if (++a->i >= a->argc) return 0;
  a->opt = a->argv[a->i];
  a->val = app_args_is_flag(a->flags, a->opt) ? NULL : app_option_value(a->argc, a->argv, &a->i, a->prog, a->usage);
  return 1;
}

/* If the option is the flag `name`: *out = 1, and 1. */
static inline int app_arg_flag(app_args *a, const char *name, int *out) {
  if (strcmp(a->opt, name)) return 0;
  *out = 1;
  return 1;
}

/* If the option is `name`: its value as a whole number in [min, max] into
 * *out, and 1.  `what` names the quantity in the error message. */
static inline int app_arg_int(app_args *a, const char *name, long long min, long long max, const char *what,
                              long long *out) {
  if (strcmp(a->opt, name)) return 0;
  if (app_parse_i64(a->val, min, max, out))
    app_usage_exit(a->prog, a->usage, "%s: bad %s '%s' (%lld .. %lld)", name, what, a->val, min, max);
  return 1;
}

/* The same for an unsigned 64-bit value (seeds). */
static inline int app_arg_u64(app_args *a, const char *name, const char *what, uint64_t *out) {
  if (strcmp(a->opt, name)) return 0;
  if (app_parse_u64(a->val, out))
    app_usage_exit(a->prog, a->usage, "%s: bad %s '%s' (an unsigned integer)", name, what, a->val);
  return 1;
}

/* Which ends of a real interval are open. */
enum { APP_CLOSED = 0, APP_OPEN_MIN = 1, APP_OPEN_MAX = 2, APP_OPEN = 3 };

/* If the option is `name`: its value as a real number in the interval from
 * min to max (ends open as `open` says) into *out, and 1. */
static inline int app_arg_double(app_args *a, const char *name, double min, double max, int open, double *out) {
  if (strcmp(a->opt, name)) return 0;
  char *end = NULL;
  errno = 0;
  double v = strtod(a->val, &end);
  int above = (open & APP_OPEN_MIN) ? v > min : v >= min;
  int below = (open & APP_OPEN_MAX) ? v < max : v <= max;
  if (!*a->val || errno || *end != '\0' || !above || !below)
    app_usage_exit(a->prog, a->usage, "%s: '%s' is not in %c%g, %g%c", name, a->val, (open & APP_OPEN_MIN) ? '(' : '[',
                   min, max, (open & APP_OPEN_MAX) ? ')' : ']');
  *out = v;
  return 1;
}

/* If the option is `name`: its value as it is into *out, and 1. */
static inline int app_arg_string(app_args *a, const char *name, const char **out) {
  if (strcmp(a->opt, name)) return 0;
  *out = a->val;
  return 1;
}

/* --size test|medium|paper into *out, and 1. */
static inline int app_arg_size(app_args *a, const char **out) {
  if (strcmp(a->opt, "--size")) return 0;
  *out = app_size_name(a->prog, a->usage, a->val);
  return 1;
}

/* The option is none of the program's: a usage error. */
static inline void app_arg_unknown(const app_args *a) {
  app_usage_exit(a->prog, a->usage, "unknown option %s", a->opt);
}

/* A usage error about the option being read (for checks of its own). */
#define app_arg_error(a, ...) app_usage_exit((a)->prog, (a)->usage, __VA_ARGS__)

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
          ", \"invalidations\": %" PRIu64 ", \"lock_acquires\": %" PRIu64 ", \"barriers\": %" PRIu64
          ", \"diff_ops\": %" PRIu64 ", \"migrations\": %" PRIu64 ", \"prefetched\": %" PRIu64
          ", \"prefetch_used\": %" PRIu64 ", \"prefetch_wasted\": %" PRIu64 ", \"refreshed\": %" PRIu64 "}",
          s->total, s->compute, s->data_wait, s->lock_wait, s->barrier_wait, s->barrier_protocol, s->handler,
          s->read_faults, s->write_faults, s->pages_fetched, s->twins, s->diffs, s->diff_bytes, s->messages_sent,
          s->message_bytes, s->one_sided_ops, s->invalidations, s->lock_acquires, s->barriers, s->diff_ops,
          s->migrations, s->prefetched, s->prefetch_used, s->prefetch_wasted, s->refreshed);
}

/* Opens a JSON output file or says why not (node 0 only calls it). */
static inline FILE *app_json_open(const char *prog, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) fprintf(stderr, "%s: cannot write %s: %s\n", prog, path, strerror(errno));
  return f;
}

/* A program's JSON result, one object per file (node 0 only):
 *
 *   FILE *f = app_json_begin(prog, a.json, "lu", pass);
 *   if (f) {
 *     fprintf(f, ", \"n\": %ld, \"parallel_seconds\": %.9f", n, t);
 *     app_json_end(f, &st);
 *   }
 *
 * app_json_begin writes the fields every program has (program, pass, nodes,
 * protocol); the program adds its own, each starting with ", ";
 * app_json_end adds node 0's statistics and closes the file.  NULL path:
 * no JSON wanted, NULL returned. */
static inline FILE *app_json_begin(const char *prog, const char *path, const char *program, int pass) {
  if (!path) return NULL;
  FILE *f = app_json_open(prog, path);
  if (f)
    fprintf(f, "{\"program\": \"%s\", \"pass\": %s, \"nodes\": %d, \"protocol\": \"%s\"", program,
            pass ? "true" : "false", rdsm_nodes(), rdsm_protocol_name());
  return f;
}

static inline void app_json_end(FILE *f, const rdsm_stats *node0) {
  if (node0) {
    fprintf(f, ", \"node0_stats\": ");
    app_json_stats(f, node0);
  }
  fprintf(f, "}\n");
  fclose(f);
}

/* The lines `rdsm bench` reads from every application (PROGRAM parallel,
 * sequential) and node 0's time breakdown. */
static inline void app_print_times(const char *program, double t_parallel, double t_sequential,
                                   const rdsm_stats *node0) {
  printf("%s parallel %.6f s\n", program, t_parallel);
  printf("sequential %.6f s\n", t_sequential);
  char label[96];
  snprintf(label, sizeof label, "%s node 0", program);
  app_print_breakdown(stdout, label, node0);
  fflush(stdout);
}

/* How the job ran, for the result lines: "N nodes", or "N nodes x T
 * threads" when each node runs T compute threads (--threads), so that a
 * run of one thread per node prints what it always has. */
static inline const char *app_shape(char *buf, size_t len) {
  int nodes = rdsm_nodes(), threads = rdsm_node_threads();
  if (threads > 1) snprintf(buf, len, "%d nodes x %d threads", nodes, threads);
  else snprintf(buf, len, "%d nodes", nodes);
  return buf;
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
