// The node's runtime: one object per process that joined the job, tying
// the layers together (fabric -> protocol -> allocator) for the C API.
#pragma once
#include <memory>

#include "api/shared_allocator.hpp"
#include "bootstrap/node_file.hpp"
#include "common/options.hpp"
#include "fabric/fabric.hpp"
#include "protocol/hlrc.hpp"

namespace rdsm {

struct Runtime {
  Options opt;
  std::unique_ptr<fabric::Fabric> fabric;
  std::unique_ptr<Hlrc> protocol;
  std::unique_ptr<SharedAllocator> allocator;
  NodeBlock *node_block = nullptr;  // launched jobs only
};

// The runtime, or an API error naming `call` if rdsm_init has not run.
Runtime &runtime_for(const char *call);
Runtime *runtime_if_initialized();
void runtime_start(int *argc, char ***argv);
void runtime_finish();

}  // namespace rdsm
