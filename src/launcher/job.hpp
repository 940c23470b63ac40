// Running one job: start the nodes, watch them, end them all when one fails,
// when the launcher is interrupted or when the time limit passes, and
// collect every node's statistics.
#pragma once
#include <string>
#include <sys/types.h>
#include <vector>

#include "launcher/cli.hpp"
#include "rdsm.h"
#include "stats/thread_stats.hpp"

namespace rdsm::launcher {

enum class JobEnd { success, node_failed, interrupted, timed_out, start_failed };

struct NodeRecord {
  int rank = 0;
  pid_t pid = -1;
  bool ended = false;   // reaped
  int wait_status = 0;  // from waitpid, once ended
  bool has_stats = false;  // the node reached rdsm_finalize
  rdsm_stats stats{};
  // A node of several compute threads: one row per thread, summing to
  // `stats` in the time columns (empty otherwise).  A forked worker's are
  // summed per thread over its jobs, as its `stats` are.
  std::vector<ThreadStatsRow> threads;
  // A worker forked by a fork-join (SPLASH) program rather than started by
  // the launcher: no pid of its own here; its statistics are summed over
  // every job it took part in.
  bool forked = false;
  // The host the node ran on (mpi fabric); empty on one host.
  std::string host;
};

struct JobResult {
  JobEnd end = JobEnd::success;
  int exit_status = 0;  // the launcher's exit status
  std::string error;    // what went wrong, one line without the "rdsm: " prefix; empty on success
  double wall_seconds = 0;
  std::vector<NodeRecord> nodes;  // the launched nodes, then any forked workers
  int forked_jobs = 0;            // how many jobs the fork-join program formed
  std::string memory;             // the memory backend node 0 reported; empty if it never had a region
  // The preset and axes node 0 ran, where its statistics say so (mpi
  // fabric): the default preset's axes may differ from the launcher's.
  std::string protocol;
  uint64_t region_bytes = 0;      // the size of node 0's region; 0 if it never had one
  std::string races_json;         // --races: the race report as JSON, once made

  // "preset+axes" as the job ran it: node 0's word where it gave one, else
  // what the launcher was told.
  std::string ran_protocol(const RunConfig &cfg) const {
    if (!protocol.empty()) return protocol;
    return cfg.protocol + (cfg.axes.empty() ? "" : "+" + cfg.axes);
  }
};

// Runs the job to its end.  Messages about failures are printed to stderr
// as they happen; the summary is left to the caller.
JobResult run_job(const RunConfig &cfg);

}  // namespace rdsm::launcher
