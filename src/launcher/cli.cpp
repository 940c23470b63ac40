#include "launcher/cli.hpp"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <unistd.h>

#include "common/options.hpp"
#include "fabric/emu_params.hpp"
#include "launcher/install_paths.hpp"
#include "launcher/program_path.hpp"
#include "launcher/run_checks.hpp"
#include "protocol/presets.hpp"

namespace rdsm::launcher {
namespace {

constexpr long kMaxLocks = 1L << 24;
// The fabrics the runtime provides (mpi: in a build configured with
// -DRDSM_MPI=ON, checked when the job starts, mpi_launch.cpp).
const char *const kFabrics[] = {"shm", "mpi", "emu"};
// The fabrics the emu fabric can wrap from `rdsm run`.
const char *const kEmuBases[] = {"shm"};
const char *const kPlacements[] = {"first-touch", "block", "cyclic"};

enum class Flag {
  nodes, protocol, axes, handler, memory, minipages, fabric, emu, emu_preset, emu_base, hosts, hostfile, placement,
  region_size, locks, threads, stats, trace, races, timeout, hang_timeout, quiet, help
};

struct FlagSpec {
  Flag flag;
  const char *long_name;  // without the leading "--"
  char short_name;        // 0: none
  const char *value;      // nullptr: takes no value
  const char *help;
};

const FlagSpec kFlags[] = {
    {Flag::nodes, "nodes", 'n', "N",
     "number of nodes (processes), 1..1024; required, but for a fork-join (SPLASH) program (one process)"},
    {Flag::protocol, "protocol", 0, "P", "coherence protocol (default rdsm); also as runs name it: sc+fetch=message"},
    {Flag::axes, "axes", 0, "A=V,...", "override protocol axes of the preset, e.g. lock=atomic,barrier=atomic"},
    {Flag::handler, "handler", 0, "MODE", "how requests are served: interrupt, poll, signal or spin"},
    {Flag::memory, "memory", 0, "B", "memory backend: uffd (default where the kernel allows it) or mprotect"},
    {Flag::minipages, "minipages", 0, "MODE",
     "--protocol sc: off (page granularity, default), on (every allocation smaller than a page gets a minipage: "
     "a protection of its own, no false sharing), explicit (only rdsm_malloc_minipage's) or adaptive (as on, and "
     "minipages always accessed together are fetched together)"},
    {Flag::fabric, "fabric", 0, "F",
     "transport between nodes: shm (processes on this host, default), mpi (started through mpirun) or emu (shm with "
     "a modelled network's costs)"},
    {Flag::emu, "emu", 0, "P=V,...", "emu costs, e.g. latency=5us,bandwidth=1GB/s (on top of --emu-preset; implies --fabric emu)"},
    {Flag::emu_preset, "emu-preset", 0, "NAME", "emu costs of a named network (implies --fabric emu; see below)"},
    {Flag::emu_base, "emu-base", 0, "F", "the fabric emu wraps (default shm)"},
    {Flag::hosts, "hosts", 0, "H,H,...", "mpi fabric: the hosts to start the nodes on (default: this host)"},
    {Flag::hostfile, "hostfile", 0, "FILE", "mpi fabric: the hosts to start the nodes on, as an mpirun hostfile"},
    {Flag::placement, "placement", 0, "P", "default home placement: first-touch, block or cyclic"},
    {Flag::region_size, "region-size", 0, "SIZE", "size of the shared region, e.g. 512M or 4G (default: a 64G reservation under uffd; under mprotect as much as vm.max_map_count allows)"},
    {Flag::locks, "locks", 0, "K", "number of lock ids (default 65536)"},
    {Flag::threads, "threads", 0, "T", "compute threads per node sharing its pages, 1..256 (default 1)"},
    {Flag::stats, "stats", 0, "FILE", "write the job's statistics to FILE as JSON"},
    {Flag::trace, "trace", 0, "FILE",
     "write a timeline of every node's faults, fetches, locks, barriers and messages to FILE (trace-event JSON, "
     "for Perfetto or chrome://tracing)"},
    {Flag::races, "races", 0, nullptr,
     "report data races at the end: bytes two nodes wrote in intervals no lock or barrier ordered (slower; see "
     "races.md)"},
    {Flag::timeout, "timeout", 0, "SECONDS", "end the job if it runs longer (exit status 124)"},
    {Flag::hang_timeout, "hang-timeout", 0, "SECONDS",
     "end the job when a node makes no progress this long (stopped, frozen; default 3, 0: never)"},
    {Flag::quiet, "quiet", 'q', nullptr, "do not print the statistics summary"},
    {Flag::help, "help", 'h', nullptr, "show this help"},
};

std::string flag_list() {
  std::string s;
  for (const auto &f : kFlags) {
    if (!s.empty()) s += ", ";
    if (f.short_name) {
      s += '-';
      s += f.short_name;
      s += '/';
    }
    s += "--";
    s += f.long_name;
  }
  return s;
}

template <size_t N>
std::string join(const char *const (&items)[N], const char *last_sep) {
  std::string s;
  for (size_t i = 0; i < N; ++i) {
    if (i) s += (i + 1 == N) ? last_sep : ", ";
    s += items[i];
  }
  return s;
}

template <size_t N>
bool one_of(const std::string &v, const char *const (&items)[N]) {
  for (const char *item : items)
    if (v == item) return true;
  return false;
}

bool parse_long(const std::string &text, long lo, long hi, long *out) {
  if (text.empty()) return false;
  errno = 0;
  char *end = nullptr;
  long v = strtol(text.c_str(), &end, 10);
  if (errno || *end || v < lo || v > hi) return false;
  *out = v;
  return true;
}

// A value given on the command line, else taken from the environment.
struct Setting {
  std::optional<std::string> flag_value;
  const char *env_name;

  // The value and where it came from ("--protocol" or "RDSM_PROTOCOL"), or
  // nothing when neither is set.
  std::optional<std::string> value(std::string *source, const char *flag_name) const {
    if (flag_value) {
      *source = std::string("--") + flag_name;
      return flag_value;
    }
    const char *e = getenv(env_name);
    if (e && *e) {
      *source = std::string(env_name) + " in the environment";
      return std::string(e);
    }
    return std::nullopt;
  }
};

// The emu fabric's settings: each one implies the emu fabric, and is checked
// here with the parser the nodes use.
void check_emu(RunConfig &cfg, const Setting &fabric, const Setting &emu, const Setting &emu_preset,
               const Setting &emu_base) {
  std::string source, fabric_source;
  const bool fabric_given = fabric.value(&fabric_source, "fabric").has_value();
  const Setting *settings[] = {&emu_preset, &emu, &emu_base};
  const char *names[] = {"emu-preset", "emu", "emu-base"};
  std::string values[3];
  for (int k = 0; k < 3; ++k) {
    auto v = settings[k]->value(&source, names[k]);
    if (!v) continue;
    if (cfg.fabric != "emu" && fabric_given)
      throw UsageError(source + " sets a cost of the emu fabric, but the fabric is " + cfg.fabric + " (" +
                       fabric_source + "); use --fabric emu or leave the fabric unset");
    cfg.fabric = "emu";
    values[k] = *v;
  }
  if (cfg.fabric != "emu") return;
  fabric::EmuParams params;
  std::string error;
  if (!fabric::resolve_emu_params(values[0], values[1], &params, error)) throw UsageError(error);
  if (!values[2].empty() && !one_of(values[2], kEmuBases))
    throw UsageError("--emu-base " + quoted(values[2]) + ": the emu fabric started by `rdsm run` wraps " +
                     join(kEmuBases, ", ") + " (the fabrics whose nodes share one clock)");
  cfg.emu_preset = values[0];
  cfg.emu = values[1];
  cfg.emu_base = values[2].empty() ? "shm" : values[2];
}

// --races needs writes that pass through rdsm's diffs, and the nodes' logs
// on this host.
void check_races(const RunConfig &cfg, const std::string &source) {
  const std::string named = source == "--races" ? source : "--races (" + source + ")";
  if (cfg.fabric == "mpi")
    throw UsageError(named + " is not available with --fabric mpi: the nodes' race logs are read on this host; run "
                     "on one host with --fabric shm, or leave --races out");
  ProtocolConfig probe = *find_protocol(cfg.protocol);
  std::string error;
  apply_axes(probe, cfg.axes, error);  // checked already
  if (probe.coherence == CoherenceAxis::hardware)
    throw UsageError(named + " needs a protocol that keeps copies coherent in software: under " + cfg.protocol +
                     " the hardware keeps one memory coherent and no write passes through rdsm; choose another "
                     "--protocol (e.g. rdsm)");
  if (probe.consistency == ConsistencyModel::sequential)
    throw UsageError(named + " needs a release-consistency protocol: under " + cfg.protocol +
                     " every program, racy or not, sees sequentially consistent memory and no write goes through "
                     "diffs; choose another --protocol (e.g. rdsm)");
}

RunConfig parse_run(int argc, char **argv, int first, bool *wants_help) {
  Options defaults;  // the runtime's defaults
  std::optional<std::string> nodes_text;
  Setting protocol{{}, "RDSM_PROTOCOL"}, axes{{}, "RDSM_AXES"}, handler{{}, "RDSM_HANDLER"}, memory{{}, "RDSM_MEMORY"},
      minipages{{}, "RDSM_MINIPAGES"}, old_memory{{}, "RDSM_PROTECT"}, fabric{{}, "RDSM_FABRIC"},
      emu{{}, "RDSM_EMU"}, emu_preset{{}, "RDSM_EMU_PRESET"}, emu_base{{}, "RDSM_EMU_BASE"},
      placement{{}, "RDSM_PLACEMENT"}, region{{}, "RDSM_REGION_SIZE"}, locks{{}, "RDSM_LOCKS"},
      threads{{}, "RDSM_THREADS"}, hang{{}, "RDSM_HANG_TIMEOUT"}, trace{{}, "RDSM_TRACE"}, races{{}, "RDSM_RACES"};
  std::optional<std::string> stats_text, timeout_text;
  RunConfig cfg;
  *wants_help = false;

  int i = first;
  for (; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') break;  // the program

    const FlagSpec *spec = nullptr;
    std::optional<std::string> inline_value;
    std::string shown;  // the flag as the user wrote it
    if (arg[1] == '-') {
      size_t eq = arg.find('=');
      std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      if (eq != std::string::npos) inline_value = arg.substr(eq + 1);
      shown = "--" + name;
      for (const auto &f : kFlags)
        if (name == f.long_name) spec = &f;
    } else {
      shown = arg.substr(0, 2);
      for (const auto &f : kFlags)
        if (f.short_name && arg[1] == f.short_name) spec = &f;
      if (arg.size() > 2) {
        if (spec && spec->value)
          inline_value = arg.substr(arg[2] == '=' ? 3 : 2);
        else
          spec = nullptr;  // "-qx" and the like
        if (!spec) shown = arg;
      }
    }
    if (!spec)
      throw UsageError("unknown option " + quoted(shown) + " for `rdsm run`; the options are: " + flag_list() +
                       " (options come before the program)");

    std::string value;
    if (spec->value) {
      if (inline_value) {
        value = *inline_value;
      } else if (i + 1 < argc) {
        value = argv[++i];
      } else {
        throw UsageError(shown + " needs a value (" + shown + " " + spec->value + ")");
      }
    } else if (inline_value) {
      throw UsageError(shown + " takes no value; write it alone, as " + shown);
    }

    switch (spec->flag) {
      case Flag::nodes: nodes_text = value; break;
      case Flag::protocol: protocol.flag_value = value; break;
      case Flag::axes: axes.flag_value = value; break;
      case Flag::handler: handler.flag_value = value; break;
      case Flag::memory: memory.flag_value = value; break;
      case Flag::minipages: minipages.flag_value = value; break;
      case Flag::fabric: fabric.flag_value = value; break;
      case Flag::hosts: cfg.hosts = value; break;
      case Flag::hostfile: cfg.hostfile = value; break;
      case Flag::emu: emu.flag_value = value; break;
      case Flag::emu_preset: emu_preset.flag_value = value; break;
      case Flag::emu_base: emu_base.flag_value = value; break;
      case Flag::placement: placement.flag_value = value; break;
      case Flag::region_size: region.flag_value = value; break;
      case Flag::locks: locks.flag_value = value; break;
      case Flag::threads: threads.flag_value = value; break;
      case Flag::stats: stats_text = value; break;
      case Flag::trace: trace.flag_value = value; break;
      case Flag::races: races.flag_value = "on"; break;
      case Flag::timeout: timeout_text = value; break;
      case Flag::hang_timeout: hang.flag_value = value; break;
      case Flag::quiet: cfg.quiet = true; break;
      case Flag::help: *wants_help = true; return cfg;
    }
  }

  // ---- validation, in the order the user reads the command ----
  long n = 1;
  if (nodes_text && !parse_long(*nodes_text, 1, kMaxNodes, &n))
    throw UsageError("-n " + quoted(*nodes_text) + " is not a number of nodes; use a whole number from 1 to " +
                     std::to_string(kMaxNodes));
  cfg.nodes = (int)n;
  cfg.nodes_implied = !nodes_text;

  std::string source, axes_source;
  const std::optional<std::string> named = protocol.value(&source, "protocol");
  const std::optional<std::string> given = axes.value(&axes_source, "axes");
  ProtocolChoice choice;
  std::string axis_error;
  switch (choose_protocol(named ? *named : defaults.protocol, given ? *given : "", choice, axis_error)) {
    case ProtocolChoiceFault::none: break;
    case ProtocolChoiceFault::preset:
      throw UsageError("unknown protocol " + quoted(*named) + " (" + source + "); the protocols are: " +
                       protocol_names());
    case ProtocolChoiceFault::name_axes:
      throw UsageError("protocol " + quoted(*named) + " (" + source + "): " + axis_error);
    case ProtocolChoiceFault::given_axes:
      throw UsageError("--axes " + quoted(*given) + " (" + axes_source + "): " + axis_error);
  }
  cfg.protocol = choice.preset;
  cfg.protocol_named = named.has_value();
  cfg.axes = choice.axes;

  if (auto v = handler.value(&source, "handler")) {
    HandlerMode mode;
    if (!parse_handler_mode(v->c_str(), &mode))
      throw UsageError("unknown handler mode " + quoted(*v) + " (" + source + "); use " + kHandlerModeChoices);
    cfg.handler = *v;
  } else {
    cfg.handler = handler_mode_name(defaults.handler);
  }

  // RDSM_PROTECT is the variable's earlier name.  Unset, the nodes choose
  // (and say so when they cannot have uffd).
  auto memory_value = memory.value(&source, "memory");
  if (!memory_value) memory_value = old_memory.value(&source, "memory");
  if (memory_value) {
    if (*memory_value != "uffd" && *memory_value != "mprotect")
      throw UsageError("unknown memory backend " + quoted(*memory_value) + " (" + source + "); use uffd or mprotect");
    cfg.memory = *memory_value;
  }

  if (auto v = minipages.value(&source, "minipages")) {
    if (*v != "off" && *v != "on" && *v != "explicit" && *v != "adaptive")
      throw UsageError("unknown minipage mode " + quoted(*v) + " (" + source + "); use off, on, explicit or adaptive");
    ProtocolConfig probe = *find_protocol(cfg.protocol);
    std::string error;
    apply_axes(probe, cfg.axes, error);  // checked already
    if (*v != "off" && probe.consistency != ConsistencyModel::sequential)
      throw UsageError("--minipages " + *v + " (" + source + ") needs --protocol sc: minipages are a feature of its "
                       "single-writer sequential consistency, and " + cfg.protocol + " keeps whole pages; use "
                       "--protocol sc, or --minipages off");
    cfg.minipages = *v;
  }

  if (auto v = fabric.value(&source, "fabric")) {
    if (!one_of(*v, kFabrics))
      throw UsageError("unknown fabric " + quoted(*v) + " (" + source + "); the fabrics are: " +
                       join(kFabrics, ", "));
    cfg.fabric = *v;
  } else {
    cfg.fabric = defaults.fabric;
  }
  check_emu(cfg, fabric, emu, emu_preset, emu_base);
  if (cfg.nodes_implied && cfg.fabric == "mpi")
    throw UsageError("missing -n N, the number of ranks (1.." + std::to_string(kMaxNodes) +
                     "); with --fabric mpi give it before the program, e.g. `rdsm run --fabric mpi -n 4 program`");
  check_hosts(cfg);
  if (cfg.fabric == "mpi" && cfg.handler == "signal")
    throw UsageError("--handler signal is not available with --fabric mpi: a message from another host cannot signal "
                     "the receiving process, and MPI may not be called from a signal handler; use --handler "
                     "interrupt, poll or spin, or --fabric shm");
  // The shm fabric's nodes (under emu too) hold every node's memory file;
  // mpirun starts the mpi fabric's, each with its own.
  if (cfg.fabric != "mpi") check_limits(cfg.nodes);

  if (auto v = placement.value(&source, "placement")) {
    if (!one_of(*v, kPlacements))
      throw UsageError("unknown placement " + quoted(*v) + " (" + source + "); use " +
                       join(kPlacements, " or "));
    cfg.placement = *v;
  } else {
    cfg.placement = defaults.placement;
  }

  if (auto v = region.value(&source, "region-size")) {
    size_t bytes = 0;
    if (!parse_size(*v, &bytes) || bytes == 0)
      throw UsageError("region size " + quoted(*v) + " (" + source +
                       ") is not a size; use a number of bytes with an optional K, M, G or T suffix "
                       "(examples: 512M, 4G)");
    cfg.region_bytes = bytes;
  } else {
    cfg.region_bytes = defaults.region_bytes;
  }

  if (auto v = locks.value(&source, "locks")) {
    long k = 0;
    if (!parse_long(*v, 1, kMaxLocks, &k))
      throw UsageError("lock count " + quoted(*v) + " (" + source + ") is not a number of locks; use a whole number from 1 to " +
                       std::to_string(kMaxLocks));
    cfg.locks = (int)k;
  } else {
    cfg.locks = defaults.locks;
  }

  if (auto v = threads.value(&source, "threads")) {
    long t = 0;
    if (!parse_long(*v, 1, kMaxNodeThreads, &t))
      throw UsageError("thread count " + quoted(*v) + " (" + source +
                       ") is not a number of threads per node; use a whole number from 1 to " +
                       std::to_string(kMaxNodeThreads));
    cfg.threads = (int)t;
  }

  if (timeout_text) {
    errno = 0;
    char *end = nullptr;
    double t = strtod(timeout_text->c_str(), &end);
    if (timeout_text->empty() || errno || *end || !std::isfinite(t) || t <= 0 || t > 1e9)
      throw UsageError("--timeout " + quoted(*timeout_text) +
                       " is not a number of seconds greater than 0; give one (e.g. --timeout 600) or leave the "
                       "option out for no limit");
    cfg.timeout_seconds = t;
  }

  if (auto v = hang.value(&source, "hang-timeout")) {
    errno = 0;
    char *end = nullptr;
    double t = strtod(v->c_str(), &end);
    if (v->empty() || errno || *end || !std::isfinite(t) || t < 0 || t > 86400)
      throw UsageError("hang timeout " + quoted(*v) + " (" + source +
                       ") is not a number of seconds; use a number from 0 to 86400 (0: never call a node hung)");
    cfg.hang_seconds = t;
  }

  if (stats_text) cfg.stats_file = output_file(*stats_text, "--stats", "stats.json");
  if (auto v = trace.value(&source, "trace")) {
    cfg.trace_file = output_file(*v, source, "trace.json");
    // The nodes write beside it from their own working directories.
    if (cfg.trace_file[0] != '/') {
      char cwd[4096];
      if (getcwd(cwd, sizeof cwd)) cfg.trace_file = std::string(cwd) + "/" + cfg.trace_file;
    }
  }

  if (auto v = races.value(&source, "races")) {
    if (*v != "on" && *v != "off" && *v != "1" && *v != "0")
      throw UsageError("RDSM_RACES=" + *v + " in the environment is not a choice; use on (report data races at "
                       "the end of the job) or off");
    cfg.races = *v == "on" || *v == "1";
    if (cfg.races) check_races(cfg, source);
  }

  if (i >= argc)
    throw UsageError("missing the program to run (usage: rdsm run -n N [options] program [args...])");
  cfg.program = argv[i];
  cfg.program_path = find_program(cfg.program);
  check_interpreter(cfg.program, cfg.program_path);
  for (++i; i < argc; ++i) cfg.args.push_back(argv[i]);
  return cfg;
}

}  // namespace

CommandLine parse_command_line(int argc, char **argv) {
  CommandLine cl;
  if (argc < 2) throw UsageError("no command given; try `rdsm run -n N program` or `rdsm --help`");
  std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    cl.action = Action::help;
  } else if (cmd == "--version" || cmd == "-V" || cmd == "version") {
    cl.action = Action::version;
  } else if (cmd == "run") {
    bool help = false;
    cl.run = parse_run(argc, argv, 2, &help);
    cl.action = help ? Action::run_help : Action::run;
  } else if (!cmd.empty() && cmd[0] == '-') {
    throw UsageError("unknown option " + quoted(cmd) +
                     "; the options before a command are --help and --version (did you mean `rdsm run " + cmd +
                     " ...`?)");
  } else {
    throw UsageError("unknown command " + quoted(cmd) + "; the commands are run, bench, report and sim (see `rdsm --help`)");
  }
  return cl;
}

std::string general_help() {
  return std::string("usage: rdsm run -n N [options] program [args...]\n") +
         "       rdsm run --help\n"
         "       rdsm bench [options]      (rdsm bench --help)\n"
         "       rdsm report FILE.json [--out DIR]\n"
         "       rdsm report TRACE.json [--against TRACE.json]\n"
         "       rdsm sim TRACE.json [--emu-preset NAME] [--emu P=V,...]   (rdsm sim --help)\n"
         "       rdsm --version\n"
         "\n"
         "rdsm runs a program as a job of N processes (nodes) that share memory through\n"
         "the rdsm runtime (see rdsm.h).  The job ends when every node has ended; if any\n"
         "node fails, or the job is interrupted, every node is ended.\n"
         "\n"
         "commands:\n"
         "  run     start a job and wait for it (see `rdsm run --help`)\n"
         "  bench   run the applications over protocols and node counts, write one JSON file\n"
         "  report  print tables and draw the seeds' figures (PNG) from a bench JSON file;\n"
         "          given a trace (run --trace), where its time went between barriers\n"
         "  sim     predict a traced job's time under a modelled network (the emu fabric's model)\n"
         "\n"
         "user guide: " +
         guide_path() + "\n";
}

// `text` as lines of at most 79 columns, each starting with `indent`.
static std::string wrapped(const std::string &text, const std::string &indent) {
  std::string out, line = indent;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    std::string word = text.substr(at, end - at);
    if (line.size() > indent.size() && line.size() + 1 + word.size() > 79) {
      out += line + "\n";
      line = indent;
    }
    line += (line.size() > indent.size() ? " " : "") + word;
    at = end + 1;
  }
  return out + line + "\n";
}

// The emu fabric's parameters and presets, with the sources of their figures.
static std::string emu_help() {
  std::string s =
      "emu fabric: the base fabric plus a modelled network's costs, charged by\n"
      "busy-waiting: host overhead on the sending thread, NI occupancy (per\n"
      "packet) and bytes/bandwidth on each node's one NI, wire latency between\n"
      "them, interrupt cost when a message's handler runs in interrupt mode.\n"
      "--emu settings (override the preset's):\n" + wrapped(fabric::emu_settings_help(), "  ") +
      "--emu-preset names (see emu.md in the user guide for the model):\n";
  size_t count = 0;
  const fabric::EmuPreset *presets = fabric::emu_presets(&count);
  for (size_t i = 0; i < count; ++i)
    s += "  " + std::string(presets[i].name) + ": " + fabric::describe_emu_params(presets[i].params) + "\n" +
         wrapped(presets[i].source, "      ");
  return s;
}

std::string run_help() {
  std::string s =
      "usage: rdsm run -n N [options] program [args...]\n"
      "\n"
      "Starts N copies of the program as the nodes of one job, waits for them and\n"
      "prints a summary of the runtime's statistics to stderr.  Options end at the\n"
      "program (or at --); everything after it is passed to the program.  Options\n"
      "may also be written --option=value.\n"
      "\n"
      "options:\n";
  for (const auto &f : kFlags) {
    std::string left = "  ";
    left += f.short_name ? std::string("-") + f.short_name + ", " : std::string("    ");
    left += "--";
    left += f.long_name;
    if (f.value) {
      left += ' ';
      left += f.value;
    }
    if (left.size() < 28) left.resize(28, ' ');
    else left += "  ";
    s += left + f.help + "\n";
  }
  s += "\nprotocols: " + protocol_names() + "\naxes (for --axes): " + axes_help() +
       "\n"
       "\n"
       "fabrics: shm starts the nodes as processes of this host.  mpi (in a build\n"
      "configured with -DRDSM_MPI=ON) runs the MPI's launcher with the options the\n"
      "runtime needs (Open MPI's mpirun: --bind-to none, --mca osc ucx,\n"
      "--oversubscribe when the nodes outnumber the cores or the hosts; MPICH's\n"
      "mpiexec: --bind-to none) and hands the settings to the nodes in RDSM_*\n"
      "variables; mpirun then owns the job: its messages and exit status (the\n"
      "ranks' statistics reach rdsm through it, for the summary and --stats).\n"
      "A rank that finds another lost (--hang-timeout) ends\n"
      "the job, and rdsm ends an mpirun still waiting for a host it cannot reach.\n"
      "Programs may also be started with `mpirun -n N prog` directly.\n"
      "\n"
      "Settings not given as options are taken from RDSM_PROTOCOL, RDSM_AXES,\n"
       "RDSM_HANDLER, RDSM_MEMORY, RDSM_MINIPAGES, RDSM_FABRIC, RDSM_EMU,\n"
       "RDSM_EMU_PRESET, RDSM_EMU_BASE, RDSM_PLACEMENT, RDSM_REGION_SIZE, RDSM_LOCKS,\n"
       "RDSM_THREADS, RDSM_HANG_TIMEOUT, RDSM_TRACE and RDSM_RACES (on|off) when set;\n"
       "RDSM_RACE_LOG=SIZE caps each node's race log (default 256M);\n"
       "RDSM_PREPOPULATE=on|off|SIZE\n"
       "(default on: 512 MiB per node) gives allocated pages memory on every node\n"
       "when they are allocated rather than when first fetched.\n"
       "RDSM_MINIPAGE_VIEWS=N (2..256, default 16) is how many minipages one\n"
       "physical page holds at most (the views of the minipage area).\n"
       "\n" +
       emu_help() +
       "\n"
       "memory backends: uffd (userfaultfd: no limit on the region from\n"
       "vm.max_map_count) and mprotect (portable; the region is limited by\n"
       "vm.max_map_count). Without --memory, uffd is used where the kernel allows\n"
       "it, else mprotect, with one line saying why.\n"
       "\n"
       "The nodes share the launcher's stdout and stderr; their stdin is /dev/null\n"
       "when the launcher's is a terminal.\n"
       "\n"
       "exit status: 0 when every node called rdsm_finalize (or never used rdsm) and\n"
       "exited with 0; the status of the first node that failed (128+signal if it was\n"
       "killed); 124 on --timeout; 130/143 when interrupted by SIGINT/SIGTERM;\n"
       "2 for a mistake in the command line.\n"
       "\n"
       "user guide: " +
       guide_path() +
       "\n"
       "  (protocols.md: choosing a protocol and axes; statistics.md: the summary\n"
       "  and --stats; limits.md: region size, memory backends, failures)\n";
  return s;
}

}  // namespace rdsm::launcher
