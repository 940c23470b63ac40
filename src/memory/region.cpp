#include "memory/region.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "common/error.hpp"
#include "memory/uffd_sys.hpp"

namespace rdsm {

namespace {
long read_long_file(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  long v = -1;
  if (fscanf(f, "%ld", &v) != 1) v = -1;
  fclose(f);
  return v;
}

// Mappings a process has besides the region (libraries, stacks, heaps,
// the fabric's peer mappings): a generous allowance.
constexpr long kOtherMappings = 8192;
constexpr size_t kRegionAlign = size_t(2) << 20;
constexpr uintptr_t kUserTop = 0x7ff000000000ull;

size_t align_down(size_t v) { return v / kRegionAlign * kRegionAlign; }

// Address space a node maps for a region of `bytes`: the application view,
// every node's data segment and its per-page words, and the twin arena.
double address_space_per_region_byte(int nodes) {
  return 2.0 + nodes * (1.0 + (16.0 + 4.0 * nodes) / (double)kPageBytes);
}

// The address space the minipage views of a region of `bytes` take beside it.
size_t view_bytes(const Options &opt, size_t bytes) {
  ViewLayout l = minipage_layout(opt, bytes / kPageBytes);
  return l.views * l.area_pages * kPageBytes;
}

void check_fits(const Options &opt, size_t bytes) {
  uintptr_t end = opt.region_base + bytes + view_bytes(opt, bytes);
  if (end < opt.region_base || end > kUserTop)
    fatal("the shared region [%#lx, %#lx) does not fit in the user address space; choose a lower "
          "RDSM_REGION_BASE or a smaller --region-size / RDSM_REGION_SIZE",
          (unsigned long)opt.region_base, (unsigned long)end);
  if (bytes > kMaxRegionBytes)
    fatal("a shared region of %zu GiB is larger than rdsm supports (%zu GiB); use a smaller --region-size / "
          "RDSM_REGION_SIZE",
          bytes >> 30, kMaxRegionBytes >> 30);
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY &&
      (double)bytes * address_space_per_region_byte(opt.nodes) > (double)as.rlim_cur)
    fatal("a shared region of %zu MiB on %d nodes needs about %.0f MiB of address space per node, more than "
          "the limit of %llu MiB (`ulimit -v`); raise the limit or use a smaller --region-size / RDSM_REGION_SIZE",
          bytes >> 20, opt.nodes, (double)bytes * address_space_per_region_byte(opt.nodes) / 1048576.0,
          (unsigned long long)(as.rlim_cur >> 20));
}
// The free address space from `base` up to the next mapping of this
// process (/proc/self/maps), or SIZE_MAX if nothing lies above; 0 if a
// mapping covers `base`.  A sanitizer's shadow memory, a program's heap or
// libraries may sit above a low base.
size_t free_bytes_above(uintptr_t base) {
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f) return SIZE_MAX;
  size_t room = SIZE_MAX;
  unsigned long start = 0, end = 0;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (sscanf(line, "%lx-%lx", &start, &end) != 2) continue;
    if (start <= base && base < end) room = 0;
    else if (start > base) room = std::min(room, (size_t)(start - base));
  }
  fclose(f);
  return room;
}
}  // namespace

size_t mprotect_region_ceiling() {
  long limit = read_long_file("/proc/sys/vm/max_map_count");
  if (limit < 0) return kDefaultRegionBytes;  // no such limit here
  return limit > kOtherMappings ? align_down((size_t)(limit - kOtherMappings) * kPageBytes) : 0;
}

size_t default_region_bytes(const Options &opt) {
  size_t bytes = kDefaultRegionBytes;
  // Minipage views take up to a quarter of the mprotect budget (minipage_views.hpp).
  const bool views = opt.minipages != MinipageMode::off;
  if (choose_memory_backend(opt) == MemoryBackend::mprotect)
    bytes = std::min(bytes, std::max(views ? align_down(mprotect_region_ceiling() / 4 * 3) : mprotect_region_ceiling(),
                                     kRegionAlign));
  // Within the address space: what is left above the base, and at most a
  // quarter of the user range (or of `ulimit -v`) for the region's mappings.
  double budget = (double)kUserTop / 4;
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) budget = std::min(budget, (double)as.rlim_cur / 2);
  bytes = std::min(bytes, (size_t)(budget / address_space_per_region_byte(opt.nodes)));
  if (opt.region_base < kUserTop) bytes = std::min(bytes, (size_t)(kUserTop - opt.region_base));
  // Up to whatever this process has mapped above the base already, the
  // minipage views (at most kDefaultAreaPages of each) included.
  if (size_t room = free_bytes_above(opt.region_base); room >= kRegionAlign) {
    const size_t most_views = views ? kDefaultAreaPages * kPageBytes * (size_t)opt.minipage_views : 0;
    bytes = std::min(bytes, room > most_views + kRegionAlign ? room - most_views : kRegionAlign);
  }
  return std::max(align_down(bytes), kRegionAlign);
}

size_t resolve_region_bytes(const Options &opt) {
  if (opt.region_bytes == 0) {
    size_t bytes = default_region_bytes(opt);
    check_fits(opt, bytes);
    return bytes;
  }
  if (opt.region_bytes % kPageBytes)
    fatal("region size %zu is not a multiple of the page size %zu; set RDSM_REGION_SIZE / --region-size to "
          "a multiple of 4K",
          opt.region_bytes, kPageBytes);
  if (opt.region_base % kPageBytes)
    fatal("region base %#lx is not page aligned", (unsigned long)opt.region_base);
  check_fits(opt, opt.region_bytes);
  // Page-granular mprotect splits the mapping into one VMA per run of pages
  // with equal protection: at worst one per page.
  // Minipage views add a virtual page per view of each area page.
  long pages = (long)(opt.region_bytes / kPageBytes);
  const long view_pages = (long)(view_bytes(opt, opt.region_bytes) / kPageBytes);
  long limit = read_long_file("/proc/sys/vm/max_map_count");
  if (choose_memory_backend(opt) == MemoryBackend::mprotect && limit > 0 &&
      pages + view_pages + kOtherMappings > limit)
    fatal("a shared region of %zu MiB has %ld pages%s and may need up to %ld memory mappings under the mprotect "
          "memory backend, but vm.max_map_count is %ld. Raise it (as root: sysctl -w vm.max_map_count=%ld), "
          "use a smaller region (--region-size)%s or the uffd memory backend (--memory uffd)",
          opt.region_bytes >> 20, pages,
          view_pages ? (", plus " + std::to_string(view_pages) + " pages of minipage views").c_str() : "",
          pages + view_pages + kOtherMappings, limit, 2 * (pages + view_pages + kOtherMappings),
          view_pages ? ", fewer RDSM_MINIPAGE_VIEWS" : "");
  // A region asked for explicitly is one the program means to fill: every
  // node may end up holding a copy of every page it touches.  (The default
  // is a reservation, sized for address space, not for memory.)
  long mem_kb = -1, swap_kb = 0;
  if (FILE *f = fopen("/proc/meminfo", "r")) {
    char line[256];
    while (fgets(line, sizeof line, f)) {
      sscanf(line, "MemTotal: %ld kB", &mem_kb);
      sscanf(line, "SwapTotal: %ld kB", &swap_kb);
    }
    fclose(f);
  }
  if (opt.rank == 0 && mem_kb > 0 &&
      (double)opt.region_bytes * opt.nodes > (double)(mem_kb + swap_kb) * 1024.0)
    warn("a shared region of %zu MiB on %d nodes can hold up to %zu MiB of copies, more than the %ld MiB of "
         "memory and swap here; a program that touches most of it will run out of memory",
         opt.region_bytes >> 20, opt.nodes, (opt.region_bytes >> 20) * (size_t)opt.nodes, (mem_kb + swap_kb) >> 10);
  return opt.region_bytes;
}

SharedRegion::SharedRegion(const Options &opt, const fabric::Segment &data, bool scan_writes,
                           const ViewLayout &views) {
  bytes_ = data.bytes;
  views_ = views;
  app_bytes_ = views_.on() ? views_.total_pages() * kPageBytes : bytes_;
  sys_ = data.base;
  fd_ = data.fd;
  fd_offset_ = data.fd_offset;
  if (data.fd < 0) fatal("the fabric's data segment cannot be mapped twice (no file descriptor)");
  kind_ = choose_memory_backend(opt);
  void *want = reinterpret_cast<void *>(opt.region_base);
  // mprotect starts with no access; uffd with a read-write view in which no
  // page is mapped yet, which is its "no access".
  int prot = kind_ == MemoryBackend::uffd ? PROT_READ | PROT_WRITE : PROT_NONE;
  void *p = mmap(want, bytes_, prot, MAP_SHARED | MAP_FIXED_NOREPLACE, data.fd, (off_t)data.fd_offset);
  if (p == MAP_FAILED) {
    if (errno == EEXIST) {
      // A suggestion past the taken range, on a 1 TiB boundary.
      uintptr_t other = (opt.region_base + bytes_ + (1ull << 40)) & ~((1ull << 40) - 1);
      if (other + bytes_ > kUserTop) other = 0x10000000000ull;
      fatal("the address range of the shared region [%p, %p) is already in use in this process; choose "
            "another base with RDSM_REGION_BASE (a free page-aligned range, e.g. %#lx)",
            want, static_cast<void *>(static_cast<uint8_t *>(want) + bytes_), (unsigned long)other);
    }
    if (errno == ENOMEM)
      fatal("cannot map the shared region of %zu MiB at %p: out of memory or address space (check "
            "`ulimit -v`)",
            bytes_ >> 20, want);
    fatal("cannot map the shared region at %p: %s", want, strerror(errno));
  }
  if (p != want) {
    munmap(p, bytes_);
    fatal("the kernel placed the shared region at %p instead of %p (kernel without MAP_FIXED_NOREPLACE?)", p,
          want);
  }
  app_ = static_cast<uint8_t *>(p);
  if (views_.on()) {
    if (scan_writes) fatal("internal error: minipage views under write detection by scan");
    map_minipage_views(app_, views_, data.fd, data.fd_offset, prot);
  }
  if (scan_writes) {
    const std::string &why = kind_ == MemoryBackend::uffd
                                 ? uffd::scan_unavailable_reason()
                                 : std::string("it needs the uffd memory backend, and the mprotect backend runs");
    if (!why.empty()) {
      static bool said = false;  // once per process, by node 0
      if (!said && opt.rank == 0) warn("writes are detected by faults, not by scans (detect=scan): %s", why.c_str());
      said = true;
      scan_writes = false;
    }
  }
  backend_ = kind_ == MemoryBackend::uffd ? make_uffd_backend(app_, sys_, data.fd, data.fd_offset, pages(), scan_writes, views_)
                                          : make_mprotect_backend(app_, pages());
}

SharedRegion::~SharedRegion() {
  if (app_) munmap(app_, app_bytes_);
  if (aside_) munmap(aside_, app_bytes_);
  backend_.reset();
}

void SharedRegion::move_view_aside() {
  if (!app_) return;
  // The destination at the view's offset within 2 MiB, so that whole page
  // tables move.  mremap takes one mapping only: a view split by the
  // mprotect backend's protections, or with minipage views beside it, is
  // unmapped here instead (as is the view wherever the move fails).
  constexpr uintptr_t kTable = uintptr_t(2) << 20;
  void *r = mmap(nullptr, app_bytes_ + kTable, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (r != MAP_FAILED) {
    const uintptr_t lo = reinterpret_cast<uintptr_t>(r), hi = lo + app_bytes_ + kTable;
    uintptr_t to = (lo & ~(kTable - 1)) + (reinterpret_cast<uintptr_t>(app_) & (kTable - 1));
    if (to < lo) to += kTable;
    if (to > lo) munmap(r, to - lo);
    if (hi > to + app_bytes_) munmap(reinterpret_cast<void *>(to + app_bytes_), hi - (to + app_bytes_));
    void *moved = mremap(app_, app_bytes_, app_bytes_, MREMAP_MAYMOVE | MREMAP_FIXED, reinterpret_cast<void *>(to));
    if (moved != MAP_FAILED) {
      aside_ = moved;
      app_ = nullptr;
      return;
    }
    munmap(reinterpret_cast<void *>(to), app_bytes_);
  }
  munmap(app_, app_bytes_);
  app_ = nullptr;
}

}  // namespace rdsm
