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
// A byte per page keeps the protection last set and whether the page may be
// mapped, to pick the call; a range change is split into runs needing the
// same call, so it costs a few system calls, not one per page.  Everything
// here is async-signal-safe: the fault path calls protect() and repair()
// from the SIGBUS handler.
#include <cerrno>
#include <atomic>
#include <csignal>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

#include "common/error.hpp"
#include "common/futex.hpp"
#include "memory/backend.hpp"
#include "memory/uffd_sys.hpp"

namespace rdsm {

namespace {

constexpr size_t kPage = 4096;
constexpr uint8_t kProtMask = 3;
constexpr uint8_t kMapped = 4;  // a page table entry may exist

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
  UffdBackend(uint8_t *app, uint8_t *sys, size_t pages) : app_(app), sys_(sys), pages_(pages) {
    std::string why;
    fd_ = uffd::open_fd(uffd::kFeatures, &why);
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
  }

  ~UffdBackend() override {
    munmap(state_, pages_);
    close(fd_);
  }

  void protect(size_t first, size_t count, Prot prot) override {
    if (count == 0) return;
    mu_.lock();
    if (first == 0 && count == pages_ && prot == Prot::read_write) {
      make_all_writable();
    } else {
      if (!registered_) reregister();
      change(first, count, prot);
    }
    mu_.unlock();
  }

  int fault_signal() const override { return SIGBUS; }
  bool expects_faults() const override { return registered_.load(std::memory_order_relaxed); }

  bool repair(size_t page, bool write) override {
    mu_.lock();
    Prot cur = Prot(state_[page] & kProtMask);
    bool allowed = registered_ && (cur == Prot::read_write || (cur == Prot::read && !write));
    if (allowed) {
      map(page, 1, cur == Prot::read);
      state_[page] |= kMapped;
    }
    mu_.unlock();
    return allowed;
  }

 private:
  uint8_t *addr(size_t page) const { return app_ + page * kPage; }

  void change(size_t first, size_t count, Prot prot) {
    const uint8_t after = prot == Prot::none ? 0 : uint8_t(uint8_t(prot) | kMapped);
    size_t end = first + count, run = first;
    Op run_op = op_for(state_[first], prot);
    for (size_t p = first + 1; p <= end; ++p) {
      Op op = p < end ? op_for(state_[p], prot) : Op::nothing;
      if (p < end && op == run_op) continue;
      apply(run_op, run, p - run);
      run = p;
      run_op = op;
    }
    memset(state_ + first, after, count);
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
  // (a hole) cannot be mapped by UFFDIO_CONTINUE: an atomic add of zero
  // through the system view allocates it without changing a byte that a
  // peer may be writing at the same time.  A page found mapped already
  // (EEXIST: a racing repair) gets the asked-for write protection instead.
  void map(size_t first, size_t count, bool read_only) {
    size_t done = 0, filled = ~size_t(0);
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
        size_t page = first + done;
        if (filled == page) fatal_signal_safe("UFFDIO_CONTINUE keeps failing on a page of the shared region");
        filled = page;
        __atomic_fetch_add(reinterpret_cast<volatile uint64_t *>(sys_ + page * kPage), 0, __ATOMIC_RELAXED);
      } else {
        fatal_signal_safe("UFFDIO_CONTINUE on the shared region failed");
      }
    }
  }

  void write_protect(size_t first, size_t count, bool on) {
    uffdio_writeprotect w{};
    w.range = {reinterpret_cast<uintptr_t>(addr(first)), count * kPage};
    // No thread ever sleeps on this descriptor (faults are signals), so
    // nothing needs waking; the kernel refuses DONTWAKE with MODE_WP.
    w.mode = on ? UFFDIO_WRITEPROTECT_MODE_WP : UFFDIO_WRITEPROTECT_MODE_DONTWAKE;
    while (ioctl(fd_, UFFDIO_WRITEPROTECT, &w) != 0)
      if (errno != EAGAIN) fatal_signal_safe("UFFDIO_WRITEPROTECT on the shared region failed");
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
    memset(state_, uint8_t(uint8_t(Prot::read_write) | kMapped), pages_);
    if (!uffd::register_range(fd_, app_, pages_ * kPage))
      fatal_signal_safe("cannot register the shared region with userfaultfd again");
    registered_ = true;
  }

  uint8_t *app_, *sys_;
  size_t pages_;
  int fd_ = -1;
  uint8_t *state_ = nullptr;
  std::atomic<bool> registered_{true};  // read unlocked by expects_faults()
  FutexLock mu_;
};

}  // namespace

std::unique_ptr<ProtectionBackend> make_uffd_backend(uint8_t *app, uint8_t *sys, size_t pages) {
  return std::make_unique<UffdBackend>(app, sys, pages);
}

}  // namespace rdsm
