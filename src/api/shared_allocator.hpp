// Shared memory allocation from any node at any time.
//
// One bump pointer for the whole job lives in node 0's meta segment and is
// advanced with a remote fetch-and-add, so no node has to take part in
// another's allocation.  Allocations of a page or more are page aligned and
// get their homes from the placement policy; smaller ones are carved from a
// per-node chunk (16-byte aligned), whose pages are homed by first touch.
// Memory is not reused: the region is sized for the job (--region-size).
//
// With minipages (RDSM_MINIPAGES, sc only), a block smaller than a page
// that gets a minipage is carved from a per-node group of 16 pages of the
// minipage area instead: the blocks go round the group's pages through
// view 0, then round them again through view 1, and so on
// (memory/minipage_views.hpp), so consecutive blocks are neighbouring
// virtual pages and at most as many blocks as there are views share a data
// page.  Pages of the area come from a second bump pointer beside the
// first, a group at a time.
#pragma once
#include <mutex>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fabric/fabric.hpp"
#include "protocol/protocol.hpp"
#include "rdsm.h"

namespace rdsm {

// A page-aligned allocation: its pages (from the region's start) and the
// placement it was made with (RDSM_PLACE_DEFAULT resolved).
struct AllocationSpan {
  uint64_t first, count;
  rdsm_placement placement;
};
// The page-aligned allocations this process made while its job had one
// node, oldest first (so in page order: the bump pointer only grows).  A
// fork-join master's set-up before CREATE is that: CREATE homes its data by
// them (api/seed_homes.hpp), job after job.
const std::vector<AllocationSpan> &single_node_allocations();

class SharedAllocator {
 public:
  // Collective: registers the meta segment (bump pointer, root slots).  It
  // is the job's first segment, so it sits at the same place in node 0's
  // file whatever the job's size (fork-join jobs reuse node 0's file).
  SharedAllocator(fabric::Fabric &f, rdsm_placement default_placement, MinipageMode minipages);
  // The protocol whose region the allocator hands out; before any allocation.
  void bind(Protocol &protocol) { protocol_ = &protocol; }
  // `minipage`: the caller asked for a minipage (rdsm_malloc_minipage).
  void *allocate(size_t bytes, rdsm_placement placement, const char *call, bool minipage = false);
  void *allocate_collective(size_t bytes, rdsm_placement placement);
  void publish_root(int slot, void *p);
  void *root(int slot);
  // Bytes of the region handed out so far (by every node).
  uint64_t used_bytes();
  // Counts this node's rdsm_barrier calls (rdsm_malloc_all counts its own)
  // in this node's meta segment, where the other nodes can read them.
  void count_barrier();
  // Ends the process with a message naming `call` when another node made a
  // different number of collective calls; called after a barrier of every
  // node, when no node makes another.
  void check_collectives(const char *call);
  // Gives this node's copies of everything allocated so far their memory
  // (Protocol::populate_copies): where a node learns of other nodes'
  // allocations (rdsm_root, rdsm_malloc_all, a fork-join worker's start).
  // The homes placed there are learnt first: only copies need the memory.
  void populate_allocated();
  // A word of the job's, zero when it starts: how many workers have had
  // their first SPLASH synchronisation call, in order (splash_order.hpp).
  uint64_t first_sync_turn();
  // Raises it to at least `to`.
  void raise_first_sync_turn(uint64_t to);
  // Where the meta segment starts in this node's memory file.
  uint64_t file_offset() const { return meta_.fd_offset; }

 private:
  uint64_t bump(size_t bytes, const char *call);
  // Whether a block of `bytes` gets a minipage, and the block if so.
  bool wants_minipage(size_t bytes, bool asked) const;
  void *allocate_minipage(size_t bytes, const char *call);
  // Populates from populated_ up to `end` (bytes into the region).
  void populate_to(uint64_t end);
  uint64_t &own_word(uint64_t offset) { return *reinterpret_cast<uint64_t *>(meta_.base + offset); }

  fabric::Fabric &f_;
  Protocol *protocol_ = nullptr;
  rdsm_placement default_;
  fabric::Segment meta_;
  uint8_t *chunk_ = nullptr;  // current small-allocation chunk of this node
  size_t chunk_left_ = 0;
  uint64_t populated_ = 0;  // this node's copies below here have memory
  MinipageMode minipages_ = MinipageMode::off;
  // The minipage group this node carves minipages from (allocate_minipage):
  // its first area page (SIZE_MAX: none yet), the bytes used in each of its
  // pages, and the view and the slot of the next block.
  static constexpr size_t kMiniGroup = 16;
  size_t mini_first_ = SIZE_MAX, mini_view_ = 0, mini_slot_ = 0;
  std::vector<size_t> mini_used_;
  std::mutex mu_;  // allocate() from several compute threads of the node (--threads)
};

}  // namespace rdsm
