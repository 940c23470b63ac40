#include "common/fault_inject.hpp"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace rdsm {

namespace {
const char *const kPoints[] = {"home_migration"};

struct Armed {
  std::string point;  // empty: nothing armed
  long count = 1;
  std::atomic<long> seen{0};
  int rank = -1;
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

// "POINT:NODE[:N]" -> parts; false when malformed.
bool split(const std::string &spec, std::string &point, long &node, long &count, std::string &error) {
  size_t a = spec.find(':');
  if (a == std::string::npos) {
    error = "expected POINT:NODE[:N]";
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
  return split(spec, point, node, count, error);
}

void arm_fault_injection(const std::string &spec, int rank) {
  Armed &a = armed();
  a.point.clear();
  a.seen.store(0);
  if (spec.empty()) return;
  std::string point, error;
  long node, count;
  if (!split(spec, point, node, count, error) || node != rank) return;
  a.point = point;
  a.count = count;
  a.rank = rank;
}

void fault_point(const char *point) {
  Armed &a = armed();
  if (a.point.empty() || a.point != point) return;
  if (a.seen.fetch_add(1) + 1 != a.count) return;
  char line[160];
  int n = snprintf(line, sizeof line, "rdsm[node %d]: fault injection: node %d dies at %s (visit %ld)\n", a.rank,
                   a.rank, point, a.count);
  if (n > 0) (void)!write(STDERR_FILENO, line, (size_t)n);
  kill(getpid(), SIGKILL);
  pause();
}

}  // namespace rdsm
