#include "launcher/mpi_stats.hpp"

#include <cstdio>

#include "stats/stats_line.hpp"

namespace rdsm::launcher {

void take_mpi_stats(const std::vector<std::string> &lines, int nodes, JobResult *result) {
  result->nodes.assign((size_t)nodes, NodeRecord{});
  for (int i = 0; i < nodes; ++i) result->nodes[(size_t)i].rank = i;
  for (const std::string &line : lines) {
    NodeStatsLine n;
    std::string error;
    if (!decode_stats_line(line, &n, &error)) {
      fprintf(stderr, "rdsm: warning: a node's statistics line cannot be read: %s; its row stays empty\n",
              error.c_str());
      continue;
    }
    if (n.rank < 0 || n.rank >= nodes) {
      fprintf(stderr, "rdsm: warning: statistics of a node %d came, and the job has nodes 0 to %d; ignored\n", n.rank,
              nodes - 1);
      continue;
    }
    NodeRecord &node = result->nodes[(size_t)n.rank];
    node.pid = n.pid;
    node.host = n.host;
    node.ended = node.has_stats = true;
    node.stats = n.stats;
    node.threads = n.threads;
    if (n.rank == 0) {
      result->memory = n.memory;
      result->protocol = n.protocol;
      result->region_bytes = n.region_bytes;
    }
  }
  if (result->end != JobEnd::success) return;
  std::string missing;
  for (const NodeRecord &node : result->nodes)
    if (!node.has_stats) missing += (missing.empty() ? "" : ", ") + std::to_string(node.rank);
  if (!missing.empty())
    fprintf(stderr,
            "rdsm: warning: no statistics reached rdsm from node(s) %s (each rank writes them on stderr at the end "
            "of rdsm_finalize, which mpirun forwards; did the program call rdsm_finalize, and is it linked with "
            "this rdsm?)\n",
            missing.c_str());
}

}  // namespace rdsm::launcher
