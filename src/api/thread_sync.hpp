// The synchronisation of the API as one compute thread of a node makes it:
// straight to the protocol when the node runs one thread, through the
// node's cohort locks and local barrier (node_threads.hpp) when it may run
// more.  The C API and the SPLASH macros both come here, so each mechanism
// has one place.
#pragma once
#include "api/runtime.hpp"

namespace rdsm {

void thread_lock(Runtime &rt, int id);
bool thread_try_lock(Runtime &rt, int id);
void thread_unlock(Runtime &rt, int id);
// A barrier of every compute thread of the job (the node's threads first).
// `counted`: the node counts it as a collective call of rdsm_barrier
// (shared_allocator.hpp).
void thread_barrier(Runtime &rt, bool counted);

}  // namespace rdsm
