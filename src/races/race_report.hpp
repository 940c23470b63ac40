// The race report of a job run with --races: what the analysis found
// (race_analysis.hpp) as lines for stderr and as JSON for the --stats file.
#pragma once
#include <string>
#include <vector>

#include "races/race_analysis.hpp"

namespace rdsm::races {

struct RaceReport {
  RaceFindings findings;
  std::vector<std::string> sites;  // per allocation of findings: the call that made it
};

// Analyses the logs in `dir` and names the allocating calls.
RaceReport make_race_report(const std::string &dir);

// The report as lines that start with "rdsm: ", listing at most `limit`
// races (then how many more).
std::string race_report_text(const RaceReport &report, size_t limit);

// The report as a JSON object: every race, what was checked, the gaps.
std::string race_report_json(const RaceReport &report);

// Without a launcher: the process that owns the job's logs (node 0) reads
// them, prints the report to stderr and removes them.
void report_and_remove(const std::string &dir);

}  // namespace rdsm::races
