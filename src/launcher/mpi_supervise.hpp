// `rdsm run --fabric mpi` runs mpirun as its child and watches the job's
// stderr for a rank's report that another rank is lost (fabric/lost_node.hpp).
//
// Open MPI's mpirun ends the job when a rank ends, but after MPI_Abort it
// waits until the daemon of every host confirms that its ranks ended; a
// host whose link is down never confirms, and mpirun would wait for ever
// (measured with Open MPI 4.1: still waiting minutes later).  So once a rank
// reported a lost rank, mpirun gets kGraceMs to end by itself and is then
// ended by the launcher; the daemons of the hosts still reachable see it
// go and end their ranks, and the ranks of the unreachable host end
// themselves (each finds the others lost).
#pragma once
#include <string>
#include <vector>

namespace rdsm::launcher {

class RankWatch;

// Runs argv (mpirun and its arguments), relaying its stderr but for the
// ranks' statistics lines (stats/stats_line.hpp), which it puts in
// *stats_lines; returns the exit status to end with: mpirun's, or non-zero
// when it had to be ended.  `watch` names a rank of this host that ended
// the job when nothing else did (rank_watch.hpp).
int supervise_mpirun(const std::vector<std::string> &argv, std::vector<std::string> *stats_lines,
                     RankWatch *watch);

}  // namespace rdsm::launcher
