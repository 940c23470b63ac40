#include "api/runtime.hpp"
#include "api/runtime_teardown.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>
#include <unistd.h>

#include "common/clock.hpp"
#include "common/error.hpp"
#include "common/fault_inject.hpp"
#include "common/usable_cpus.hpp"
#include "protocol/presets.hpp"
#include "races/race_job.hpp"
#include "races/race_report.hpp"
#include "stats/stats.hpp"
#include "stats/stats_line.hpp"
#include "stats/trace.hpp"

namespace rdsm {

namespace {
Runtime *g_runtime = nullptr;
bool g_finalized = false;

rdsm_placement placement_named(const std::string &name) {
  if (name == "block") return RDSM_PLACE_BLOCK;
  if (name == "cyclic") return RDSM_PLACE_CYCLIC;
  return RDSM_PLACE_FIRST_TOUCH;
}
}  // namespace

Runtime *runtime_if_initialized() { return g_runtime; }

Runtime &runtime_for(const char *call) {
  if (!g_runtime) {
    if (g_finalized)
      api_error(call, "called after rdsm_finalize; make every rdsm call between rdsm_init and rdsm_finalize");
    api_error(call, "called before rdsm_init; call rdsm_init(&argc, &argv) first (MAIN_INITENV in a SPLASH program)");
  }
  return *g_runtime;
}

void runtime_start(int *, char ***) {
  if (g_runtime) api_error("rdsm_init", "called twice; call it once per process");
  if (g_finalized) api_error("rdsm_init", "called after rdsm_finalize; a process joins a job once");
  const Options opt = options_from_environment();
  // `rdsm run` without -n starts one process, as a fork-join program wants
  // (its master forks the rest); an SPMD program says what was left out.
  if (opt.nodes_implied)
    fatal("missing -n N, the number of nodes (1..%d): `rdsm run` without -n starts one process, which suits only "
          "a fork-join (SPLASH) program; give it before the program, e.g. `rdsm run -n 4 program`", kMaxNodes);
  runtime_build(opt);
}

void runtime_build(const Options &opt, const RuntimeHook &before_meeting, bool keep_stats) {
  // The last job's runtime may still be kept for its teardown (a fork-join
  // master's, runtime_teardown.hpp): whoever kept it settles it when that
  // suits.
  auto rt = std::make_unique<Runtime>();
  rt->opt = opt;
  // RDSM_PROTOCOL may name axes too ("sc+fetch=message"), which go
  // before RDSM_AXES.
  ProtocolChoice choice;
  std::string axis_error;
  switch (choose_protocol(opt.protocol, opt.axes, choice, axis_error)) {
    case ProtocolChoiceFault::none: break;
    case ProtocolChoiceFault::preset:
      fatal("unknown protocol '%s' (RDSM_PROTOCOL); set RDSM_PROTOCOL to one of: %s", choice.preset.c_str(),
            protocol_names().c_str());
    case ProtocolChoiceFault::name_axes: fatal("RDSM_PROTOCOL=%s: %s", opt.protocol.c_str(), axis_error.c_str());
    case ProtocolChoiceFault::given_axes: fatal("RDSM_AXES=%s: %s", opt.axes.c_str(), axis_error.c_str());
  }
  rt->opt.protocol = choice.preset;
  rt->opt.axes = choice.axes;
  const ProtocolConfig *preset = find_protocol(choice.preset);
  ProtocolConfig chosen = choice.config;
  const ProtocolConfig *cfg = &chosen;
  rt->fabric = fabric::make_fabric(rt->opt);
  if (!rt->opt.protocol_named && rt->fabric->one_sided_in_software()) {
    // The default preset, across hosts that do one-sided operations in
    // software: the message axes first, then the user's own on top.
    chosen = *preset;
    const std::string axes = std::string(kSoftwareOneSidedAxes) + (rt->opt.axes.empty() ? "" : "," + rt->opt.axes);
    if (!apply_axes(chosen, axes, axis_error)) fatal("RDSM_AXES=%s: %s", rt->opt.axes.c_str(), axis_error.c_str());
    static bool said = false;  // a fork-join master builds a runtime per job
    if (!said && rt->fabric->rank() == 0)
      note("the job spans hosts without an RDMA transport, where one-sided operations wait for the target's "
           "software: the default protocol runs as %s (docs/clusters.md); name --protocol to choose another",
           chosen.name.c_str());
    said = true;
  }
  // A fabric that starts the job itself (mpi) knows rank and size only now.
  rt->opt.rank = rt->fabric->rank();
  rt->opt.nodes = rt->fabric->nodes();
  const bool in_job = rt->opt.launched || !rt->opt.node_fds.empty() || rt->opt.fabric != "shm";
  set_diagnostic_node(in_job ? rt->opt.rank : -1);
  trace::begin_node(rt->opt.trace, rt->opt.rank, rt->opt.nodes);  // before the node's threads start
  trace::name_thread("compute");
  if (rt->opt.launched) {
    std::vector<int> fds = parse_fd_list(rt->opt.node_fds, rt->opt.nodes);
    rt->node_block = map_node_block(fds[rt->opt.rank]);
    rt->node_block->magic = kNodeBlockMagic;
    rt->node_block->pid = (int32_t)getpid();
    snprintf(rt->node_block->protocol, sizeof rt->node_block->protocol, "%s", cfg->name.c_str());
    snprintf(rt->node_block->handler, sizeof rt->node_block->handler, "%s",
             handler_mode_name(rt->opt.handler));
  }
  arm_fault_injection(rt->opt.fault, rt->opt.rank);
  // The segments whose size does not depend on the job's size first, in
  // this order, then the protocol's data segment: a fork-join master keeps
  // them all from one job to the next (see fork_join.hpp).
  rt->allocator = std::make_unique<SharedAllocator>(*rt->fabric, placement_named(rt->opt.placement), rt->opt.minipages);
  rt->registry = std::make_unique<SyncRegistry>(*rt->fabric, rt->opt.locks);
  rt->protocol = make_protocol(*rt->fabric, rt->opt, *cfg);
  rt->allocator->bind(*rt->protocol);
  rt->first_sync_done.assign((size_t)std::max(rt->opt.threads, 1), 0);
  if (rt->opt.threads > 1) {
    rt->threads = std::make_unique<NodeThreads>(rt->opt.threads, rt->protocol->lock_count(),
                                                host_compute_threads(rt->opt) <= usable_cpus() ? NodeThreads::kSpinNs : 0);
    thread_stats_configure(rt->opt.threads);  // the caller is thread 0
  }
  if (rt->node_block) {
    snprintf(rt->node_block->memory, sizeof rt->node_block->memory, "%s",
             memory_backend_name(rt->protocol->region().memory_backend()));
    rt->node_block->region_bytes = rt->protocol->region().bytes();
  }
  rt->fabric->start();
  rt->protocol->start();
  if (before_meeting) before_meeting(*rt);
  rt->fabric->barrier();
  g_runtime = rt.release();
  if (!keep_stats) stats().reset();
  if (g_runtime->node_block) {
    g_runtime->node_block->state.store(kNodeInitialized);
    g_runtime->heartbeat = std::make_unique<Heartbeat>(g_runtime->node_block->heartbeat);
  }
}

void runtime_finish() {
  runtime_for("rdsm_finalize");
  // After the protocol's last barrier every node has made all its
  // collective calls: a node that made fewer or more than this one met a
  // barrier of another kind (the last barrier of rdsm_finalize among them),
  // and the job would wait for ever.
  runtime_leave(true, [](Runtime &rt) { rt.allocator->check_collectives("rdsm_finalize"); });
}

namespace {
// The node's statistics, and its threads' rows if it has several, taken at
// one instant: what the launcher shows of this node.
NodeStatsLine final_stats(const Runtime &rt) {
  const uint64_t now = now_ns();
  NodeStatsLine n;
  n.rank = rt.opt.rank;
  n.pid = (int)getpid();
  n.stats = stats().snapshot_at(now);
  if (thread_stats_active()) {
    n.threads = thread_stats_snapshot(stats().start_ns.load(std::memory_order_relaxed), now);
    if (n.threads.size() > (size_t)kMaxNodeThreads) n.threads.resize((size_t)kMaxNodeThreads);
  }
  if (rt.protocol) {
    n.memory = memory_backend_name(rt.protocol->region().memory_backend());
    n.protocol = rt.protocol->config().name;
    n.region_bytes = rt.protocol->region().bytes();
  }
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  for (char *c = host; *c; ++c)
    if (*c == ' ') *c = '_';  // a field of the line
  n.host = host;
  return n;
}

// For the launcher on this host: into the node's block.
void record_stats(NodeBlock &b, const NodeStatsLine &n) {
  b.stats = n.stats;
  for (size_t i = 0; i < n.threads.size(); ++i) b.threads[i] = n.threads[i];
  b.thread_rows = (uint32_t)n.threads.size();
}

// For a launcher that reads the job's stderr (RDSM_STATS_TO=stderr): one
// write, so that the line reaches it whole.
void write_stats_line(const NodeStatsLine &n) {
  const std::string line = encode_stats_line(n);
  const char *p = line.data();
  size_t left = line.size();
  while (left > 0) {
    ssize_t w = write(STDERR_FILENO, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;  // stderr is gone: the launcher says that the node's figures are missing
    p += w;
    left -= (size_t)w;
  }
}
}  // namespace

void runtime_record_end() {
  settle_background_teardown();
  if (!g_runtime || !g_runtime->node_block) return;
  record_stats(*g_runtime->node_block, final_stats(*g_runtime));
  g_runtime->node_block->state.store(kNodeFinalized);
}

void runtime_leave(bool last, const RuntimeHook &after_barrier, Teardown teardown) {
  settle_background_teardown();
  Runtime &rt = *g_runtime;
  rt.protocol->finish();
  if (after_barrier) after_barrier(rt);
  trace::end_node();
  // After the last protocol barrier no node sends another message.
  rt.fabric->barrier();
  // Without a launcher to merge the trace's parts, node 0 does, once every
  // node has written its own (before the barrier above).
  if (last && !rt.opt.launched && rt.opt.rank == 0 && !rt.opt.trace.empty()) trace::merge_parts(rt.opt.trace);
  // And the race logs, in the directory this process made for them.
  if (last && !rt.opt.launched && rt.opt.rank == 0 && races::owns_log_dir())
    races::report_and_remove(races::log_dir());
  rt.fabric->stop();
  rt.heartbeat.reset();  // not watched from here on (a fork-join master goes on alone)
  if (rt.node_block || (last && rt.opt.stats_to_stderr)) {
    const NodeStatsLine end = final_stats(rt);
    if (last && rt.opt.stats_to_stderr) write_stats_line(end);
    if (rt.node_block) record_stats(*rt.node_block, end);
  }
  if (rt.node_block) {
    if (last) rt.node_block->state.store(kNodeFinalized);
    unmap_node_block(rt.node_block);
  }
  g_runtime = nullptr;
  g_finalized = last;
  // A process about to exit leaves its mappings, threads' state and files
  // to the kernel: unmapping tens of MiB of copies and twins one call at a
  // time costs milliseconds the exit makes anyway.
  if (teardown == Teardown::left_to_exit) return;
  if (teardown == Teardown::background) {
    keep_for_teardown(std::unique_ptr<Runtime>(&rt));
    return;
  }
  rt.allocator.reset();
  rt.registry.reset();
  rt.threads.reset();
  rt.protocol.reset();
  rt.fabric.reset();
  delete &rt;
}

}  // namespace rdsm
