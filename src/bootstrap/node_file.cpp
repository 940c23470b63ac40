#include "bootstrap/node_file.hpp"

#include <algorithm>
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

namespace {
bool zero_page(const uint8_t *p) {
  const uint64_t *w = reinterpret_cast<const uint64_t *>(p);
  for (size_t i = 0; i < 4096 / 8; i += 8) {
    uint64_t any = 0;
    for (size_t k = 0; k < 8; ++k) any |= w[i + k];
    if (any) return false;
  }
  return true;
}
}  // namespace

std::vector<PageRun> held_page_runs(int fd, uint64_t off, uint64_t pages, uint64_t min_gap,
                                    const PageInPlace &in_place) {
  std::vector<PageRun> runs;
  if (pages == 0) return runs;
  auto fail = [] { fatal("cannot find the written pages of a node memory file: %s", strerror(errno)); };
  // Read through a mapping of its own: no protection of the region's
  // mapping applies, and holes are skipped, never read (which would fill them).
  void *at_map = mmap(nullptr, pages * 4096, PROT_READ, MAP_SHARED, fd, (off_t)off);
  if (at_map == MAP_FAILED) fail();
  const uint8_t *view = static_cast<const uint8_t *>(at_map);
  auto zeros = [&](uint64_t p) {
    const uint8_t *there = in_place ? in_place(p) : nullptr;
    return zero_page(there ? there : view + p * 4096);
  };
  auto add = [&](uint64_t first, uint64_t end) {
    if (!runs.empty() && first - (runs.back().first + runs.back().count) < min_gap)
      runs.back().count = end - runs.back().first;
    else
      runs.push_back({first, end - first});
  };
  const off_t end = (off_t)(off + pages * 4096);
  for (off_t at = (off_t)off; at < end;) {
    off_t data = lseek(fd, at, SEEK_DATA);
    if (data < 0 && errno == ENXIO) break;  // nothing but holes after `at`
    off_t hole = data < 0 ? -1 : lseek(fd, data, SEEK_HOLE);
    if (hole < 0) fail();
    if (data >= end) break;
    const uint64_t last = ((uint64_t)std::min(hole, end) - off + 4095) / 4096;
    for (uint64_t p = ((uint64_t)data - off) / 4096; p < last; ++p) {
      if (zeros(p)) continue;
      uint64_t q = p + 1;
      while (q < last && !zeros(q)) ++q;
      add(p, q);
      p = q;  // q is a page of zeros, or the end
    }
    at = hole;
  }
  munmap(at_map, pages * 4096);
  return runs;
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
