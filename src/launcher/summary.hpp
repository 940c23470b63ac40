// The statistics summary printed after a successful job.
#pragma once
#include <cstdio>

#include "launcher/cli.hpp"
#include "launcher/job.hpp"

namespace rdsm::launcher {

// One line naming the configuration and wall time, then a table of times and
// a table of event counts, one row per node plus the mean of the nodes that
// have statistics.  At most 120 columns wide for usual values.
void print_summary(FILE *out, const RunConfig &cfg, const JobResult &result);

}  // namespace rdsm::launcher
