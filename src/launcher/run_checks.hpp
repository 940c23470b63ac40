// Checks of a run's settings against this machine (files, limits, hosts),
// made before anything is started.  Each throws UsageError naming the cause
// and what to do.
#pragma once
#include <string>

#include "launcher/cli.hpp"

namespace rdsm::launcher {

std::string quoted(const std::string &s);

// A script whose #! line names an interpreter that cannot run.
void check_interpreter(const std::string &program, const std::string &path);

// Limits on open files and file size that the shm fabric's nodes would hit.
void check_limits(int nodes);

// A file the job writes at its end (--stats, --trace); returns its name.
std::string output_file(const std::string &text, const std::string &source, const char *example);

// --hosts and --hostfile: mpi fabric only, well formed, readable.
void check_hosts(const RunConfig &cfg);

}  // namespace rdsm::launcher
