// The job's configuration, read once from the environment that the launcher
// (or the user) sets.  Every value is validated here, so a bad setting is
// reported by name before any work starts.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace rdsm {

// Who serves a node's messages (docs/protocols.md, "Handler modes"):
//   interrupt  a handler thread that sleeps on the doorbell until a message
//              arrives (the seeds' "task queue");
//   poll       the node's own threads, while they wait in rdsm and at its
//              synchronisation calls (the seeds' "selective polling");
//   signal     as poll, and a message arriving while a thread computes
//              interrupts it with a signal whose handler serves it (the
//              seeds' "process", like VIA implementations);
//   spin       a handler thread that polls without ever sleeping (the
//              seeds' "polling", for reference: lowest latency, a core).
enum class HandlerMode { interrupt, poll, signal, spin };

// "interrupt", "poll", "signal", "spin".
const char *handler_mode_name(HandlerMode m);
// Parses a mode's name; false when it is none of them.
bool parse_handler_mode(const char *name, HandlerMode *out);
// The accepted names, for messages: "interrupt, poll, signal or spin".
inline constexpr const char *kHandlerModeChoices = "interrupt, poll, signal or spin";
// A thread of the fabric delivers messages (interrupt, spin) ...
inline bool handler_thread_delivers(HandlerMode m) { return m == HandlerMode::interrupt || m == HandlerMode::spin; }
// ... or the node's threads do while they wait in rdsm (poll, signal).
inline bool waiters_deliver(HandlerMode m) { return m == HandlerMode::poll || m == HandlerMode::signal; }

// RDSM_MINIPAGES (the sc protocol only, memory/minipage_views.hpp):
//   off       page granularity; rdsm_malloc_minipage allocates as rdsm_malloc
//   on        every allocation smaller than a page gets a minipage of its own
//   explicit  only rdsm_malloc_minipage's allocations do
//   adaptive  as on, and a fault on a minipage also asks for the one this
//             node has faulted on right after it, repeatedly (sc.hpp)
enum class MinipageMode { off, on, explicit_only, adaptive };
constexpr int kDefaultMinipageViews = 16;
constexpr int kMaxMinipageViews = 256;

constexpr int kMaxNodes = 1024;
constexpr int kMaxNodeThreads = 256;  // compute threads per node (--threads)

constexpr size_t kDefaultPrepopulateBytes = size_t(512) << 20;
constexpr size_t kDefaultRaceLogBytes = size_t(256) << 20;

// The hang timeout when none is given (--hang-timeout, RDSM_HANG_TIMEOUT):
// short enough that a job across hosts whose link goes down ends within
// 5 s (the lost rank's heartbeats stop, then mpirun is given a second),
// long enough that no heartbeat thread of a healthy node, on a loaded
// machine, stays unscheduled that long.
inline constexpr double kDefaultHangSeconds = 3;

struct Options {
  int rank = 0;
  int nodes = 1;
  bool launched = false;           // started by `rdsm run` (RDSM_NODES set)
  bool nodes_implied = false;      // RDSM_NODES_IMPLIED: `rdsm run` without -n (fine for a fork-join program only)
  std::string node_fds;            // RDSM_NODE_FDS: memfd of every node, comma separated
  std::string protocol = "rdsm";   // RDSM_PROTOCOL
  bool protocol_named = false;     // RDSM_PROTOCOL was set: its axes are not adapted to the fabric
  std::string axes;                // RDSM_AXES: per-axis overrides of the preset, "lock=atomic,..."
  std::string fabric = "shm";      // RDSM_FABRIC
  // The emu fabric (fabric/emu_params.hpp): the fabric it wraps, a preset of
  // costs and "name=value,..." settings on top; checked when it is made.
  std::string emu_base = "shm";    // RDSM_EMU_BASE
  std::string emu_preset;          // RDSM_EMU_PRESET
  std::string emu;                 // RDSM_EMU
  // Started by an MPI launcher (mpirun, mpiexec, srun) with more than one
  // process and neither RDSM_FABRIC nor RDSM_NODES set: the fabric is mpi,
  // and rank and node count come from MPI when the fabric starts.
  bool mpi_launched = false;
  // RDSM_MPI_LOCAL=map|rma: whether ranks of the mpi fabric on one host map
  // each other's segments (loads, stores and atomics, no MPI) or reach them
  // through MPI RMA like ranks on other hosts.
  bool mpi_local_map = true;
  HandlerMode handler = HandlerMode::interrupt;  // RDSM_HANDLER=interrupt|poll|signal|spin
  size_t region_bytes = 0;                       // RDSM_REGION_SIZE (K/M/G/T suffixes); 0: the default
                                                 // for the memory backend (memory/region.hpp)
  uintptr_t region_base = 0x200000000000ull;     // RDSM_REGION_BASE (hex or decimal)
  std::string placement = "first-touch";         // RDSM_PLACEMENT: default placement policy
  int locks = 65536;                             // RDSM_LOCKS: number of lock ids
  int threads = 1;                               // RDSM_THREADS: compute threads per node (api/node_threads.hpp)
  int spin = 0;                                  // RDSM_SPIN: polls before sleeping in a wait (spinning
                                                 // with PAUSE is slow on virtual machines, and
                                                 // starves peers when nodes outnumber cores)
  // RDSM_MEMORY: memory (protection) backend, "mprotect" or "uffd"; empty:
  // uffd where the kernel allows it, else mprotect (memory/backend.hpp).
  std::string memory;
  // RDSM_PREPOPULATE=on|off|SIZE: allocated pages get memory in every
  // node's memory file when they are allocated (SharedRegion::populate),
  // not when first fetched, up to this many bytes per node (0: off); the
  // rest of a larger allocation, likely used sparsely, is left to fetches.
  size_t prepopulate_bytes = kDefaultPrepopulateBytes;
  // Fabric layout: message rings are reserved for this many nodes (0: the
  // job's size), so the registered segments sit at the same file offsets
  // whatever the job's size.  Fork-join jobs set it: their master's memory
  // outlives one job and is reused by the next, of another size.
  int ring_reserve = 0;
  // RDSM_HANG_TIMEOUT: a node whose heartbeat stops this long is hung (0:
  // never).  The launcher watches its nodes; a fork-join master, its workers.
  double hang_seconds = kDefaultHangSeconds;
  std::string trace;  // RDSM_TRACE: write a timeline trace (stats/trace.hpp) to this file
  // RDSM_STATS_TO=stderr: at the end of rdsm_finalize the node writes its
  // statistics as a line on stderr (stats/stats_line.hpp), for
  // `rdsm run --fabric mpi`, which sets it.
  bool stats_to_stderr = false;
  // RDSM_RACES=on|off: record every node's writes and synchronisation for a
  // data-race report at the end of the job (races/race_recorder.hpp);
  // RDSM_RACES_DIR: where the logs go (set by the launcher); RDSM_RACE_LOG:
  // the cap of a node's log.
  bool races = false;
  std::string races_dir;
  size_t race_log_bytes = kDefaultRaceLogBytes;
  MinipageMode minipages = MinipageMode::off;  // RDSM_MINIPAGES
  // RDSM_MINIPAGE_VIEWS: views of the minipage area, so the most minipages
  // one physical page holds (2..256).
  int minipage_views = kDefaultMinipageViews;
  std::string fault;  // RDSM_FAULT=POINT:NODE[:N[:ACTION]]: fault injection for tests (common/fault_inject.hpp)
};

// The compute threads the job runs on this host: the shm fabric runs every
// node here, other fabrics one.  Above usable_cpus() the host is
// oversubscribed: a waiting thread should leave its CPU to the others.
inline long host_compute_threads(const Options &o) {
  return (long)(o.threads > 1 ? o.threads : 1) * (o.fabric == "shm" ? o.nodes : 1);
}

// Parses the environment; on a bad value ends the process with a message
// naming the variable, the value and the accepted values.
Options options_from_environment();

// What an MPI launcher told this process, before MPI starts: the number of
// processes it started (0: none) and this one's rank (-1: not started by one).
long mpi_launch_size();
long mpi_launch_rank();

// "256M" -> 268435456.  Returns false on a malformed value.
bool parse_size(const std::string &text, size_t *out);

}  // namespace rdsm
