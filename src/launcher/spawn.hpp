// Starting the nodes: one child process per node, each in the job's own
// process group, running the program with the job's environment.
#pragma once
#include <csignal>
#include <string>
#include <sys/types.h>
#include <vector>

#include "launcher/cli.hpp"

namespace rdsm::launcher {

// The environment of node `rank`: this process's environment with the
// job's RDSM_* settings put in (replacing any already there).
std::vector<std::string> node_environment(const RunConfig &cfg, int rank, const std::string &node_fds);

// Forks node `rank`.  The child joins process group `pgid` (0: it becomes
// the leader of a new group, for the first node), asks to be killed when the
// launcher dies, reads /dev/null instead of a terminal (only the terminal's
// foreground group may read it), restores `child_mask` and executes the
// program; if that
// fails it prints why and exits with status 127.  Returns the child's pid,
// or -1 with errno set when fork fails.
pid_t spawn_node(const RunConfig &cfg, int rank, const std::vector<std::string> &env, pid_t pgid,
                 const sigset_t &child_mask);

}  // namespace rdsm::launcher
