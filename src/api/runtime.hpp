// The node's runtime: one object per process that joined the job, tying
// the layers together (fabric -> protocol -> allocator) for the C API.
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "api/heartbeat.hpp"
#include "api/node_threads.hpp"
#include "api/shared_allocator.hpp"
#include "api/sync_registry.hpp"
#include "bootstrap/node_file.hpp"
#include "common/options.hpp"
#include "fabric/fabric.hpp"
#include "protocol/protocol.hpp"

namespace rdsm {

struct Runtime {
  Options opt;
  std::unique_ptr<fabric::Fabric> fabric;
  std::unique_ptr<Protocol> protocol;
  std::unique_ptr<SharedAllocator> allocator;
  std::unique_ptr<SyncRegistry> registry;
  std::unique_ptr<NodeThreads> threads;  // --threads > 1 only
  NodeBlock *node_block = nullptr;  // launched jobs only
  std::unique_ptr<Heartbeat> heartbeat;  // launched jobs only
  // Per compute thread of the node: it made its first SPLASH
  // synchronisation call of the job (splash_order.hpp).
  std::vector<uint8_t> first_sync_done;
};

// The runtime, or an API error naming `call` if rdsm_init has not run.
Runtime &runtime_for(const char *call);
Runtime *runtime_if_initialized();
void runtime_start(int *argc, char ***argv);
void runtime_finish();

// The two halves of start and finish, for callers that make jobs themselves
// (fork-join programs build and leave several jobs in one process).
// runtime_build is collective with the job's other nodes; `before_meeting`
// runs once this node is set up, before it first meets the others.  With
// `keep_stats` the node's statistics go on from the previous job's.
using RuntimeHook = std::function<void(Runtime &)>;
void runtime_build(const Options &opt, const RuntimeHook &before_meeting = {}, bool keep_stats = false);
// Collective: the final barrier, then this node leaves the job.
// `after_barrier` runs after the protocol's final barrier, while the fabric
// still works.  With `last` false the process may build another job.
// `left_to_exit`: the caller exits right after (a fork-join worker), so the
// runtime's memory and mappings stay for the kernel to free; its statistics
// are recorded all the same.  `background`: the caller goes on alone (a
// fork-join master after WAIT_FOR_END); the runtime comes down on a thread
// once the caller has built its next job (runtime_teardown.hpp).
enum class Teardown { now, left_to_exit, background };
void runtime_leave(bool last, const RuntimeHook &after_barrier = {}, Teardown teardown = Teardown::now);
// For a process that ends the whole program on its own (a fork-join master
// calling exit): records this node's statistics and that it ended normally,
// without meeting anyone.
void runtime_record_end();

}  // namespace rdsm
