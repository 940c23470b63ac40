#include "launcher/spawn.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

extern char **environ;

namespace rdsm::launcher {
namespace {

void write_stderr(const std::string &s) {
  const char *p = s.data();
  size_t left = s.size();
  while (left > 0) {
    ssize_t n = write(STDERR_FILENO, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    p += n;
    left -= (size_t)n;
  }
}

[[noreturn]] void child_fail(int rank, const std::string &what, int err) {
  write_stderr("rdsm: error: node " + std::to_string(rank) + ": " + what + ": " + strerror(err) + "\n");
  _exit(127);
}

}  // namespace

std::vector<std::string> node_environment(const RunConfig &cfg, int rank, const std::string &node_fds) {
  const std::pair<const char *, std::string> job_vars[] = {
      {"RDSM_NODES", std::to_string(cfg.nodes)},
      {"RDSM_NODES_IMPLIED", cfg.nodes_implied ? "1" : ""},
      {"RDSM_RANK", std::to_string(rank)},
      {"RDSM_NODE_FDS", node_fds},
      {"RDSM_PROTOCOL", cfg.protocol},
      {"RDSM_AXES", cfg.axes},
      {"RDSM_FABRIC", cfg.fabric},
      {"RDSM_EMU_BASE", cfg.emu_base},
      {"RDSM_EMU_PRESET", cfg.emu_preset},
      {"RDSM_EMU", cfg.emu},
      {"RDSM_HANDLER", cfg.handler},
      {"RDSM_MEMORY", cfg.memory},
      {"RDSM_PROTECT", ""},  // the earlier name, already folded into RDSM_MEMORY
      {"RDSM_MINIPAGES", cfg.minipages},
      {"RDSM_REGION_SIZE", cfg.region_bytes ? std::to_string(cfg.region_bytes) : ""},  // empty: the default
      {"RDSM_PLACEMENT", cfg.placement},
      {"RDSM_LOCKS", std::to_string(cfg.locks)},
      {"RDSM_THREADS", std::to_string(cfg.threads)},
      {"RDSM_HANG_TIMEOUT", std::to_string(cfg.hang_seconds)},  // a fork-join master watches its workers
      {"RDSM_TRACE", cfg.trace_file},  // the nodes write parts of it; the launcher merges them
      {"RDSM_RACES", cfg.races ? "on" : "off"},
      {"RDSM_RACES_DIR", cfg.races_dir},  // the nodes' race logs; the launcher reports and removes them
  };
  std::vector<std::string> env;
  for (char **e = environ; e && *e; ++e) {
    std::string entry = *e;
    std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto &v : job_vars)
      if (name == v.first) replaced = true;
    if (!replaced) env.push_back(std::move(entry));
  }
  for (const auto &v : job_vars) env.push_back(std::string(v.first) + "=" + v.second);
  return env;
}

pid_t spawn_node(const RunConfig &cfg, int rank, const std::vector<std::string> &env, pid_t pgid,
                 const sigset_t &child_mask) {
  // Everything the child needs is built before fork.
  std::vector<char *> argv;
  argv.push_back(const_cast<char *>(cfg.program.c_str()));
  for (const auto &a : cfg.args) argv.push_back(const_cast<char *>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char *> envp;
  for (const auto &e : env) envp.push_back(const_cast<char *>(e.c_str()));
  envp.push_back(nullptr);
  const pid_t launcher = getpid();

  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    // Both sides set the group, so it is right whichever runs first.
    if (setpgid(0, pgid) != 0 && getpgrp() != (pgid ? pgid : getpid()))
      child_fail(rank, "cannot join the job's process group", errno);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) child_fail(rank, "prctl(PR_SET_PDEATHSIG)", errno);
    // The launcher may have died before the request above took effect.
    if (getppid() != launcher) _exit(127);
    // The nodes are not the terminal's foreground group, so reading it
    // would stop them: they read an empty input instead.
    if (isatty(STDIN_FILENO)) {
      int null_fd = open("/dev/null", O_RDONLY);
      if (null_fd < 0 || dup2(null_fd, STDIN_FILENO) < 0) child_fail(rank, "cannot open /dev/null", errno);
      if (null_fd != STDIN_FILENO) close(null_fd);
    }
    sigprocmask(SIG_SETMASK, &child_mask, nullptr);
    execvpe(cfg.program.c_str(), argv.data(), envp.data());
    child_fail(rank, "cannot run program '" + cfg.program + "'", errno);
  }
  // Fails harmlessly when the child got there first (EACCES after its exec).
  setpgid(pid, pgid ? pgid : pid);
  return pid;
}

}  // namespace rdsm::launcher
