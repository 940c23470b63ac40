#include "common/fault_inject.hpp"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <unistd.h>

namespace rdsm {

namespace {
enum class FaultAction { die, stop, delay, hang };
constexpr long kDelayMs = 300;  // how long "delay" holds the node

const char *const kPoints[] = {"fetch",      "fetch_serve",    "diff_version", "diff_apply",
                               "whole_page", "lock_held",      "barrier",      "home_claim",
                               "home_migration", "refresh",    "copy_counted", "first_copy_log",
                               "mpi_finalize"};

// Appends text or a number to a fixed buffer: no formatting library, so
// that a point reached in the signal handler dies with signal-safe calls only.
void put(char *buf, size_t &n, size_t cap, const char *s) {
  while (*s && n + 1 < cap) buf[n++] = *s++;
}
void put(char *buf, size_t &n, size_t cap, long v) {
  char digits[24];
  int k = 0;
  do digits[k++] = (char)('0' + v % 10); while ((v /= 10) > 0 && k < 23);
  while (k > 0 && n + 1 < cap) buf[n++] = digits[--k];
}

struct Armed {
  std::string point;  // empty: nothing armed
  long count = 1;
  std::atomic<long> seen{0};
  int rank = -1;
  FaultAction action = FaultAction::die;
};
Armed &armed() {
  static Armed a;
  return a;
}

bool known_point(const std::string &p) {
  for (const char *k : kPoints)
    if (p == k) return true;
  return false;
}

// "POINT:NODE[:N[:ACTION]]" -> parts; false when malformed.
bool split(const std::string &spec, std::string &point, long &node, long &count, FaultAction &act,
           std::string &error) {
  size_t a = spec.find(':');
  if (a == std::string::npos) {
    error = "expected POINT:NODE[:N[:ACTION]]";
    return false;
  }
  point = spec.substr(0, a);
  if (!known_point(point)) {
    error = "unknown point '" + point + "'; the points are: " + fault_point_names();
    return false;
  }
  std::string rest = spec.substr(a + 1);
  size_t b = rest.find(':');
  std::string node_text = rest.substr(0, b), count_text = b == std::string::npos ? "1" : rest.substr(b + 1);
  std::string action = "die";
  if (size_t c = count_text.find(':'); c != std::string::npos) {
    action = count_text.substr(c + 1);
    count_text = count_text.substr(0, c);
  }
  if (action == "die") {
    act = FaultAction::die;
  } else if (action == "stop") {
    act = FaultAction::stop;
  } else if (action == "delay") {
    act = FaultAction::delay;
  } else if (action == "hang") {
    act = FaultAction::hang;
  } else {
    error = "ACTION '" + action + "' is not an action; use die, stop, delay or hang";
    return false;
  }
  char *end = nullptr;
  node = strtol(node_text.c_str(), &end, 10);
  if (node_text.empty() || *end || node < 0) {
    error = "NODE '" + node_text + "' is not a node number";
    return false;
  }
  count = strtol(count_text.c_str(), &end, 10);
  if (count_text.empty() || *end || count < 1) {
    error = "N '" + count_text + "' is not a count of 1 or more";
    return false;
  }
  return true;
}
}  // namespace

const char *fault_point_names() {
  static std::string names = [] {
    std::string s;
    for (const char *k : kPoints) s += (s.empty() ? "" : ", ") + std::string(k);
    return s;
  }();
  return names.c_str();
}

bool parse_fault_spec(const std::string &spec, std::string &error) {
  std::string point;
  long node, count;
  FaultAction act;
  return split(spec, point, node, count, act, error);
}

void arm_fault_injection(const std::string &spec, int rank) {
  Armed &a = armed();
  a.point.clear();
  a.seen.store(0);
  if (spec.empty()) return;
  std::string point, error;
  long node, count;
  FaultAction act;
  if (!split(spec, point, node, count, act, error) || node != rank) return;
  a.point = point;
  a.count = count;
  a.rank = rank;
  a.action = act;
}

void fault_point(const char *point) {
  Armed &a = armed();
  if (a.point.empty() || strcmp(a.point.c_str(), point) != 0) return;
  if (a.seen.fetch_add(1) + 1 != a.count) return;
  char line[160];
  size_t n = 0;
  put(line, n, sizeof line, "rdsm[node ");
  put(line, n, sizeof line, (long)a.rank);
  put(line, n, sizeof line, "]: fault injection: node ");
  put(line, n, sizeof line, (long)a.rank);
  put(line, n, sizeof line,
      a.action == FaultAction::stop    ? " stops at "
      : a.action == FaultAction::delay ? " pauses at "
      : a.action == FaultAction::hang  ? " hangs at "
                                       : " dies at ");
  put(line, n, sizeof line, point);
  put(line, n, sizeof line, " (visit ");
  put(line, n, sizeof line, a.count);
  put(line, n, sizeof line, ")\n");
  (void)!write(STDERR_FILENO, line, n);
  if (a.action == FaultAction::delay) {
    // The node is slow here, as a descheduled one would be; the others go on.
    timespec t{0, kDelayMs * 1000000L};
    while (nanosleep(&t, &t) != 0) {
    }
    return;
  }
  if (a.action == FaultAction::hang) {
    // This thread never comes back; the rest of the node goes on (a call
    // into a library that does not return).
    for (;;) pause();
  }
  const bool stop = a.action == FaultAction::stop;
  // SIGSTOP freezes every thread at once, the heartbeat's too: from outside
  // the node is hung, and only the launcher's hang detection can end it.
  kill(getpid(), stop ? SIGSTOP : SIGKILL);
  if (stop) return;  // continued (SIGCONT): carry on as if nothing happened
  pause();
}

}  // namespace rdsm
