// The --stats file: the job's configuration, outcome and every node's
// statistics as JSON.
#pragma once
#include <string>

#include "launcher/cli.hpp"
#include "launcher/job.hpp"

namespace rdsm::launcher {

// The JSON text of a job (on failure with an "error" member and the nodes
// whose statistics are valid).
std::string stats_json(const RunConfig &cfg, const JobResult &result);

// Writes `text` to path.tmp and renames it to path.  On failure returns
// false with *error set.
bool write_file_atomically(const std::string &path, const std::string &text, std::string *error);

}  // namespace rdsm::launcher
