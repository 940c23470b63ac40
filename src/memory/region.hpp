// The shared region: one range of pages at the same virtual address in
// every node, backed by the node's registered data segment and mapped twice:
//   - the application view at the fixed base address, whose per-page
//     protection the protocol controls (no access / read-only / read-write);
//   - the system view (the segment's own mapping), always read-write, which
//     the runtime and remote nodes use to move page contents.
// How protections are enforced is the backend's business (backend.hpp).
// With minipages (sc only), the end of the data segment is mapped several
// more times right after the application view, one view per minipage slot
// (minipage_views.hpp): the application's pages are then virtual pages, of
// which the first bytes()/kPageBytes are the data pages themselves.
#pragma once
#include <cstddef>
#include <cstdint>

#include <algorithm>
#include <memory>

#include "common/options.hpp"
#include "fabric/fabric.hpp"
#include "memory/backend.hpp"
#include "memory/minipage_views.hpp"

namespace rdsm {

constexpr size_t kPageBytes = 4096;

class SharedRegion {
 public:
  // Maps the application view of `data` at opt.region_base with no access,
  // under the backend choose_memory_backend(opt) picks; `scan_writes` asks
  // for its scan mode (backend.hpp), which runs if the backend has it (if
  // not, node 0 says why, once).
  // `views`: the minipage views to map beside it (none by default).
  SharedRegion(const Options &opt, const fabric::Segment &data, bool scan_writes = false, const ViewLayout &views = {});
  ~SharedRegion();
  // Frees the application view's addresses now, ahead of the rest of the
  // region: a fork-join master's next job maps its own view there while the
  // old one's tables and mappings go in the background
  // (api/runtime_teardown.hpp).  The view is moved aside, not unmapped:
  // moving a mapping moves its page tables whole, where unmapping it visits
  // every page it maps (about a millisecond per 10,000 pages, on the
  // master's path out of WAIT_FOR_END).  The destructor unmaps it there.
  void move_view_aside();
  SharedRegion(const SharedRegion &) = delete;
  SharedRegion &operator=(const SharedRegion &) = delete;

  uint8_t *app() const { return app_; }
  uint8_t *sys() const { return sys_; }
  // The data segment's bytes (the system view, what the fabric moves).
  size_t bytes() const { return bytes_; }
  // The bytes ordinary allocations may use: all but the minipage area.
  size_t heap_bytes() const { return bytes_ - views_.area_pages * kPageBytes; }
  // The application view's pages: the data pages, then the minipage views.
  size_t pages() const { return app_bytes_ / kPageBytes; }
  const ViewLayout &views() const { return views_; }
  bool contains(const void *p) const {
    auto a = reinterpret_cast<uintptr_t>(p), b = reinterpret_cast<uintptr_t>(app_);
    return a >= b && a - b < app_bytes_;
  }
  size_t page_of(const void *p) const {
    return (reinterpret_cast<uintptr_t>(p) - reinterpret_cast<uintptr_t>(app_)) / kPageBytes;
  }
  uint8_t *app_page(size_t page) const { return app_ + page * kPageBytes; }
  // A data page in the system view (for a virtual page v: views().phys_of(v)).
  uint8_t *sys_page(size_t page) const { return sys_ + page * kPageBytes; }

  // Sets the protection of pages [first, first+count) in the application
  // view.  With views, a range is split where one mapping ends and the
  // next begins (a uffd call stays within one VMA), except the whole view
  // at once, which the backends treat as one case.
  void protect(size_t first, size_t count, Prot prot) {
    if (count == 0) return;
    if (!views_.on() || (first == 0 && count == pages())) {
      backend_->protect(first, count, prot);
      return;
    }
    for (size_t end = first + count; first < end;) {
      size_t n = std::min(end, views_.mapping_end(first)) - first;
      backend_->protect(first, n, prot);
      first += n;
    }
  }
  // Whether pages [first, first+count) are all inaccessible already (backend.hpp).
  bool inaccessible(size_t first, size_t count) const { return backend_->inaccessible(first, count); }
  // Whether the application view reads the page without a fault (backend.hpp).
  bool mapped_readable(size_t page) const { return backend_->mapped_readable(page); }
  const uint8_t *readable_app_page(size_t page) const { return mapped_readable(page) ? app_page(page) : nullptr; }

  // Scan mode: writes to read-only pages do not fault; collect_written
  // finds them (and watches them again), unwatch leaves pages writable and
  // unwatched, rearm watches them again (backend.hpp).
  bool writes_async() const { return backend_->writes_async(); }
  void collect_written(std::vector<uint32_t> &out) { backend_->collect_written(out); }
  void unwatch(const std::vector<uint32_t> &pages) { backend_->unwatch(pages); }
  void rearm(const std::vector<uint32_t> &pages) { backend_->rearm(pages); }

  MemoryBackend memory_backend() const { return kind_; }
  // For the fault path (fault_dispatch.cpp): see ProtectionBackend.
  int fault_signal() const { return backend_->fault_signal(); }
  bool expects_faults() const { return backend_->expects_faults(); }
  bool repair(size_t page, bool write) { return backend_->repair(page, write); }
  // Protections lowered by peers on this host (backend.hpp).
  int peer_protect_fd() const { return backend_->peer_protect_fd(); }
  void bound_by(uint64_t *bounds) { backend_->bound_by(bounds); }

  // Gives pages [first, first+count) of this node's memory file their memory
  // now, so that copying a page in later (mapped first: premap_system) is a
  // plain memory copy: a page first written into the file costs an
  // allocation, zeroing and a page-table fault on the critical path, several
  // times the copy itself (region_populate.cpp).  Contents are unchanged.
  // Returns false, having done nothing, where it would take more than the
  // job's share of this host's available memory (`copies_of_each_page`: how
  // many nodes may hold one) or the kernel cannot do it.
  bool populate(size_t first, size_t count, int copies_of_each_page);
  // populate() of at most what is left of `budget_bytes` (the job's
  // RDSM_PREPOPULATE) after this node's earlier calls: the pages
  // [first, first + the count returned), or 0 having done nothing.
  size_t populate_within(size_t first, size_t count, int copies_of_each_page, size_t budget_bytes);
  // Maps pages [first, first+count) of the system view, populated before,
  // into this process's page tables now.  Best effort.
  void premap_system(size_t first, size_t count);
  // Maps `bytes` at `pages`, a shared mapping of memory-file pages that
  // have their memory (another node's copies of pages this node populated,
  // as the fabric maps them here: peer_segment; under hw the application
  // view of node 0's memory), into this process's page tables now: the
  // first access to each would otherwise take a page fault, on the
  // critical path of a fetch, a diff or the program.  Best effort: nothing
  // happens where the kernel cannot.
  static void premap_shared(uint8_t *pages, size_t bytes);
  // Gives `bytes` of this process's private anonymous memory at `addr`
  // their pages now, in one call instead of a fault per page.  Best effort.
  static void populate_private(uint8_t *addr, size_t bytes);

 private:
  uint8_t *app_ = nullptr;
  uint8_t *sys_ = nullptr;
  size_t bytes_ = 0;
  size_t app_bytes_ = 0;  // the application view, minipage views included
  void *aside_ = nullptr;  // where move_view_aside put the view, to unmap
  ViewLayout views_;
  int fd_ = -1;  // the memory file and where the data segment starts in it
  uint64_t fd_offset_ = 0;
  // populate's memory budget: MemAvailable when last read, and what was
  // populated since (read again after kRereadBytes, region_populate.cpp).
  size_t available_ = 0, populated_since_read_ = SIZE_MAX;
  size_t populated_within_ = 0;  // by populate_within, against its budget
  MemoryBackend kind_ = MemoryBackend::mprotect;
  std::unique_ptr<ProtectionBackend> backend_;
};

// The region's size when none is asked for (RDSM_REGION_SIZE unset or 0):
// a sparse reservation, so that programs need no flag for large inputs.
// Under uffd it is kDefaultRegionBytes; under mprotect, where every page may
// cost a memory mapping, the largest vm.max_map_count allows.  Either is
// trimmed to the address space above the base (up to the next mapping the
// process already has there) and to `ulimit -v`.
constexpr size_t kDefaultRegionBytes = size_t(64) << 30;
// The largest region: a node's memory file holds its data segment and the
// per-page words beside it (bootstrap/node_file.hpp).
constexpr size_t kMaxRegionBytes = size_t(256) << 30;
size_t default_region_bytes(const Options &opt);
// The largest region the mprotect backend can protect page by page here.
size_t mprotect_region_ceiling();

// The region size this node uses: the one asked for in `opt`, checked,
// before any memory is mapped, against the limits of this machine
// (vm.max_map_count for page-granular protection, the address range,
// `ulimit -v`), or the default.  Ends the process with a message naming the
// limit and the remedy when it does not fit.
size_t resolve_region_bytes(const Options &opt);

}  // namespace rdsm
