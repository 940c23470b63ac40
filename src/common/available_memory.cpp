#include "common/available_memory.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace rdsm {

namespace {

// The number in the file, or false where there is none ("max": no limit).
bool read_number(const std::string &path, unsigned long long *v) {
  std::ifstream in(path);
  std::string word;
  if (!(in >> word) || word.empty() || word[0] < '0' || word[0] > '9') return false;
  char *end = nullptr;
  *v = strtoull(word.c_str(), &end, 10);
  return end && *end == '\0';
}

// Lowers `room` to what the limit of the group at `dir` leaves, if it has
// one.  A cgroup v1 group without a limit shows the largest page-aligned
// 64-bit number, which is no limit either.
void lower_to_group(const std::string &dir, const char *limit_file, const char *usage_file, size_t *room) {
  unsigned long long limit = 0, used = 0;
  if (!read_number(dir + "/" + limit_file, &limit) || limit >= (1ull << 62)) return;
  if (!read_number(dir + "/" + usage_file, &used)) used = 0;
  *room = std::min<size_t>(*room, used >= limit ? 0 : (size_t)(limit - used));
}

// The group at `base` + `path` and every group above it, up to `base`.
void lower_along(const std::string &base, std::string path, const char *limit_file, const char *usage_file,
                 size_t *room) {
  while (!path.empty() && path != "/") {
    lower_to_group(base + path, limit_file, usage_file, room);
    path = path.substr(0, path.find_last_of('/'));
  }
}

}  // namespace

size_t available_memory_bytes_from(const std::string &meminfo, const std::string &self_cgroup,
                                   const std::string &cgroup_root) {
  size_t room = 0;
  {
    FILE *f = fopen(meminfo.c_str(), "r");
    if (!f) return 0;
    char line[256];
    long kb = -1;
    while (fgets(line, sizeof line, f))
      if (sscanf(line, "MemAvailable: %ld kB", &kb) == 1) break;
    fclose(f);
    if (kb <= 0) return 0;
    room = (size_t)kb * 1024;
  }
  // /proc/self/cgroup: "0::/path" (v2), "N:a,memory,b:/path" (v1).
  std::ifstream in(self_cgroup);
  std::string line;
  while (std::getline(in, line)) {
    const size_t c1 = line.find(':'), c2 = c1 == std::string::npos ? c1 : line.find(':', c1 + 1);
    if (c2 == std::string::npos) continue;
    const std::string controllers = "," + line.substr(c1 + 1, c2 - c1 - 1) + ",";
    const std::string path = line.substr(c2 + 1);
    if (line.compare(0, c1, "0") == 0 && controllers == ",,")
      lower_along(cgroup_root, path, "memory.max", "memory.current", &room);
    else if (controllers.find(",memory,") != std::string::npos)
      lower_along(cgroup_root + "/memory", path, "memory.limit_in_bytes", "memory.usage_in_bytes", &room);
  }
  return room;
}

size_t available_memory_bytes() {
  return available_memory_bytes_from("/proc/meminfo", "/proc/self/cgroup", "/sys/fs/cgroup");
}

}  // namespace rdsm
