/* Option handling shared by the SPLASH-dialect programs: a bad option or
 * value ends the program with exit status 2, a message naming it and the
 * usage text.  The including program defines SPLASH_PROGRAM (its name) and
 * `usage_text` first.  Also the times every program prints after its check
 * (print_times). */
#ifndef RDSM_SPLASH_ARGS_H
#define RDSM_SPLASH_ARGS_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, SPLASH_PROGRAM ": ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n%s", usage_text);
  exit(2);
}

/* The value of option `opt`, a whole number in lo..hi. */
static long parse_long(const char *opt, const char *arg, long lo, long hi) {
  char *end;
  long v;
  errno = 0;
  v = strtol(arg, &end, 10);
  if (errno || end == arg || *end != '\0' || v < lo || v > hi) {
    char what[160];
    snprintf(what, sizeof what, "%s: '%%s' is not a whole number in %ld..%ld", opt, lo, hi);
    usage_error(what, arg);
  }
  return v;
}

/* After getopt (with opterr = 0) met an option not in `options`, or one
 * of them without its value: ends the program saying which. */
static void bad_option(const char *options) {
  char opt[3] = {'-', (char)optopt, 0};
  const char *at = optopt && optopt != ':' ? strchr(options, optopt) : NULL;
  if (at && at[1] == ':') usage_error("option %s needs a value", opt);
  usage_error("unknown option %s", opt);
}

/* The times, from CLOCK's microseconds: the parallel phase; the same from
 * just before the first CREATE, the job's start included (where the
 * parallel phase starts there too, both are the same); the sequential
 * reference. */
static void print_times(unsigned long start, unsigned long create, unsigned long end, unsigned long seq_start,
                        unsigned long seq_end) {
  printf("parallel %.6f s\n", (double)(end - start) * 1e-6);
  printf("from create %.6f s\n", (double)(end - create) * 1e-6);
  printf("sequential %.6f s\n", (double)(seq_end - seq_start) * 1e-6);
}

#endif
