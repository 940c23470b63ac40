#include "api/shared_allocator.hpp"

#include <algorithm>
#include <atomic>

#include "common/error.hpp"
#include "memory/region.hpp"

namespace rdsm {

namespace {
constexpr int kMetaNode = 0;
constexpr uint64_t kBumpOffset = 0;
constexpr uint64_t kAreaBumpOffset = 8;  // pages of the minipage area handed out
constexpr uint64_t kRootsOffset = 64;
constexpr uint64_t kCollectiveOffset = kRootsOffset + 8 * RDSM_ROOT_SLOTS;
// In every node's own meta segment: its rdsm_barrier and rdsm_malloc_all
// calls in this job.
constexpr uint64_t kBarrierCountOffset = kCollectiveOffset + 8;
constexpr uint64_t kMallocAllCountOffset = kBarrierCountOffset + 8;
constexpr uint64_t kFirstSyncTurnOffset = kMallocAllCountOffset + 8;  // node 0's
constexpr size_t kMetaBytes = 4096;
constexpr size_t kChunkBytes = 64 << 10;
constexpr size_t kSmallAlign = 16;

size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

std::vector<AllocationSpan> &spans_made_alone() {
  static std::vector<AllocationSpan> spans;  // outlives the runtimes of a fork-join master's jobs
  return spans;
}
}  // namespace

const std::vector<AllocationSpan> &single_node_allocations() { return spans_made_alone(); }

SharedAllocator::SharedAllocator(fabric::Fabric &f, rdsm_placement default_placement, MinipageMode minipages)
    : f_(f), default_(default_placement), minipages_(minipages) {
  meta_ = f_.register_segment(kMetaBytes);
  // A fork-join master keeps its meta segment from one job to the next.
  std::atomic_ref<uint64_t>(own_word(kBarrierCountOffset)).store(0);
  std::atomic_ref<uint64_t>(own_word(kMallocAllCountOffset)).store(0);
  std::atomic_ref<uint64_t>(own_word(kFirstSyncTurnOffset)).store(0);
}

uint64_t SharedAllocator::first_sync_turn() { return f_.atomic_load(kMetaNode, meta_.id, kFirstSyncTurnOffset); }

void SharedAllocator::raise_first_sync_turn(uint64_t to) {
  uint64_t seen = first_sync_turn();
  while (seen < to) {
    const uint64_t was = f_.cas(kMetaNode, meta_.id, kFirstSyncTurnOffset, seen, to);
    if (was == seen) break;
    seen = was;
  }
}

void SharedAllocator::count_barrier() {
  std::atomic_ref<uint64_t>(own_word(kBarrierCountOffset)).fetch_add(1, std::memory_order_relaxed);
}

void SharedAllocator::check_collectives(const char *call) {
  const uint64_t barriers = std::atomic_ref<uint64_t>(own_word(kBarrierCountOffset)).load();
  const uint64_t mallocs = std::atomic_ref<uint64_t>(own_word(kMallocAllCountOffset)).load();
  for (int node = 0; node < f_.nodes(); ++node) {
    if (node == f_.rank()) continue;
    uint64_t b = f_.atomic_load(node, meta_.id, kBarrierCountOffset);
    uint64_t m = f_.atomic_load(node, meta_.id, kMallocAllCountOffset);
    if (b != barriers || m != mallocs)
      api_error(call,
                "node %d called rdsm_barrier %llu times and rdsm_malloc_all %llu times, this node %llu and %llu: "
                "a barrier was reached by some nodes only; every node must call rdsm_barrier and rdsm_malloc_all "
                "equally often",
                node, (unsigned long long)b, (unsigned long long)m, (unsigned long long)barriers,
                (unsigned long long)mallocs);
  }
}

uint64_t SharedAllocator::used_bytes() {
  uint64_t used = f_.atomic_load(kMetaNode, meta_.id, kBumpOffset);
  return std::min<uint64_t>(used, protocol_->region().heap_bytes());
}

uint64_t SharedAllocator::bump(size_t bytes, const char *call) {
  const size_t heap = protocol_->region().heap_bytes();
  if (bytes > heap)
    api_error(call, "%zu bytes do not fit in the shared region of %zu MiB; start the job with a larger "
              "--region-size (RDSM_REGION_SIZE for a program started alone)",
              bytes, heap >> 20);
  uint64_t off = f_.fetch_add(kMetaNode, meta_.id, kBumpOffset, bytes);
  if (off + bytes > heap)
    api_error(call,
              "out of shared memory: %zu bytes requested, %llu of %zu MiB already allocated; start the job with "
              "a larger --region-size (RDSM_REGION_SIZE for a program started alone)",
              bytes, (unsigned long long)off, heap >> 20);
  return off;
}

bool SharedAllocator::wants_minipage(size_t bytes, bool asked) const {
  if (bytes >= kPageBytes || !protocol_->region().views().on()) return false;
  return minipages_ == MinipageMode::on || minipages_ == MinipageMode::adaptive ||
         (asked && minipages_ == MinipageMode::explicit_only);
}

void *SharedAllocator::allocate_minipage(size_t bytes, const char *call) {
  // Blocks go round a group of kMiniGroup area pages within one view, then
  // round the same pages again in the next view: consecutive blocks are
  // neighbouring virtual pages (view v of area pages a, a + 1, ...), so a
  // protection change of minipages allocated together (an array of small
  // records, each a minipage) is one backend call for the run, one TLB
  // flush (memory/protection_batch.hpp).  Each block still has a virtual
  // page of its own, and a data page holds at most one block per view.
  const ViewLayout &l = protocol_->region().views();
  const size_t need = round_up(bytes, kSmallAlign);
  // Smaller groups where the area could not give every node one (a small
  // area under mprotect, many nodes).
  const size_t group = std::max<size_t>(1, std::min<size_t>(kMiniGroup, l.area_pages / (size_t)f_.nodes()));
  if (mini_first_ == SIZE_MAX || mini_slot_ == group) {
    mini_slot_ = 0;
    ++mini_view_;
  }
  if (mini_first_ == SIZE_MAX || mini_view_ == l.views || mini_used_[mini_slot_] + need > kPageBytes) {
    uint64_t taken = f_.fetch_add(kMetaNode, meta_.id, kAreaBumpOffset, group);
    if (taken + group > l.area_pages)
      api_error(call,
                "out of minipages: all %zu pages of the minipage area (up to %zu minipages, %zu per page) are "
                "taken; give minipages only to the variables that need them (RDSM_MINIPAGES=explicit and "
                "rdsm_malloc_minipage), more per page (RDSM_MINIPAGE_VIEWS), under uffd a larger --region-size "
                "if it is below %zu MiB (the area is at most a quarter of the region), or RDSM_MINIPAGES=off",
                l.area_pages, l.area_pages * l.views, l.views, kDefaultAreaPages * 4 * kPageBytes >> 20);
    mini_first_ = l.area_first() + taken;
    mini_used_.assign(group, 0);
    mini_slot_ = 0;
    mini_view_ = 0;
  }
  const size_t page = l.vpage(mini_view_, mini_first_ + mini_slot_);
  size_t &used = mini_used_[mini_slot_];
  protocol_->place_minipage(page, used, need);
  uint8_t *p = protocol_->region().app_page(page) + used;
  used += need;
  ++mini_slot_;
  return p;
}

void *SharedAllocator::allocate(size_t bytes, rdsm_placement placement, const char *call, bool minipage) {
  std::lock_guard<std::mutex> g(mu_);
  if (bytes == 0) api_error(call, "size 0 requested; ask for at least one byte");
  if ((int)placement < RDSM_PLACE_DEFAULT || (int)placement > RDSM_PLACE_LOCAL)
    api_error(call,
              "placement %d is not an rdsm_placement value; use RDSM_PLACE_DEFAULT, RDSM_PLACE_FIRST_TOUCH, "
              "RDSM_PLACE_BLOCK, RDSM_PLACE_CYCLIC or RDSM_PLACE_LOCAL",
              (int)placement);
  if (placement == RDSM_PLACE_DEFAULT) placement = default_;
  SharedRegion &r = protocol_->region();
  // A minipage is owned by the first node to touch it, whatever the placement.
  if (wants_minipage(bytes, minipage)) return allocate_minipage(bytes, call);
  if (bytes < kPageBytes) {
    size_t need = round_up(bytes, kSmallAlign);
    if (need > chunk_left_) {
      uint64_t off = bump(kChunkBytes, call);
      chunk_ = r.app() + off;
      chunk_left_ = kChunkBytes;
      populate_to(off + kChunkBytes);
    }
    void *p = chunk_;
    chunk_ += need;
    chunk_left_ -= need;
    return p;
  }
  size_t total = round_up(bytes, kPageBytes);
  uint64_t off = bump(total, call);
  protocol_->place(off / kPageBytes, total / kPageBytes, placement);
  if (f_.nodes() == 1) spans_made_alone().push_back({off / kPageBytes, total / kPageBytes, placement});
  populate_to(off + total);
  return r.app() + off;
}

void *SharedAllocator::allocate_collective(size_t bytes, rdsm_placement placement) {
  std::atomic_ref<uint64_t>(own_word(kMallocAllCountOffset)).fetch_add(1, std::memory_order_relaxed);
  if (f_.rank() == 0) {
    void *p = allocate(bytes, placement, "rdsm_malloc_all");
    uint64_t off = static_cast<uint8_t *>(p) - protocol_->region().app();
    f_.put(kMetaNode, meta_.id, kCollectiveOffset, &off, sizeof off);
    f_.flush(kMetaNode);
  } else if (bytes == 0) {
    api_error("rdsm_malloc_all", "size 0 requested; ask for at least one byte");
  }
  // A protocol barrier, not the fabric's: while waiting, a node must still
  // serve the pages and locks others need to reach the barrier.
  protocol_->barrier();
  uint64_t off = f_.atomic_load(kMetaNode, meta_.id, kCollectiveOffset);
  // Whole pages were placed (smaller blocks share a chunk, placed nowhere).
  if (f_.rank() != 0 && bytes >= kPageBytes)
    protocol_->learn_homes(off / kPageBytes, round_up(bytes, kPageBytes) / kPageBytes);
  // A minipage lies past the heap, in a view: there is nothing to populate.
  if (f_.rank() != 0 && off < protocol_->region().heap_bytes()) {
    std::lock_guard<std::mutex> g(mu_);
    populate_to(off + round_up(bytes, kPageBytes));
  }
  protocol_->barrier();  // nobody may reuse the slot before everyone read it
  return protocol_->region().app() + off;
}

void SharedAllocator::populate_allocated() {
  const uint64_t end = std::min<uint64_t>(round_up(used_bytes(), kPageBytes), protocol_->region().heap_bytes());
  if (end > populated_) protocol_->learn_homes(populated_ / kPageBytes, (end - populated_) / kPageBytes);
  populate_to(end);
}

void SharedAllocator::populate_to(uint64_t end) {
  end = std::min<uint64_t>(round_up(end, kPageBytes), protocol_->region().heap_bytes());
  if (end <= populated_) return;
  protocol_->populate_copies(populated_ / kPageBytes, (end - populated_) / kPageBytes);
  populated_ = end;
}

void SharedAllocator::publish_root(int slot, void *p) {
  if (slot < 0 || slot >= RDSM_ROOT_SLOTS)
    api_error("rdsm_publish_root", "slot %d is out of range 0..%d; use a slot from 0 to RDSM_ROOT_SLOTS - 1", slot,
              RDSM_ROOT_SLOTS - 1);
  if (p && !protocol_->region().contains(p))
    api_error("rdsm_publish_root", "%p is not in the shared region; publish memory from rdsm_malloc", p);
  uint64_t v = reinterpret_cast<uintptr_t>(p);
  f_.put(kMetaNode, meta_.id, kRootsOffset + 8 * (uint64_t)slot, &v, sizeof v);
  f_.flush(kMetaNode);
}

void *SharedAllocator::root(int slot) {
  if (slot < 0 || slot >= RDSM_ROOT_SLOTS)
    api_error("rdsm_root", "slot %d is out of range 0..%d; use a slot from 0 to RDSM_ROOT_SLOTS - 1", slot,
              RDSM_ROOT_SLOTS - 1);
  void *p = reinterpret_cast<void *>(f_.atomic_load(kMetaNode, meta_.id, kRootsOffset + 8 * (uint64_t)slot));
  // The node that published it allocated it: this node may learn of it
  // here (asking how much is allocated only if it lies past what it knows).
  SharedRegion &r = protocol_->region();
  if (p && r.contains(p) && (uint64_t)(static_cast<uint8_t *>(p) - r.app()) >= populated_) {
    std::lock_guard<std::mutex> g(mu_);
    populate_allocated();
  }
  return p;
}

}  // namespace rdsm
