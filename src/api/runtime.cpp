#include "api/runtime.hpp"

#include <cstring>
#include <unistd.h>

#include "common/error.hpp"
#include "protocol/presets.hpp"
#include "stats/stats.hpp"

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
    if (g_finalized) api_error(call, "called after rdsm_finalize");
    api_error(call, "called before rdsm_init; call rdsm_init(&argc, &argv) first");
  }
  return *g_runtime;
}

void runtime_start(int *, char ***) {
  if (g_runtime) api_error("rdsm_init", "called twice; call it once per process");
  if (g_finalized) api_error("rdsm_init", "called after rdsm_finalize; a process joins a job once");
  auto rt = std::make_unique<Runtime>();
  rt->opt = options_from_environment();
  set_diagnostic_node(rt->opt.launched ? rt->opt.rank : -1);
  const ProtocolConfig *preset = find_protocol(rt->opt.protocol);
  if (!preset) fatal("unknown protocol '%s'; available: %s", rt->opt.protocol.c_str(), protocol_names().c_str());
  ProtocolConfig chosen = *preset;
  std::string axis_error;
  if (!apply_axes(chosen, rt->opt.axes, axis_error)) fatal("RDSM_AXES=%s: %s", rt->opt.axes.c_str(), axis_error.c_str());
  const ProtocolConfig *cfg = &chosen;
  if (rt->opt.launched) {
    std::vector<int> fds = parse_fd_list(rt->opt.node_fds, rt->opt.nodes);
    rt->node_block = map_node_block(fds[rt->opt.rank]);
    rt->node_block->magic = kNodeBlockMagic;
    rt->node_block->pid = (int32_t)getpid();
    snprintf(rt->node_block->protocol, sizeof rt->node_block->protocol, "%s", cfg->name.c_str());
    snprintf(rt->node_block->handler, sizeof rt->node_block->handler, "%s",
             rt->opt.handler == HandlerMode::poll ? "poll" : "interrupt");
  }
  rt->fabric = fabric::make_fabric(rt->opt);
  rt->protocol = std::make_unique<Hlrc>(*rt->fabric, rt->opt, *cfg);
  rt->allocator = std::make_unique<SharedAllocator>(*rt->fabric, *rt->protocol, placement_named(rt->opt.placement));
  rt->fabric->start();
  rt->protocol->start();
  rt->fabric->barrier();
  g_runtime = rt.release();
  stats().reset();
  if (g_runtime->node_block) g_runtime->node_block->state.store(kNodeInitialized);
}

void runtime_finish() {
  Runtime &rt = runtime_for("rdsm_finalize");
  rt.protocol->finish();
  // After the last protocol barrier no node sends another message.
  rt.fabric->barrier();
  rt.fabric->stop();
  if (rt.node_block) {
    rt.node_block->stats = stats().snapshot();
    rt.node_block->state.store(kNodeFinalized);
    unmap_node_block(rt.node_block);
  }
  g_runtime = nullptr;
  g_finalized = true;
  rt.allocator.reset();
  rt.protocol.reset();
  rt.fabric.reset();
  delete &rt;
}

}  // namespace rdsm
