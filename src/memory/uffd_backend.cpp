// The userfaultfd backend.  The application view is an ordinary read-write
// shared mapping of the node's data file, registered for missing, minor and
// write-protect faults; a page's protection is the state of its mapping:
//   none        no page table entry (MADV_DONTNEED drops it; the file keeps
//               the page, so the data survives): any access faults;
//   read        mapped write-protected (UFFDIO_CONTINUE_MODE_WP, or
//               UFFDIO_WRITEPROTECT on a mapped page): a write faults;
//   read_write  mapped (UFFDIO_CONTINUE, or un-write-protected).
// The kernel never splits the mapping, so any number of pages with
// alternating protections costs one VMA.
//
// Faults arrive as SIGBUS in the faulting thread (UFFD_FEATURE_SIGBUS),
// not as messages to a thread reading the descriptor: measured with
// apps/micro_uffd_delivery, a read miss costs 4.3 us that way and 7.5 us
// through a handler thread, a write-protect fault 5.0 against 7.2 us (the
// thread way adds two thread switches, and on a node whose cores are all
// computing the handler thread must first be scheduled).
//
// A byte per page keeps the protection last set and whether the page may be
// mapped, to pick the call; a range change is split into runs needing the
// same call, so it costs a few system calls, not one per page.  Everything
// here but collect_written is async-signal-safe: the fault path calls
// protect() and repair() from the SIGBUS handler.
//
// Scan mode (backend.hpp) registers the same way with
// UFFD_FEATURE_WP_ASYNC: a write to a write-protected page is let through
// by the kernel, which clears the page's protection bit; PAGEMAP_SCAN finds
// the pages whose bit is clear and sets it again (collect_written, not
// signal-safe), in the same walk where it can (see scan()); unwatch()
// clears it for good on those the protocol leaves alone (a home page nobody
// copied: its writes need no notice, and so cost nothing).  Every page is
// mapped write-protected, read-write included.  The scan walks page
// tables, and its cost grows with the pages it walks, so it walks only
// "armed" pages: mapped and watched (by a map or a rearm), and the gaps
// between nearby ones.  A page unwatched is not walked for itself, nor is a
// page dropped; a release of a program whose node holds a large home partition
// and copies of a few boundary rows (Ocean) walks the rows, not the
// partition.  A bit per group of 64 pages says the group may hold armed
// pages (cleared when a scan finds none there).
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/error.hpp"
#include "common/futex.hpp"
#include "memory/backend.hpp"
#include "memory/madvise_populate.hpp"
#include "memory/uffd_sys.hpp"

namespace rdsm {

namespace {

constexpr size_t kPage = 4096;
constexpr uint8_t kProtMask = 3;
constexpr uint8_t kMapped = 4;  // a page table entry may exist
constexpr uint8_t kArmed = 8;   // scan mode: mapped and watched (its protection bit set again at each scan)
constexpr size_t kGroupPages = 64;  // pages per bit of the armed-group bitmap
// Armed runs closer than this are walked by one scan: a scan costs about
// 1 us a call and 3 ns a page table entry walked (Ocean's releases).
constexpr size_t kScanGapPages = 256;

enum class Op : uint8_t { nothing, zap, map_read, map_write, protect_write, unprotect_write };

Op op_for(uint8_t state, Prot to) {
  Prot cur = Prot(state & kProtMask);
  bool mapped = state & kMapped;
  switch (to) {
    case Prot::none: return mapped ? Op::zap : Op::nothing;
    case Prot::read: return !mapped ? Op::map_read : cur == Prot::read ? Op::nothing : Op::protect_write;
    case Prot::read_write: return !mapped ? Op::map_write : cur == Prot::read_write ? Op::nothing : Op::unprotect_write;
  }
  return Op::nothing;
}

class UffdBackend final : public ProtectionBackend {
 public:
  UffdBackend(uint8_t *app, uint8_t *sys, int file, uint64_t file_offset, size_t pages, bool scan,
              const ViewLayout &views)
      : app_(app), sys_(sys), file_(file), file_offset_(file_offset), pages_(pages), scan_(scan), views_(views) {
    std::string why;
    fd_ = uffd::open_fd(scan ? uffd::kScanFeatures : uffd::kFeatures, &why);
    if (fd_ < 0) fatal("the uffd memory backend cannot run here: %s; use --memory mprotect (RDSM_MEMORY=mprotect for a "
                            "program started without rdsm run)",
                            why.c_str());
    if (!uffd::register_range(fd_, app_, pages_ * kPage))
      fatal("cannot register the shared region with userfaultfd: %s", strerror(errno));
    // Zero pages are "none, unmapped", the state of a fresh mapping; the
    // table costs memory only where pages are used.
    void *t = mmap(nullptr, pages_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (t == MAP_FAILED) fatal("cannot allocate the page state table of %zu KiB", pages_ >> 10);
    state_ = static_cast<uint8_t *>(t);
    if (scan_) {
      pagemap_fd_ = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
      if (pagemap_fd_ < 0) fatal("cannot open /proc/self/pagemap for the scan of written pages: %s", strerror(errno));
      groups_.assign((pages_ + kGroupPages * 64 - 1) / (kGroupPages * 64), 0);
      group_words_.assign((groups_.size() + 63) / 64, 0);
    }
  }

  ~UffdBackend() override {
    // Peers may hold duplicates of fd_ (peer_protect_fd), which keep it
    // open: the view is let go of here, or it would stay registered with it.
    if (registered_) uffd::unregister_range(fd_, app_, pages_ * kPage);
    munmap(state_, pages_);
    if (pagemap_fd_ >= 0) close(pagemap_fd_);
    close(fd_);
  }

  void protect(size_t first, size_t count, Prot prot) override {
    if (count == 0) return;
    mu_.lock();
    if (first == 0 && count == pages_ && prot == Prot::read_write) {
      make_all_writable();
    } else {
      if (!registered_) reregister();
      change(first, count, scan_ && prot == Prot::read_write ? Prot::read : prot);
    }
    mu_.unlock();
  }

  bool writes_async() const override { return scan_; }

  void collect_written(std::vector<uint32_t> &out) override {
    if (!scan_ || !registered_) return;
    mu_.lock();
    Walk walk;  // the armed pages gathered for one scan
    for (size_t w = next_group_word(0); w < groups_.size(); w = next_group_word(w + 1)) {
      if (groups_[w] == 0) {
        group_words_[w / 64] &= ~(uint64_t(1) << (w % 64));
        continue;
      }
      for (uint64_t word = groups_[w]; word != 0; word &= word - 1) {
        size_t g = w * 64 + (size_t)__builtin_ctzll(word);
        size_t first = g * kGroupPages, end = std::min(first + kGroupPages, pages_);
        size_t a = first_armed(first, end);
        if (a == end) {  // nothing armed left here
          groups_[w] &= ~(uint64_t(1) << (g % 64));
          continue;
        }
        size_t b = end;
        while (!(state_[b - 1] & kArmed)) --b;
        walk_to(walk, a, b, out);
      }
    }
    scan(walk, out);
    mu_.unlock();
  }

  void rearm(const std::vector<uint32_t> &pages) override { set_watched(pages, true); }
  void unwatch(const std::vector<uint32_t> &pages) override { set_watched(pages, false); }

  int fault_signal() const override { return SIGBUS; }
  bool expects_faults() const override { return registered_.load(std::memory_order_relaxed); }

  bool repair(size_t page, bool write) override {
    mu_.lock();
    Prot cur = Prot(state_[page] & kProtMask);
    // Writable only while no peer bounds the page, and marked as being
    // mapped so, so that no peer bounds it until the mapping is done: a
    // peer's write protection then either comes after it, or is seen here
    // and kept (peer_bound in backend.hpp).
    bool marked = false;
    if (bounds_ && cur == Prot::read_write) {
      marked = peer_bound::mark_mapping(&bounds_[page]);
      if (!marked) cur = Prot::read;
    }
    bool allowed = registered_ && (cur == Prot::read_write || (cur == Prot::read && (!write || scan_)));
    if (allowed) {
      map(page, 1, cur == Prot::read);
      state_[page] |= kMapped;
    }
    if (marked) peer_bound::unmark(&bounds_[page]);
    mu_.unlock();
    return allowed;
  }

  int peer_protect_fd() const override { return scan_ ? -1 : fd_; }
  void bound_by(uint64_t *bounds) override { bounds_ = bounds; }

 private:
  uint8_t *addr(size_t page) const { return app_ + page * kPage; }

  // Armed runs gathered into one scan: [lo, hi), empty when lo == hi;
  // `mixed` if unwatched pages lie among them.
  struct Walk {
    size_t lo = 0, hi = 0;
    bool mixed = false;
  };
  // Adds the armed span [a, b) to the walk, or scans the walk and starts a
  // new one: spans closer than kScanGapPages share a scan.
  void walk_to(Walk &walk, size_t a, size_t b, std::vector<uint32_t> &out) {
    if (walk.lo != walk.hi && a <= walk.hi + kScanGapPages) {
      walk.mixed = walk.mixed || first_unwatched(walk.hi, b) < b;
      walk.hi = b;
      return;
    }
    scan(walk, out);
    walk = {a, b, first_unwatched(a, b) < b};
  }

  // Finds the written pages of the walk and watches them again.  Where no
  // unwatched page lies among them, the scan itself protects what it finds
  // (one call, one TLB flush: a call per run of found pages cost a sparse
  // writer more than the scan).  Otherwise it must not protect those, so it
  // only reads, the unwatched pages it finds are left out, and the others
  // are protected again a call per run (splitting the walk around the
  // unwatched pages instead cost Barnes, whose own pages sit among its
  // copies, a scan per piece).
  void scan(const Walk &walk, std::vector<uint32_t> &out) {
    if (walk.lo == walk.hi) return;
    const size_t from = out.size();
    if (!uffd::scan_written(pagemap_fd_, app_, addr(walk.lo), (walk.hi - walk.lo) * kPage, out, !walk.mixed))
      fatal("PAGEMAP_SCAN on the shared region failed: %s", strerror(errno));
    if (!walk.mixed) return;
    size_t kept = from;
    for (size_t i = from; i < out.size(); ++i)
      if (state_[out[i]] & kArmed) out[kept++] = out[i];
    out.resize(kept);
    for (size_t i = from; i < out.size();) {
      size_t n = 1;
      while (i + n < out.size() && out[i + n] == out[i] + n) ++n;
      write_protect(out[i], n, true);
      i += n;
    }
  }

  // Sets (rearm) or lifts (unwatch) the write protection of sorted pages,
  // a call per run.
  void set_watched(const std::vector<uint32_t> &pages, bool on) {
    if (!scan_ || !registered_ || pages.empty()) return;
    mu_.lock();
    for (size_t i = 0; i < pages.size();) {
      size_t n = 1;
      while (i + n < pages.size() && pages[i + n] == pages[i] + n) ++n;
      write_protect(pages[i], n, on);
      if (!on)
        for (size_t p = pages[i]; p < pages[i] + n; ++p) state_[p] &= uint8_t(~kArmed);
      i += n;
    }
    mu_.unlock();
  }

  // The first word of groups_ at or after w that may be non-zero, or
  // groups_.size().
  size_t next_group_word(size_t w) const {
    while (w < groups_.size()) {
      uint64_t bits = group_words_[w / 64] >> (w % 64);
      if (bits) return w + (size_t)__builtin_ctzll(bits);
      w = (w / 64 + 1) * 64;
    }
    return groups_.size();
  }

  // The first armed page of [first, end), or end; eight pages a load.
  size_t first_armed(size_t first, size_t end) const {
    constexpr uint64_t kArmedBytes = 0x0101010101010101ull * kArmed;
    size_t p = first;
    for (; p + 8 <= end; p += 8) {
      uint64_t w;
      memcpy(&w, state_ + p, sizeof w);
      if (w & kArmedBytes) break;
    }
    while (p < end && !(state_[p] & kArmed)) ++p;
    return p;
  }

  // The first page of [first, end) mapped but not armed (left unwatched),
  // or end; eight pages a load.
  size_t first_unwatched(size_t first, size_t end) const {
    static_assert(kMapped == 4 && kArmed == 8, "the bit positions below");
    constexpr uint64_t kOnes = 0x0101010101010101ull;
    size_t p = first;
    for (; p + 8 <= end; p += 8) {
      uint64_t w;
      memcpy(&w, state_ + p, sizeof w);
      if (((w >> 2) & ~(w >> 3) & kOnes) != 0) break;
    }
    while (p < end && (state_[p] & (kMapped | kArmed)) != kMapped) ++p;
    return p;
  }

  // Scan mode: pages [first, first + count) were just mapped or
  // write-protected.
  void arm(size_t first, size_t count) {
    for (size_t p = first; p < first + count; ++p) state_[p] |= kArmed;
    for (size_t g = first / kGroupPages; g <= (first + count - 1) / kGroupPages; ++g) {
      groups_[g / 64] |= uint64_t(1) << (g % 64);
      group_words_[g / 4096] |= uint64_t(1) << (g / 64 % 64);
    }
  }

  bool inaccessible(size_t first, size_t count) const override {
    for (size_t p = first; p < first + count; ++p)
      if (state_[p] & kMapped) return false;
    return true;
  }

  // Unregistered (make_all_writable: a job of one node), the view is a
  // plain mapping of the file.  Registered, a page with access is mapped
  // (change() sets kMapped with it); one whose entry was dropped behind its
  // state's back is repaired at its fault (repair), so the read is right
  // either way, and almost always costs no fault.
  bool mapped_readable(size_t page) const override {
    return !registered_.load(std::memory_order_relaxed) || Prot(state_[page] & kProtMask) != Prot::none;
  }

  void change(size_t first, size_t count, Prot prot) {
    const uint8_t after = prot == Prot::none ? 0 : uint8_t(uint8_t(prot) | kMapped);
    size_t end = first + count, run = first;
    if (prot == Prot::none) {
      // One zap from the first mapped page to the last: the unmapped pages
      // between them cost the kernel a look at empty page-table entries,
      // where a zap per mapped run costs a system call and a TLB flush
      // each (the runs ProtectionBatch joins across unmapped pages).
      size_t lo = first, hi = end;
      while (lo < hi && !(state_[lo] & kMapped)) ++lo;
      while (hi > lo && !(state_[hi - 1] & kMapped)) --hi;
      if (lo < hi) apply(Op::zap, lo, hi - lo);
      memset(state_ + first, after, count);
      return;
    }
    Op run_op = op_for(state_[first], prot);
    for (size_t p = first + 1; p <= end; ++p) {
      Op op = p < end ? op_for(state_[p], prot) : Op::nothing;
      if (p < end && op == run_op) continue;
      apply(run_op, run, p - run);
      run = p;
      run_op = op;
    }
    if (!scan_ || !after) {
      memset(state_ + first, after, count);
      return;
    }
    // A page that stays mapped stays armed or not, as it was; map() and
    // write_protect() above armed the ones they set the bit of.
    for (size_t p = first; p < end; ++p) state_[p] = uint8_t(after | (state_[p] & kArmed));
  }

  void apply(Op op, size_t first, size_t count) {
    switch (op) {
      case Op::nothing: return;
      case Op::zap:
        if (madvise(addr(first), count * kPage, MADV_DONTNEED) != 0)
          fatal_signal_safe("madvise(MADV_DONTNEED) on the shared region failed");
        return;
      case Op::map_read: map(first, count, true); return;
      case Op::map_write: map(first, count, false); return;
      case Op::protect_write: write_protect(first, count, true); return;
      case Op::unprotect_write: write_protect(first, count, false); return;
    }
  }

  // Maps pages of the file into the view.  A page the file has never held
  // (a hole) cannot be mapped by UFFDIO_CONTINUE.  At the first hole the
  // rest of the run is allocated in one call (fallocate fills holes only,
  // and a peer's write racing with it lands in the page either way: the
  // kernel zeroes a page it allocates before anyone sees it); should that
  // fail, an atomic add of zero through the system view allocates the one
  // page without changing a byte that a peer may be writing at the same
  // time.  (Page by page, a run of fresh pages cost two ioctls and a fault
  // of the system view each: a program's first touch of its home pages.)
  // A page found mapped already (EEXIST: a racing repair) gets the
  // asked-for write protection instead.
  void map(size_t first, size_t count, bool read_only) {
    if (scan_) {
      read_only = true;
      arm(first, count);
    }
    size_t done = 0, filled = ~size_t(0);
    bool run_allocated = false;
    while (done < count) {
      uffdio_continue c{};
      c.range = {reinterpret_cast<uintptr_t>(addr(first + done)), (count - done) * kPage};
      c.mode = UFFDIO_CONTINUE_MODE_DONTWAKE | (read_only ? UFFDIO_CONTINUE_MODE_WP : 0);
      if (ioctl(fd_, UFFDIO_CONTINUE, &c) == 0) return;
      int e = errno;
      if (c.mapped > 0) done += (size_t)c.mapped / kPage;
      if (e == EAGAIN) continue;  // partly done, or the address space was changing
      if (e == EEXIST) {
        write_protect(first + done, 1, read_only);
        ++done;
      } else if (e == EFAULT || e == ENOENT) {
        // The file's page behind it: a minipage view's page is one of the
        // area's, and a run stays within one view, so the rest of the run
        // follows it in the file.
        size_t page = views_.on() ? views_.phys_of(first + done) : first + done;
        if (!run_allocated) {
          run_allocated = true;
          if (fallocate(file_, 0, (off_t)(file_offset_ + page * kPage), (off_t)((count - done) * kPage)) == 0)
            continue;
        }
        if (filled == page) fatal_signal_safe("UFFDIO_CONTINUE keeps failing on a page of the shared region");
        filled = page;
        __atomic_fetch_add(reinterpret_cast<volatile uint64_t *>(sys_ + page * kPage), 0, __ATOMIC_RELAXED);
      } else {
        fatal_signal_safe("UFFDIO_CONTINUE on the shared region failed");
      }
    }
  }

  void write_protect(size_t first, size_t count, bool on) {
    if (scan_ && on) arm(first, count);
    if (!uffd::write_protect_range(fd_, addr(first), count * kPage, on))
      fatal_signal_safe("UFFDIO_WRITEPROTECT on the shared region failed");
    // Lifting the protection leaves a shared page's entry without write
    // permission (the kernel upgrades it only on a fault), so the write
    // that faulted would fault a second time on its retry.  Pages are
    // opened to be written: letting the kernel take that fault here, in
    // the same system call's worth of time, saves the exception (0.15 us
    // of a 2.1 us write fault, measured on shmem).  Only a speed-up: a
    // refusal leaves the second fault.
    if (!on) madvise(addr(first), count * kPage, MADV_POPULATE_WRITE);
  }

  // The whole region read-write (one node alone, or memory kept coherent
  // by the machine): nothing is left to detect, so the view becomes a plain
  // mapping that the kernel fills on demand, with no fault to handle and no
  // page allocated ahead.  Unregistering also drops all write protection.
  // The table is left as it is (for a large region, filling it would cost
  // more than the program's own memory) and brought up to date only if
  // protections come back.
  void make_all_writable() {
    if (registered_) {
      if (!uffd::unregister_range(fd_, app_, pages_ * kPage))
        fatal_signal_safe("cannot unregister the shared region from userfaultfd");
      registered_ = false;
    }
  }

  // Back to protections after make_all_writable: every page read-write and
  // possibly mapped.
  void reregister() {
    memset(state_, uint8_t(uint8_t(scan_ ? Prot::read : Prot::read_write) | kMapped), pages_);
    if (!uffd::register_range(fd_, app_, pages_ * kPage))
      fatal_signal_safe("cannot register the shared region with userfaultfd again");
    registered_ = true;
    if (scan_) write_protect(0, pages_, true);  // any page may be mapped: all of them read-only, all armed
  }

  uint8_t *app_, *sys_;
  int file_;              // the file both views map (and the minipage views, if any)
  uint64_t file_offset_;  // where the views start in it
  size_t pages_;
  int fd_ = -1;
  uint8_t *state_ = nullptr;
  uint64_t *bounds_ = nullptr;  // bounds peers set (bound_by), or none
  bool scan_;
  ViewLayout views_;
  int pagemap_fd_ = -1;
  // Scan mode: a bit per group of kGroupPages that may hold armed pages,
  // and a bit per word of those that may not be zero (a region of 64 GiB
  // has 4096 words: reading them all cost Ocean's releases more than their
  // scans).  Arming sets both; collect_written clears what it finds empty.
  std::vector<uint64_t> groups_, group_words_;
  std::atomic<bool> registered_{true};  // read unlocked by expects_faults()
  FutexLock mu_;
};

}  // namespace

std::unique_ptr<ProtectionBackend> make_uffd_backend(uint8_t *app, uint8_t *sys, int fd, uint64_t fd_offset,
                                                     size_t pages, bool scan, const ViewLayout &views) {
  return std::make_unique<UffdBackend>(app, sys, fd, fd_offset, pages, scan, views);
}

}  // namespace rdsm
