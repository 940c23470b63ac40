// A node's final statistics as one line of text, for a launcher that cannot
// read the node's memory: under the mpi fabric the ranks run on hosts of
// their own, started by mpirun, and the one channel from every rank to
// `rdsm run` is the job's standard error, which mpirun forwards from every
// host.  `rdsm run --fabric mpi` asks for the line (RDSM_STATS_TO=stderr),
// each rank writes its own at the end of rdsm_finalize, and the launcher
// takes the lines out of what it relays (launcher/mpi_supervise.cpp).
//
// The figures are the node's rdsm_stats and thread rows as bytes, in hex:
// the runtime that writes them and the launcher that reads them are one
// build of rdsm, and a line of another layout (a program linked with
// another version) is refused by its length.  A checksum catches a line
// that mpirun interleaved with other output.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "rdsm.h"
#include "stats/thread_stats.hpp"

namespace rdsm {

// Every stats line starts with this.
constexpr const char *kStatsLinePrefix = "rdsm-stats v1 ";

struct NodeStatsLine {
  int rank = 0;
  int pid = 0;
  std::string host;    // no blanks (a host name)
  std::string memory;  // the memory backend the node ran; no blanks, may be empty
  std::string protocol;  // the preset and axes the node ran ("rdsm+fetch=message,..."); no blanks, may be empty
  uint64_t region_bytes = 0;
  rdsm_stats stats{};
  std::vector<ThreadStatsRow> threads;  // a node of several compute threads only
};

// The line, with its newline.
std::string encode_stats_line(const NodeStatsLine &n);
// A line without its newline.  Returns false, with *error saying why, for
// a line that is not a whole stats line of this build.
bool decode_stats_line(const std::string &line, NodeStatsLine *out, std::string *error);

}  // namespace rdsm
