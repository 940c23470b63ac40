// `rdsm run --fabric mpi`: a thin wrapper around Open MPI's mpirun, which
// starts and owns the job; the nodes take their settings from RDSM_*
// variables that mpirun hands to every rank, on every host.  The launcher
// stays to end a job that mpirun cannot end by itself (mpi_supervise.hpp).
#pragma once
#include <string>
#include <vector>

#include "launcher/cli.hpp"
#include "launcher/job.hpp"

namespace rdsm::launcher {

// The mpirun command line for `cfg` (argv, the mpirun path first) and the
// RDSM_* settings it exports, set in this process's environment.  Throws
// UsageError when this rdsm has no mpi fabric or no Open MPI mpirun is found.
// Open MPI's session files on this host go under `session_base` (if not "").
std::vector<std::string> mpirun_command(const RunConfig &cfg, const std::string &session_base);

// Runs the job under mpirun (mpi_supervise.hpp): its outcome and the
// ranks' statistics (mpi_stats.hpp), as run_job gives them on one host.
JobResult run_mpirun(const RunConfig &cfg);

}  // namespace rdsm::launcher
