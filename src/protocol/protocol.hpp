// The coherence protocol of a node, as the API layer sees it.
//
// Two engines implement it: the home-based lazy release consistency engine
// (hlrc.hpp) behind every release-consistency preset and hw, and the
// sequentially consistent single-writer engine (sc.hpp) behind preset sc.
// make_protocol picks the one the preset names; everything above this line
// (allocation, fork-join jobs, the C API) works the same with either.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>

#include "common/options.hpp"
#include "fabric/fabric.hpp"
#include "memory/region.hpp"
#include "protocol/presets.hpp"
#include "rdsm.h"

namespace rdsm {

class Protocol {
 public:
  virtual ~Protocol() = default;

  // Installs the fault handler; call after the fabric has started.
  virtual void start() = 0;
  // Final barrier, then stops taking faults.
  virtual void finish() = 0;

  virtual SharedRegion &region() = 0;
  virtual const ProtocolConfig &config() const = 0;

  // Synchronisation (application threads).  try_lock takes the lock only
  // if it is free, and says so at once.
  virtual void lock(int id) = 0;
  virtual bool try_lock(int id) = 0;
  virtual void unlock(int id) = 0;
  virtual int lock_count() const = 0;
  virtual void barrier() = 0;
  virtual void release() = 0;
  virtual void acquire() = 0;

  // Pages [first, first+count) were just allocated with this placement, by
  // this node, before any node touched them: the placed node becomes their
  // home (release consistency) or first owner (sequential consistency).
  virtual void place(size_t first, size_t count, rdsm_placement placement) = 0;
  // A minipage was just allocated, by this node, before any node touched
  // it: `bytes` at `offset` of the data page behind virtual page `page` (a
  // page of a minipage view, memory/minipage_views.hpp).  Only protocols
  // whose region has minipage views are asked.
  virtual void place_minipage(size_t, size_t, size_t) {}
  // Another node placed pages [first, first+count) (a collective
  // allocation): this node may learn where they went before it faults there.
  virtual void learn_homes(size_t first, size_t count) = 0;
  // Pages [first, first+count) were allocated by some node: this node's
  // memory file may give its copies memory now, while the program sets up.
  virtual void populate_copies(size_t first, size_t count) = 0;

  // After finish(): copies into this node's memory the current contents of
  // every page of the first `pages` that another node holds the master of,
  // so that this node's memory alone holds the whole shared state
  // (fork-join jobs end with the master holding it, then go on from it).
  // A run of pages homed at one other node that `adopt` takes (returns
  // true for) is left where it is, for the caller to map
  // (api/adopted_homes.hpp).
  using AdoptRun = std::function<bool(size_t first, size_t count, int home)>;
  virtual void gather_homes(size_t pages, const AdoptRun &adopt) = 0;
  // The segment behind the region: a fork-join master keeps it from one job
  // to the next (api/fork_join.hpp).
  virtual const fabric::Segment &data_segment() const = 0;
};

// The node a placement gives page first+i of [first, first+count), placed by
// node `self` of `nodes` (not for first touch, which places nothing).
inline int placed_node(rdsm_placement placement, size_t first, size_t i, size_t count, int nodes, int self) {
  switch (placement) {
    case RDSM_PLACE_BLOCK: return (int)(i * (size_t)nodes / count);
    case RDSM_PLACE_CYCLIC: return (int)((first + i) % (size_t)nodes);
    default: return self;  // RDSM_PLACE_LOCAL
  }
}

// The engine `cfg` names, set up for this node.  Collective: every node
// registers the protocol's segments and message handlers in the same order.
std::unique_ptr<Protocol> make_protocol(fabric::Fabric &f, const Options &opt, const ProtocolConfig &cfg);

}  // namespace rdsm
