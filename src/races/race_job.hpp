// A process's part in `rdsm run --races` (RDSM_RACES=on): whether it
// records, the directory its jobs' logs go to, and which job it is in.
//
// The launcher makes a private directory for the logs (make_log_dir) and
// hands it to the nodes in RDSM_RACES_DIR; when the job has ended it reads
// them, reports, and removes the directory.  A process started without the
// launcher that records (a fork-join program's master, before it forks its
// first workers) makes one itself, in $TMPDIR or /tmp; whoever ends the job
// there (node 0) reports and removes it, and it is removed when that
// process exits in any case.
#pragma once
#include <cstdint>
#include <string>

namespace rdsm::races {

// Turns recording on for this process; `dir` is RDSM_RACES_DIR (empty:
// none given).  Called when a job starts, before it allocates anything.
void enable(const std::string &dir);
bool enabled();

// The directory of this process's race logs; made on first use when none
// was given (so a fork-join master must ask before it forks).
const std::string &log_dir();
// Whether this process made log_dir() itself (and so reports and removes it).
bool owns_log_dir();

// Numbers the jobs this process takes part in, 1, 2, ...: a fork-join
// master and the workers it forks for a job count alike, since the workers
// inherit the master's count.
uint32_t next_job();

// Makes a private directory for a job's logs under $TMPDIR (or /tmp).
// Returns false with *error set when it cannot.
bool make_log_dir(std::string *dir, std::string *error);
// Removes the logs in `dir` and the directory itself.
void remove_log_dir(const std::string &dir);

}  // namespace rdsm::races
