// How the application view's page protections are enforced.  The protocols
// see only SharedRegion::protect and the fault callbacks; which backend runs
// is chosen here, once per process, from RDSM_MEMORY (`rdsm run --memory`).
//   mprotect  PROT_NONE / PROT_READ / PROT_READ|PROT_WRITE per page, faults
//             as SIGSEGV.  Portable, but every run of pages with its own
//             protection is a VMA, so vm.max_map_count caps the region.
//   uffd      the view stays read-write; userfaultfd decides: a page with no
//             mapping is invalid (minor/missing fault), a write-protected
//             one is read-only (write-protect fault).  Faults arrive as
//             SIGBUS.  One VMA whatever the protections.
//   uffd, scan mode (writes_async): a write to a read-only page does not
//             fault; the kernel lifts the page's protection and records
//             that, and collect_written() finds those pages later (at a
//             release) and watches them again; unwatch() leaves pages
//             writable with their writes unrecorded, rearm() watches such
//             pages again.  Read-write then means the same as read.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/options.hpp"
#include "memory/minipage_views.hpp"

namespace rdsm {

enum class Prot : uint8_t { none = 0, read = 1, read_write = 2 };

enum class MemoryBackend : uint8_t { mprotect, uffd };

// A bound on a page's protection that peers on this host set themselves
// (sc's one-sided reads, sc_peer_downgrade.cpp), one word per page in
// memory they write, changed only by compare-and-swap:
//   kFree     no bound
//   kRead     a peer write-protected the page here: at most read
//   kMapping  this node is making the page writable right now: a peer may
//             not bound it until that is done
namespace peer_bound {
constexpr uint64_t kFree = 0, kRead = 1, kMapping = 2;
// This node, before making the page writable: false where a peer bounds it.
inline bool mark_mapping(uint64_t *word) {
  uint64_t expected = kFree;
  return __atomic_compare_exchange_n(word, &expected, kMapping, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}
// ... and once it is writable.
inline void unmark(uint64_t *word) { __atomic_store_n(word, kFree, __ATOMIC_SEQ_CST); }
// This node, its protection of the page changed: a peer's bound ends (a
// mark of its own stays).
inline void lift(uint64_t *word) {
  uint64_t expected = kRead;
  __atomic_compare_exchange_n(word, &expected, kFree, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}
inline bool bounded(const uint64_t *word) { return __atomic_load_n(word, __ATOMIC_SEQ_CST) == kRead; }
}  // namespace peer_bound

const char *memory_backend_name(MemoryBackend b);

// The backend this process uses for `opt`: the one asked for, or the
// default (backend_choice.cpp).  When the default is uffd but the kernel
// does not allow it, mprotect runs, with one line (from node 0) saying why
// and what it costs.  Asking for uffd where it cannot work ends the process
// with the cause.
MemoryBackend choose_memory_backend(const Options &opt);

class ProtectionBackend {
 public:
  virtual ~ProtectionBackend() = default;
  // May run in the fault signal handler: async-signal-safe.
  virtual void protect(size_t first, size_t count, Prot prot) = 0;
  // The signal a protection fault raises (SIGSEGV or SIGBUS).
  virtual int fault_signal() const = 0;
  // Whether every page of [first, first+count) is inaccessible already (not
  // mapped), so that a change to none may take the range along with its
  // neighbours in one call at no cost.  False where the backend keeps no
  // such record.
  virtual bool inaccessible(size_t, size_t) const { return false; }
  // Whether a read of the page through the application view is safe now
  // (no fault reaches the protocol) and costs no page-table fault where the
  // program touched the page, so that a reader of many pages (not holes,
  // which a read would fill) may read them there instead of mapping the
  // memory again.  False where the backend keeps no such record.
  virtual bool mapped_readable(size_t) const { return false; }
  // In the signal handler, before the protocol sees the fault: true if the
  // page's protection already allows the access and only its mapping lagged
  // behind (the backend maps it now and the access is retried).
  virtual bool repair(size_t, bool) { return false; }
  // Peers on this host that lower this node's protections themselves: the
  // descriptor they duplicate (pidfd_getfd) to write-protect pages of this
  // process's view with, -1 where that cannot work (mprotect; uffd in scan
  // mode, where a write-protected page is written without a fault).
  virtual int peer_protect_fd() const { return -1; }
  // `bounds`: a word per page (peer_bound above), which repair() respects;
  // set once, before any fault.  Only where peer_protect_fd() >= 0.
  virtual void bound_by(uint64_t *bounds) { (void)bounds; }
  // False when a fault of fault_signal() in the region cannot come from the
  // backend (nothing is registered): it is a real error, passed on.
  virtual bool expects_faults() const { return true; }
  // Scan mode (see above); not in the signal handler.
  virtual bool writes_async() const { return false; }
  // Appends, in increasing order, the watched pages written since they were
  // last made read-only (by mapping, rearm or the last collect_written), and
  // makes them read-only again: their next writes are found by the next
  // call.
  virtual void collect_written(std::vector<uint32_t> &) {}
  // The given pages (sorted, each mapped) stay writable and their writes are
  // not watched: no later collect_written finds them, and costs nothing for
  // them, until they are rearmed (or mapped anew).
  virtual void unwatch(const std::vector<uint32_t> &) {}
  // Makes read-only again, and watched, the given pages (sorted, each
  // mapped): their next writes are found by the next collect_written.
  virtual void rearm(const std::vector<uint32_t> &) {}
};

// The application view [app, app + pages pages) is already mapped (with no
// access for mprotect, read-write for uffd).  `sys` is the system view of
// the same file, always read-write; the file is `fd`, the views start at
// `fd_offset` in it.
std::unique_ptr<ProtectionBackend> make_mprotect_backend(uint8_t *app, size_t pages);
// `scan`: scan mode (the kernel must have it: uffd::scan_unavailable_reason).
// `views`: how the application view's pages map to the file's (pages past
// the data pages are minipage views, minipage_views.hpp); a range given to
// protect() lies within one mapping.
std::unique_ptr<ProtectionBackend> make_uffd_backend(uint8_t *app, uint8_t *sys, int fd, uint64_t fd_offset,
                                                     size_t pages, bool scan, const ViewLayout &views = {});

}  // namespace rdsm
