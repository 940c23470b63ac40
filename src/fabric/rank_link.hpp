// Which rank ended a job: `rdsm run --fabric mpi` listens on a Unix socket
// of its host, named in RDSM_RANK_SOCKET.  Each rank that can reach it (it
// runs on that host, or on a "host" sharing its file system) connects once
// MPI is up, says "rank R pid P", keeps the connection for as long as it
// lives and says "done" when it ends MPI normally.  The kernel closes the
// connection as soon as the process dies, before the other ranks can
// notice and end in turn; so when the launcher (MPICH's hydra does not)
// names no rank that ended the job, rdsm names the one whose connection
// closed first without "done" (launcher/rank_watch.hpp).
#pragma once

namespace rdsm::fabric {

constexpr const char *kRankSocketVariable = "RDSM_RANK_SOCKET";

// The rank's side.  Errors are ignored: the link only helps name a rank.
void link_rank(int rank);  // connects and says who this is
void rank_done();          // says that this rank ends normally
}  // namespace rdsm::fabric
