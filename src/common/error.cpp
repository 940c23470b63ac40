#include "common/error.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace rdsm {
namespace {
int g_node = -1;

void vreport(const char *kind, const char *call, const char *fmt, va_list ap) {
  char buf[2048];
  int n;
  if (g_node >= 0)
    n = snprintf(buf, sizeof buf, "rdsm[node %d]: %s", g_node, kind);
  else
    n = snprintf(buf, sizeof buf, "rdsm: %s", kind);
  if (call && n < (int)sizeof buf) n += snprintf(buf + n, sizeof buf - n, "%s: ", call);
  if (n < (int)sizeof buf) n += vsnprintf(buf + n, sizeof buf - n, fmt, ap);
  if (n >= (int)sizeof buf - 1) n = (int)sizeof buf - 2;
  buf[n++] = '\n';
  ssize_t w = write(STDERR_FILENO, buf, (size_t)n);
  (void)w;
}
}  // namespace

void set_diagnostic_node(int node) { g_node = node; }

void fatal(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport("error: ", nullptr, fmt, ap);
  va_end(ap);
  fflush(stdout);
  _exit(2);
}

void api_error(const char *call, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport("error: ", call, fmt, ap);
  va_end(ap);
  fflush(stdout);
  _exit(2);
}

void warn(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport("warning: ", nullptr, fmt, ap);
  va_end(ap);
}

void note(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport("note: ", nullptr, fmt, ap);
  va_end(ap);
}

void fatal_signal_safe(const char *msg) {
  static const char prefix[] = "rdsm: error: ";
  ssize_t w = write(STDERR_FILENO, prefix, sizeof prefix - 1);
  w = write(STDERR_FILENO, msg, strlen(msg));
  w = write(STDERR_FILENO, "\n", 1);
  (void)w;
  _exit(2);
}

}  // namespace rdsm
