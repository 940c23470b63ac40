// Command line of the `rdsm` tool: what to do and, for `rdsm run`, the job's
// configuration, validated completely before anything is started.
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/options.hpp"

namespace rdsm::launcher {

// Everything `rdsm run` needs to start a job.
struct RunConfig {
  int nodes = 0;
  // -n left out: one process, which only a fork-join (SPLASH) program may be
  // (its master forks the rest); an SPMD program's rdsm_init says -n is missing.
  bool nodes_implied = false;
  std::string protocol;
  bool protocol_named = false;  // by --protocol or RDSM_PROTOCOL: else the nodes may adapt the default's axes
  std::string axes;  // per-axis overrides of the preset, empty for none
  std::string handler;    // "interrupt" or "poll"
  std::string memory;     // "uffd", "mprotect", or empty: the nodes' default
  std::string minipages;  // "off", "on", "explicit" (sc only), or empty: the nodes' default (off)
  std::string fabric;      // "shm", "mpi" or "emu"
  std::string hosts;       // --hosts a,b (mpi fabric): mpirun's host list; empty: this host
  std::string hostfile;    // --hostfile f (mpi fabric)
  std::string emu_base;    // the emu fabric's settings (empty unless the fabric is emu)
  std::string emu_preset;
  std::string emu;
  std::string placement;  // "first-touch", "block" or "cyclic"
  size_t region_bytes = 0;
  int locks = 0;
  int threads = 1;
  std::string stats_file;  // empty: no JSON
  std::string trace_file;  // absolute; empty: no timeline trace
  bool races = false;      // --races: report data races at the end of the job
  std::string races_dir;   // where the nodes write their race logs (made by the launcher)
  double timeout_seconds = 0;  // 0: no limit
  double hang_seconds = kDefaultHangSeconds;  // a node silent this long is hung (heartbeat.hpp); 0: never
  bool quiet = false;
  std::string program;       // as the user wrote it (argv[0] of every node)
  std::string program_path;  // where it was found
  std::vector<std::string> args;  // the program's own arguments
};

enum class Action { run, help, run_help, version };

struct CommandLine {
  Action action = Action::help;
  RunConfig run;
};

// A mistake in the command line; what() is the message without the
// "rdsm: error: " prefix.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses argv (argv[0] is the tool itself).  Values not given as flags come
// from the RDSM_* environment variables, then from the runtime's defaults.
// Throws UsageError.
CommandLine parse_command_line(int argc, char **argv);

// Help texts, printed to stdout on request.
std::string general_help();
std::string run_help();

}  // namespace rdsm::launcher
