#include "bootstrap/node_file.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/error.hpp"

namespace rdsm {

std::vector<int> create_node_files(int count) {
  std::vector<int> fds;
  for (int i = 0; i < count; ++i) {
    char name[32];
    snprintf(name, sizeof name, "rdsm-node-%d", i);
    int fd = memfd_create(name, 0);
    if (fd < 0)
      fatal("memfd_create failed for node %d: %s (rdsm needs Linux memfd support and a free file descriptor)",
            i, strerror(errno));
    if (ftruncate(fd, (off_t)kNodeFileBytes) != 0)
      fatal("cannot size the memory file of node %d to %llu bytes: %s (check `ulimit -f`)", i,
            (unsigned long long)kNodeFileBytes, strerror(errno));
    fds.push_back(fd);
  }
  return fds;
}

void discard_file_range(int fd, uint64_t off, uint64_t len) {
  if (len == 0) return;
  if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len) != 0)
    fatal("cannot clear %llu bytes of a node memory file: %s", (unsigned long long)len, strerror(errno));
}

std::string format_fd_list(const std::vector<int> &fds) {
  std::string s;
  for (size_t i = 0; i < fds.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(fds[i]);
  }
  return s;
}

std::vector<int> parse_fd_list(const std::string &text, int expected_count) {
  std::vector<int> fds;
  const char *p = text.c_str();
  while (*p) {
    char *end = nullptr;
    long v = strtol(p, &end, 10);
    if (end == p || v < 0) fatal("RDSM_NODE_FDS=%s is malformed; start programs with `rdsm run`", text.c_str());
    fds.push_back((int)v);
    p = end;
    if (*p == ',') ++p;
    else if (*p) fatal("RDSM_NODE_FDS=%s is malformed; start programs with `rdsm run`", text.c_str());
  }
  if ((int)fds.size() != expected_count)
    fatal("RDSM_NODE_FDS lists %zu files for %d nodes; start programs with `rdsm run`", fds.size(),
          expected_count);
  for (int fd : fds)
    if (fcntl(fd, F_GETFD) < 0)
      fatal("node memory file descriptor %d is not open in this process; start programs with `rdsm run` "
            "and do not close inherited descriptors",
            fd);
  return fds;
}

NodeBlock *map_node_block(int fd) {
  void *p = mmap(nullptr, kNodeBlockBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) fatal("cannot map a node memory file: %s", strerror(errno));
  return static_cast<NodeBlock *>(p);
}

void unmap_node_block(NodeBlock *b) { munmap(b, kNodeBlockBytes); }

}  // namespace rdsm
