// Access faults on the application view, from signal to protocol.
//
// The fault signal (SIGSEGV under the mprotect backend, SIGBUS under uffd)
// handler does only async-signal-safe work: it classifies the
// fault (inside the region? read or write?), hands it to the node's fault
// service thread through a futex-guarded slot, and sleeps on a futex until
// the service thread has made the page accessible.  The protocol's fault
// code therefore runs on an ordinary thread and may take locks, allocate and
// wait for messages.  A fault outside the region is passed on to the handler
// that was installed before (by default: the process dies of the signal).
#pragma once
#include <cstddef>
#include <functional>

#include "memory/region.hpp"

namespace rdsm {

// Called on the service thread; returns once the access can be retried.
using FaultService = std::function<void(size_t page, bool write)>;

// Tried first, inside the signal handler: must be async-signal-safe.
// Returns true if it resolved the fault, false to hand it to the service.
struct FaultFastPath {
  bool (*fn)(void *ctx, size_t page, bool write) = nullptr;
  void *ctx = nullptr;
};

// Called on the service thread after each fault it served, once the
// faulting thread has left the signal handler to retry its access.  A
// protocol that must not give a page away before the access that asked for
// it was made (one writer at a time: two nodes writing one page would
// otherwise take it from each other for ever) lets it go from here.
using FaultRetried = std::function<void()>;

// Installs the SIGSEGV and SIGBUS handler and starts the service thread.  One region
// per process.  `spin` is how long the faulting thread polls for completion
// before sleeping.
void install_fault_dispatch(SharedRegion &region, FaultService service, FaultFastPath fast, int spin,
                            FaultRetried retried = {});
// Stops the service thread and restores the previous handlers.
void remove_fault_dispatch();

}  // namespace rdsm
