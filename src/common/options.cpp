#include "common/options.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/error.hpp"
#include "common/fault_inject.hpp"

namespace rdsm {

bool parse_size(const std::string &text, size_t *out) {
  if (text.empty()) return false;
  errno = 0;
  char *end = nullptr;
  unsigned long long v = strtoull(text.c_str(), &end, 0);
  if (errno || end == text.c_str()) return false;
  unsigned shift = 0;
  if (*end) {
    switch (*end) {
      case 'k': case 'K': shift = 10; break;
      case 'm': case 'M': shift = 20; break;
      case 'g': case 'G': shift = 30; break;
      case 't': case 'T': shift = 40; break;
      default: return false;
    }
    ++end;
    if (*end == 'i') ++end;
    if (*end == 'B' || *end == 'b') ++end;
    if (*end) return false;
  }
  if (shift && v > (~0ull >> shift)) return false;
  *out = (size_t)(v << shift);
  return true;
}

const char *handler_mode_name(HandlerMode m) {
  switch (m) {
    case HandlerMode::interrupt: return "interrupt";
    case HandlerMode::poll: return "poll";
    case HandlerMode::signal: return "signal";
    case HandlerMode::spin: return "spin";
  }
  return "?";
}

bool parse_handler_mode(const char *name, HandlerMode *out) {
  for (HandlerMode m : {HandlerMode::interrupt, HandlerMode::poll, HandlerMode::signal, HandlerMode::spin})
    if (!strcmp(name, handler_mode_name(m))) {
      *out = m;
      return true;
    }
  return false;
}

namespace {
const char *env(const char *name) {
  const char *v = getenv(name);
  return (v && *v) ? v : nullptr;
}

long parse_int(const char *name, const char *v, long lo, long hi) {
  char *end = nullptr;
  errno = 0;
  long x = strtol(v, &end, 10);
  if (errno || !end || *end || x < lo || x > hi)
    fatal("%s=%s is not a whole number in %ld..%ld", name, v, lo, hi);
  return x;
}

// A whole number an MPI launcher gives every process it starts (Open MPI's
// mpirun, MPICH's Hydra), or -1 when no MPI launcher started this one.
long mpi_launch_number(const char *ompi_name, const char *pmi_name) {
  for (const char *name : {ompi_name, pmi_name})
    if (const char *v = env(name)) {
      char *end = nullptr;
      long n = strtol(v, &end, 10);
      if (end && !*end && n >= 0) return n;
    }
  return -1;
}
}  // namespace

long mpi_launch_size() { return std::max(0L, mpi_launch_number("OMPI_COMM_WORLD_SIZE", "PMI_SIZE")); }
long mpi_launch_rank() { return mpi_launch_number("OMPI_COMM_WORLD_RANK", "PMI_RANK"); }

Options options_from_environment() {
  Options o;
  if (const char *v = env("RDSM_NODES")) {
    o.launched = true;
    o.nodes = (int)parse_int("RDSM_NODES", v, 1, kMaxNodes);
    const char *r = env("RDSM_RANK");
    if (!r) fatal("RDSM_NODES is set but RDSM_RANK is not; start programs with `rdsm run -n N prog`");
    o.rank = (int)parse_int("RDSM_RANK", r, 0, o.nodes - 1);
    const char *f = env("RDSM_NODE_FDS");
    if (!f) fatal("RDSM_NODES is set but RDSM_NODE_FDS is not; start programs with `rdsm run -n N prog`");
    o.node_fds = f;
    o.nodes_implied = env("RDSM_NODES_IMPLIED") != nullptr;
  }
  if (const char *v = env("RDSM_PROTOCOL")) {
    o.protocol = v;
    o.protocol_named = true;
  }
  if (const char *v = env("RDSM_AXES")) o.axes = v;
  if (const char *v = env("RDSM_FABRIC")) {
    o.fabric = v;
  } else if (!o.launched && mpi_launch_size() > 1) {
    o.fabric = "mpi";
    o.mpi_launched = true;
  }
  if (const char *v = env("RDSM_MPI_LOCAL")) {
    if (!strcmp(v, "map")) o.mpi_local_map = true;
    else if (!strcmp(v, "rma")) o.mpi_local_map = false;
    else fatal("RDSM_MPI_LOCAL=%s is not a choice; use map (ranks on one host map each other's memory) or rma", v);
  }
  if (const char *v = env("RDSM_EMU_BASE")) o.emu_base = v;
  if (const char *v = env("RDSM_EMU_PRESET")) o.emu_preset = v;
  if (const char *v = env("RDSM_EMU")) o.emu = v;
  if (const char *v = env("RDSM_HANDLER")) {
    if (!parse_handler_mode(v, &o.handler)) fatal("RDSM_HANDLER=%s is not a handler mode; use %s", v, kHandlerModeChoices);
  }
  if (const char *v = env("RDSM_REGION_SIZE")) {
    if (!parse_size(v, &o.region_bytes) || o.region_bytes == 0)
      fatal("RDSM_REGION_SIZE=%s is not a size (examples: 512M, 4G)", v);
  }
  if (const char *v = env("RDSM_REGION_BASE")) {
    char *end = nullptr;
    errno = 0;
    unsigned long long b = strtoull(v, &end, 0);
    if (errno || !end || *end || b == 0 || (b & 0xfff))
      fatal("RDSM_REGION_BASE=%s is not a page-aligned address (example: 0x200000000000)", v);
    o.region_base = (uintptr_t)b;
  }
  if (const char *v = env("RDSM_PLACEMENT")) {
    if (strcmp(v, "first-touch") && strcmp(v, "block") && strcmp(v, "cyclic"))
      fatal("RDSM_PLACEMENT=%s is not a placement; use first-touch, block or cyclic", v);
    o.placement = v;
  }
  if (const char *v = env("RDSM_LOCKS")) o.locks = (int)parse_int("RDSM_LOCKS", v, 1, 1 << 24);
  if (const char *v = env("RDSM_THREADS")) o.threads = (int)parse_int("RDSM_THREADS", v, 1, kMaxNodeThreads);
  if (const char *v = env("RDSM_SPIN")) o.spin = (int)parse_int("RDSM_SPIN", v, 0, 1 << 30);
  if (const char *v = env("RDSM_HANG_TIMEOUT")) {
    char *end = nullptr;
    errno = 0;
    double t = strtod(v, &end);
    if (errno || !end || *end || !(t >= 0 && t <= 86400))
      fatal("RDSM_HANG_TIMEOUT=%s is not a number of seconds; use a number from 0 to 86400 (0: never call a node "
            "hung)",
            v);
    o.hang_seconds = t;
  }
  // RDSM_PROTECT is the variable's earlier name.
  for (const char *name : {"RDSM_PROTECT", "RDSM_MEMORY"})
    if (const char *v = env(name)) {
      if (strcmp(v, "mprotect") && strcmp(v, "uffd"))
        fatal("%s=%s is not a memory backend; use mprotect or uffd", name, v);
      o.memory = v;
    }
  if (const char *v = env("RDSM_PREPOPULATE")) {
    if (!strcmp(v, "on")) o.prepopulate_bytes = kDefaultPrepopulateBytes;
    else if (!strcmp(v, "off")) o.prepopulate_bytes = 0;
    else if (!parse_size(v, &o.prepopulate_bytes))
      fatal("RDSM_PREPOPULATE=%s is not a choice; use on (allocated pages get memory on every node when they are "
            "allocated, up to %zu MiB per node), off (when first fetched) or a size per node (examples: 256M, 2G)",
            v, kDefaultPrepopulateBytes >> 20);
  }
  if (const char *v = env("RDSM_MINIPAGES")) {
    if (!strcmp(v, "off")) o.minipages = MinipageMode::off;
    else if (!strcmp(v, "on")) o.minipages = MinipageMode::on;
    else if (!strcmp(v, "explicit")) o.minipages = MinipageMode::explicit_only;
    else if (!strcmp(v, "adaptive")) o.minipages = MinipageMode::adaptive;
    else
      fatal("RDSM_MINIPAGES=%s is not a choice; use off (page granularity), on (every allocation smaller than a "
            "page gets a minipage of its own, under --protocol sc), explicit (only rdsm_malloc_minipage's do) or "
            "adaptive (as on, and minipages always accessed together are asked for together)",
            v);
  }
  if (const char *v = env("RDSM_MINIPAGE_VIEWS"))
    o.minipage_views = (int)parse_int("RDSM_MINIPAGE_VIEWS", v, 2, kMaxMinipageViews);
  if (const char *v = env("RDSM_TRACE")) o.trace = v;
  if (const char *v = env("RDSM_STATS_TO")) {
    if (!strcmp(v, "stderr")) o.stats_to_stderr = true;
    else fatal("RDSM_STATS_TO=%s is not a choice; use stderr (the node writes its statistics as a line on "
               "stderr at the end, for `rdsm run --fabric mpi`) or leave it unset", v);
  }
  if (const char *v = env("RDSM_RACES")) {
    if (!strcmp(v, "on") || !strcmp(v, "1")) o.races = true;
    else if (!strcmp(v, "off") || !strcmp(v, "0")) o.races = false;
    else fatal("RDSM_RACES=%s is not a choice; use on (report data races at the end of the job) or off", v);
  }
  if (const char *v = env("RDSM_RACES_DIR")) o.races_dir = v;
  if (const char *v = env("RDSM_RACE_LOG")) {
    if (!parse_size(v, &o.race_log_bytes) || o.race_log_bytes < 4096)
      fatal("RDSM_RACE_LOG=%s is not a size of at least 4K; use the most a node's race log may hold (examples: "
            "64M, 1G; default %zuM)",
            v, kDefaultRaceLogBytes >> 20);
  }
  if (const char *v = env("RDSM_FAULT")) {
    std::string error;
    if (!parse_fault_spec(v, error)) fatal("RDSM_FAULT=%s: %s", v, error.c_str());
    o.fault = v;
  }
  return o;
}

}  // namespace rdsm
