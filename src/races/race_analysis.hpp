// Finding the races in a job's race logs (race_log_format.hpp): every pair
// of intervals of two nodes that no synchronisation ordered, and the bytes
// both wrote.  Bytes, not pages: two nodes writing different bytes of one
// page (false sharing) is no race.
//
// Intervals of one epoch (between two barriers) are compared with each
// other only: a barrier orders everything before it before everything
// after it.  So the logs are read one epoch at a time, and within an epoch
// page by page; for two nodes' intervals on a page, those of the other node
// concurrent with one interval form one run of its intervals (its clocks
// only grow), found by two binary searches.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace rdsm::races {

struct Allocation {
  uint64_t base = 0, size = 0;
  uint64_t pc = 0;           // the allocating call's return address, in the process that made it
  uint64_t module_base = 0;  // where that process loaded the module holding pc
  uint64_t symbol_addr = 0;  // the exported symbol holding pc, if any
  std::string module, symbol;
};

struct Race {
  uint32_t job = 1;    // the job among those analysed (fork-join programs form several), from 1
  uint32_t epoch = 0;  // barriers every node had passed when both writes were made
  int node_a = 0, node_b = 0;  // node_a < node_b
  uint64_t address = 0, bytes = 0;
  const Allocation *allocation = nullptr;  // the one holding these bytes (a race never spans two)
};

struct RaceFindings {
  std::vector<Race> races;              // by job, epoch, address, nodes
  std::vector<Allocation> allocations;  // every allocation the logs name, by address
  // What the analysis could not cover (a log cut at its cap, a log missing
  // or cut short), one sentence each.
  std::vector<std::string> gaps;
  uint32_t jobs = 0;         // jobs of more than one node that logged
  uint64_t intervals = 0;    // intervals with writes, over all nodes
  uint64_t page_writes = 0;  // pages written, summed over those intervals
};

// Reads every race log in `dir`.
RaceFindings analyse_race_logs(const std::string &dir);

}  // namespace rdsm::races
