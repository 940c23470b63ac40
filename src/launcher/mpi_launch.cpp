#include "launcher/mpi_launch.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#include "common/clock.hpp"
#include "common/saved_env.hpp"
#include "common/temp_dir.hpp"
#include "common/usable_cpus.hpp"
#include "launcher/mpi_stats.hpp"
#include "launcher/mpi_supervise.hpp"
#include "launcher/rank_watch.hpp"

extern char **environ;

namespace rdsm::launcher {

namespace {

#ifdef RDSM_LAUNCH_MPIEXEC
constexpr const char *kConfiguredMpirun = RDSM_LAUNCH_MPIEXEC;
#else
constexpr const char *kConfiguredMpirun = nullptr;
#endif

bool executable(const std::string &path) { return !path.empty() && access(path.c_str(), X_OK) == 0; }

// The mpirun found when rdsm was configured, else the first in PATH.
std::string find_mpirun() {
  if (kConfiguredMpirun && executable(kConfiguredMpirun)) return kConfiguredMpirun;
  const char *path = getenv("PATH");
  std::string dirs = path ? path : "";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/mpirun";
    if (executable(candidate)) return candidate;
    start = end + 1;
  }
  return "";
}

// Open MPI's mpirun and MPICH's mpiexec (hydra) take different options;
// each would take the other's for the program's.
enum class Launcher { open_mpi, hydra, unknown };

Launcher launcher_kind(const std::string &mpirun) {
  std::string cmd = "'" + mpirun + "' --version 2>&1";
  FILE *p = popen(cmd.c_str(), "r");
  if (!p) return Launcher::unknown;
  char buf[512];
  std::string out;
  while (fgets(buf, sizeof buf, p)) out += buf;
  pclose(p);
  if (out.find("Open MPI") != std::string::npos || out.find("OpenRTE") != std::string::npos)
    return Launcher::open_mpi;
  if (out.find("HYDRA") != std::string::npos) return Launcher::hydra;
  return Launcher::unknown;
}

void set(const char *name, const std::string &value) {
  if (!value.empty()) setenv(name, value.c_str(), 1);
}

}  // namespace

std::vector<std::string> mpirun_command(const RunConfig &cfg, const std::string &session_base) {
  if (!kConfiguredMpirun)
    throw UsageError("--fabric mpi: this rdsm was built without the mpi fabric; build it with the CMake option "
                     "-DRDSM_MPI=ON (tools/deps.sh --mpi installs Open MPI)");
  std::string mpirun = find_mpirun();
  if (mpirun.empty())
    throw UsageError(std::string("--fabric mpi: mpirun was not found (neither ") + kConfiguredMpirun +
                     ", found when rdsm was configured, nor in PATH); install the MPI rdsm was built with or put its "
                     "bin directory in PATH");
  Launcher kind = launcher_kind(mpirun);
  if (kind == Launcher::unknown)
    throw UsageError("--fabric mpi: " + mpirun + " is neither Open MPI's mpirun nor MPICH's mpiexec (hydra), "
                     "whose options `rdsm run` knows; start the job with your MPI's own launcher instead (e.g. "
                     "mpiexec -n N program), with the settings in RDSM_* variables");

  // The settings, as the nodes read them (common/options.hpp).
  setenv("RDSM_FABRIC", "mpi", 1);
  // Unnamed, the default preset may take other axes across hosts (presets.hpp).
  if (cfg.protocol_named) set("RDSM_PROTOCOL", cfg.protocol);
  set("RDSM_AXES", cfg.axes);
  set("RDSM_HANDLER", cfg.handler);
  set("RDSM_MEMORY", cfg.memory);
  set("RDSM_MINIPAGES", cfg.minipages);
  set("RDSM_PLACEMENT", cfg.placement);
  if (cfg.region_bytes) set("RDSM_REGION_SIZE", std::to_string(cfg.region_bytes));
  if (cfg.locks) set("RDSM_LOCKS", std::to_string(cfg.locks));
  set("RDSM_THREADS", std::to_string(cfg.threads));
  char hang[32];
  snprintf(hang, sizeof hang, "%g", cfg.hang_seconds);
  set("RDSM_HANG_TIMEOUT", hang);
  // Each rank's statistics, as a line on stderr that mpirun forwards from
  // its host (stats/stats_line.hpp; taken out of the relay, mpi_stats.hpp).
  set("RDSM_STATS_TO", "stderr");

  std::vector<std::string> argv{mpirun, "-n", std::to_string(cfg.nodes)};
  // Bound to a core each, the ranks of "hosts" that are one machine share
  // core 0, and the fabric's progress thread competes with its own rank.
  argv.insert(argv.end(), {"--bind-to", "none"});
  if (kind == Launcher::hydra) {
    // Hydra runs as root, places any number of ranks on a host and passes
    // the environment without being told; its time limit is a variable.
    if (!cfg.hosts.empty()) argv.insert(argv.end(), {"-hosts", cfg.hosts});
    if (!cfg.hostfile.empty()) argv.insert(argv.end(), {"-f", cfg.hostfile});
    if (cfg.timeout_seconds > 0)
      setenv("MPIEXEC_TIMEOUT", std::to_string((long)std::ceil(cfg.timeout_seconds)).c_str(), 1);
    std::string names;
    for (char **e = environ; *e; ++e)
      if (!strncmp(*e, "RDSM_", 5)) {
        const char *eq = strchr(*e, '=');
        if (eq) names += (names.empty() ? "" : ",") + std::string(*e, (size_t)(eq - *e));
      }
    argv.insert(argv.end(), {"-genvlist", names});
    argv.push_back(cfg.program_path);
    argv.insert(argv.end(), cfg.args.begin(), cfg.args.end());
    return argv;
  }
  // Open MPI refuses root unless told; whoever runs rdsm as root (a
  // container, CI) has already made that choice.
  if (geteuid() == 0) argv.push_back("--allow-run-as-root");
  size_t listed = 0;
  if (!cfg.hosts.empty()) {
    argv.insert(argv.end(), {"--host", cfg.hosts});
    listed = 1;
    for (char c : cfg.hosts) listed += c == ',';
  } else if (!cfg.hostfile.empty()) {
    argv.insert(argv.end(), {"--hostfile", cfg.hostfile});
  }
  // mpirun gives a host one slot per core (one per listed name with
  // --hosts) and refuses more ranks than slots; a hostfile says its own.
  if ((cfg.hosts.empty() && cfg.hostfile.empty() && cfg.nodes > usable_cpus()) ||
      (listed && (size_t)cfg.nodes > listed))
    argv.push_back("--oversubscribe");
  // The one-sided component that works (mpi_environment.cpp); a choice the
  // user made in the environment stays.
  if (!getenv("OMPI_MCA_osc")) argv.insert(argv.end(), {"--mca", "osc", "ucx"});
  // mpirun's session files (and those of the ranks it starts on this host)
  // go under the launcher's own directory, which it removes when the job
  // has ended, however it ended: mpirun leaves them in /tmp when it is
  // killed.  mpirun takes the place from TMPDIR, and so the ranks on this
  // host get it as their TMPDIR too, a directory of the job's own as a
  // batch system gives (with any other, Open MPI leaves their shared-memory
  // segments in /dev/shm).  Open MPI's parameter for mpirun's place alone
  // (orte_local_tmpdir_base) makes every rank refuse to start.
  if (!session_base.empty() && !getenv("OMPI_MCA_orte_tmpdir_base") && !getenv("OMPI_MCA_orte_local_tmpdir_base"))
    setenv("TMPDIR", session_base.c_str(), 1);
  if (cfg.timeout_seconds > 0)
    argv.insert(argv.end(), {"--timeout", std::to_string((long)std::ceil(cfg.timeout_seconds))});
  // Every RDSM_* setting reaches the ranks on other hosts too.
  for (char **e = environ; *e; ++e)
    if (!strncmp(*e, "RDSM_", 5)) {
      const char *eq = strchr(*e, '=');
      if (eq) argv.insert(argv.end(), {"-x", std::string(*e, (size_t)(eq - *e))});
    }
  argv.push_back(cfg.program_path);
  argv.insert(argv.end(), cfg.args.begin(), cfg.args.end());
  return argv;
}

JobResult run_mpirun(const RunConfig &cfg) {
  JobResult result;
  std::vector<std::string> args;
  RankWatch watch;  // before the command: it sets an RDSM_* variable
  // Without it mpirun keeps its session files in the default place.
  const std::string session_base = make_temp_dir("rdsm-mpi");
  const SavedEnv launcher_tmpdir("TMPDIR");  // back once mpirun has ended
  auto end_session = [&] {
    if (session_base.empty()) return;
    remove_temp_dir(session_base);
    launcher_tmpdir.restore();
  };
  try {
    args = mpirun_command(cfg, session_base);
  } catch (const UsageError &e) {
    fprintf(stderr, "rdsm: error: %s\n", e.what());
    result.end = JobEnd::start_failed;
    result.exit_status = 2;
    result.error = e.what();
    result.nodes.assign((size_t)cfg.nodes, NodeRecord{});
    end_session();
    return result;
  }
  std::vector<std::string> stats_lines;
  const uint64_t t0 = now_ns();
  result.exit_status = supervise_mpirun(args, &stats_lines, &watch);
  result.wall_seconds = ns_to_s(now_ns() - t0);
  if (result.exit_status != 0) {
    // mpirun, or the rank that found a lost one, has said what failed.
    result.end = JobEnd::node_failed;
    result.error = "mpirun ended the job with exit status " + std::to_string(result.exit_status) +
                   " (the messages above name the rank that failed)";
  }
  end_session();
  take_mpi_stats(stats_lines, cfg.nodes, &result);
  return result;
}

}  // namespace rdsm::launcher
