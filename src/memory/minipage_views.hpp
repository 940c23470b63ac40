// Multiview minipages at user level (the sc protocol, RDSM_MINIPAGES).
//
// Multiview maps several virtual pages onto one physical page, so that
// each shared variable placed in that page (a "minipage") is reached
// through a virtual page of its own, with a protection of its own: two
// nodes writing two variables of one page no longer take the page from
// each other.  The papers do it in a kernel module that edits page tables
// directly; here it is done with ordinary mappings of the node's memory
// file:
//
//   - The last `area_pages` pages of the data segment are the minipage
//     area.  Besides the main application view (which maps the whole
//     segment and through which the area is never used), the area is
//     mapped `views` more times, back to back right after the main view:
//
//       base                      main view: data pages 0 .. P-1
//       base + P pages            view 0 of the area (pages P-A .. P-1)
//       base + (P + A) pages      view 1 of the area
//       ...                       view k at base + (P + k*A) pages
//
//     So the program's address space is one contiguous range of virtual
//     pages v = 0 .. P + views*A - 1, and a fault address still maps to its
//     virtual page by one subtraction and one division.  Virtual page v >= P
//     is view (v - P) / A of data page P - A + (v - P) % A.
//   - A minipage is a slot of one physical page: the allocator gives the
//     k-th small allocation placed in a physical page the k-th view, so at
//     most `views` minipages share a physical page.  Its virtual page is its
//     coherence unit: the protocol keeps owner, copy set and protection per
//     virtual page, and moves only the minipage's bytes (its extent, an
//     offset and a length within the physical page) between nodes.
//
// Costs and limits of doing this at user level:
//   - Address space: views * A pages beside the region (1 GiB for the
//     uffd default: 16 views of 16384 pages), reserved, not committed.
//   - uffd backend: the views are more VMAs of the same file, registered
//     with the main view; each view's page has its own page-table entry,
//     so protections stay per virtual page at no VMA cost.  Runs of pages
//     given to one uffd call never cross a view (SharedRegion::protect
//     splits them), since a call must stay within one VMA.
//   - mprotect backend: every virtual page with a protection of its own
//     can become a VMA, and views multiply them: views * A pages count
//     against vm.max_map_count with the region's own pages.  By default
//     the views get a quarter of what the limit allows, and a region or an
//     area asked for beyond it is refused before any work starts, naming
//     the limit (region.cpp).
//   - Not like the kernel version: the papers change a group of minipage
//     protections and flush the TLB once, in interrupt context; here each
//     change is a system call from the node's handler or fault thread, and
//     the area's size and the number of views are fixed when the job
//     starts.  The area is not reused: like all shared memory, minipages
//     are never freed.
#pragma once
#include <cstddef>
#include <cstdint>

#include "common/options.hpp"

namespace rdsm {

struct ViewLayout {
  size_t phys_pages = 0;  // pages of the data segment, all mapped by the main view
  size_t area_pages = 0;  // the last of them that hold minipages (0: no views)
  size_t views = 0;       // how many more times the area is mapped

  bool on() const { return views != 0 && area_pages != 0; }
  size_t area_first() const { return phys_pages - area_pages; }
  size_t total_pages() const { return phys_pages + views * area_pages; }
  bool is_minipage(size_t v) const { return v >= phys_pages; }
  // The data page behind virtual page v.
  size_t phys_of(size_t v) const { return v < phys_pages ? v : area_first() + (v - phys_pages) % area_pages; }
  // The virtual page of data page `phys` (in the area) seen through `view`.
  size_t vpage(size_t view, size_t phys) const { return phys_pages + view * area_pages + (phys - area_first()); }
  // One past the last virtual page of the mapping that holds v.
  size_t mapping_end(size_t v) const {
    return v < phys_pages ? phys_pages : phys_pages + ((v - phys_pages) / area_pages + 1) * area_pages;
  }
};

// The views a region of `phys_pages` gets under `opt`: none unless
// RDSM_MINIPAGES is on or explicit.  Under uffd the area is
// kDefaultAreaPages (at most a quarter of the region); under mprotect
// what a quarter of vm.max_map_count's budget allows.
constexpr size_t kDefaultAreaPages = 16384;
ViewLayout minipage_layout(const Options &opt, size_t phys_pages);

// Maps the views of `layout` right after the main view at `app` (which maps
// the data segment at `fd_offset` of `fd`) with protection `prot`; ends the
// process with the cause if the address range is taken or the kernel
// refuses.
void map_minipage_views(uint8_t *app, const ViewLayout &layout, int fd, uint64_t fd_offset, int prot);

}  // namespace rdsm
