// The statistics of a job under the mpi fabric: each rank wrote its own as
// a line on stderr (stats/stats_line.hpp), which mpirun forwarded and the
// launcher kept (mpi_supervise.hpp); here they become the job's node
// records, as the shm launcher reads them from the nodes' blocks.
#pragma once
#include <string>
#include <vector>

#include "launcher/job.hpp"

namespace rdsm::launcher {

// Fills result->nodes (one per rank of the job), memory and region_bytes
// from the lines.  Warns, naming the node, about a line it cannot use and,
// when the job succeeded, about a node whose line never came.
void take_mpi_stats(const std::vector<std::string> &lines, int nodes, JobResult *result);

}  // namespace rdsm::launcher
