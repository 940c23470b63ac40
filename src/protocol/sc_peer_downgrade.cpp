// Read misses on a page whose owner holds it writable, served one-sidedly
// where the nodes share a host (fetch=one-sided, uffd memory): the
// requestor write-protects the owner's copy itself, through the owner's
// userfaultfd duplicated into its own process (pidfd_getfd), reads it and
// maps its copy read-only, in its signal handler, waking no thread of the
// owner's.  A request would need the owner's handler to make its copy
// read-only: on this host two thread wake-ups (about 25 us each), against
// 2 us for the whole one-sided read.
//
// What keeps it sequentially consistent:
//   - The owner word (sc.hpp) is claimed by compare-and-swap from exactly
//     "owner writable, nothing in progress, no reader" to "owner read-only,
//     one-sided read in progress, this node a reader", as the one-sided
//     read of a read-only owner's page claims it: no request of the page
//     starts until the claim is let go, and the owner's own swaps (barrier
//     downgrade, upgrade) expect other words and fail.
//   - The owner's protection is bounded before it is lowered: its bound
//     word (one per page, in a segment every peer writes) goes from free to
//     read by compare-and-swap, then the page is write-protected in the
//     owner's address space.  The owner's repair of a lagging mapping
//     (memory/uffd_backend.cpp) maps a page writable only after marking
//     the bound "mapping" by compare-and-swap from free, and leaves it
//     read-only otherwise; so either its writable mapping is in place
//     before the peer's swap (and the write protection that follows
//     covers it) or the peer's bound is seen and respected.  A page being
//     mapped writable right now is not downgraded: the peer lets the claim
//     go and asks as usual.
//   - The copy is read once the write protection is in place: the kernel
//     has flushed the owner's TLB entries, so every write of the owner's
//     is in the page, and no later one can be until a request.
//   - The owner sees the bound as read access (Sc::access): its next write
//     faults, is not repaired, and goes to the manager as a write request,
//     which takes the reader this node named in the word into its set and
//     invalidates it.  Every change of the owner's access (set_access,
//     under a request or its own swap; placement) lifts the bound again,
//     once the new protection is in place: lifted before, a write fault in
//     between would be repaired to the old, writable access, and the write
//     be lost when the page is then given to a reader that holds a copy.
//   - A page made writable outside a request (the owner's swap back after
//     a barrier downgrade, sc_downgrade.cpp) is marked "mapping" from
//     before the swap until it is writable, as repair marks it.
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

#include "memory/uffd_sys.hpp"
#include "protocol/sc.hpp"

namespace rdsm {

namespace {
// At the start of each node's bounds segment: who it is, for peers to
// duplicate its userfaultfd.  Written once before any fault; zero until then.
struct PeerHeader {
  uint64_t pid;          // 0: not written yet
  uint64_t fd_plus_one;  // 0: peers cannot bound this node (mprotect memory, scan mode)
  uint64_t pid_ns;       // a pid means this process only in the same pid namespace
};
constexpr uint64_t kHeaderBytes = 64;
constexpr int kUnknown = -1, kUnavailable = -2;

uint64_t bound_offset(size_t page) { return kHeaderBytes + page * sizeof(uint64_t); }

uint64_t pid_namespace() {
  struct stat st {};
  return stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
}
}  // namespace

void Sc::setup_peer_downgrades() {
  if (!fast_reads_) return;  // the same on every node: the segment is registered by all or none
  bounds_seg_ = f_.register_segment(bound_offset(pages_));
  peer_fds_ = std::make_unique<std::atomic<int>[]>((size_t)nodes_);
  for (int n = 0; n < nodes_; ++n) peer_fds_[n].store(kUnknown, std::memory_order_relaxed);
  pid_ns_ = pid_namespace();
  const int fd = region_->peer_protect_fd();
  PeerHeader h{(uint64_t)getpid(), fd >= 0 && pid_ns_ ? (uint64_t)fd + 1 : 0, pid_ns_};
  if (h.fd_plus_one) {
    bounds_ = reinterpret_cast<uint64_t *>(bounds_seg_.base + kHeaderBytes);
    region_->bound_by(bounds_);
  }
  memcpy(bounds_seg_.base, &h, sizeof h);
}

bool Sc::can_downgrade(int owner) {
  if (!bounds_) return false;  // this node is not on uffd memory: its peers are not either
  std::atomic<int> &slot = peer_fds_[owner];
  int fd = slot.load(std::memory_order_acquire);
  if (fd != kUnknown) return fd >= 0;
  PeerHeader h{};
  f_.get(owner, bounds_seg_.id, 0, &h, sizeof h);
  if (h.pid == 0) return false;  // not set up yet: ask again later
  fabric::Segment peer;
  // Only a peer whose memory this process maps is on this host; a modelled
  // network (emu) would not charge the system call.
  const bool here = strcmp(f_.name(), "emu") != 0 && f_.peer_segment(owner, bounds_seg_.id, &peer);
  int mine = kUnavailable;
  if (here && h.fd_plus_one && h.pid_ns == pid_ns_) {
    mine = uffd::duplicate_peer_fd((int)h.pid, (int)(h.fd_plus_one - 1));
    if (mine < 0) mine = kUnavailable;
  }
  int expected = kUnknown;
  if (!slot.compare_exchange_strong(expected, mine, std::memory_order_acq_rel)) {
    if (mine >= 0) close(mine);
    mine = expected;
  }
  return mine >= 0;
}

bool Sc::downgrade_owner(int owner, size_t page) {
  const int fd = peer_fds_[owner].load(std::memory_order_acquire);
  const uint64_t off = bound_offset(page);
  if (f_.cas(owner, bounds_seg_.id, off, peer_bound::kFree, peer_bound::kRead) != peer_bound::kFree) return false;
  if (uffd::write_protect_range(fd, region_->app_page(page), kPageBytes, true)) return true;
  f_.cas(owner, bounds_seg_.id, off, peer_bound::kRead, peer_bound::kFree);
  return false;
}

void Sc::lift_bound(size_t page) {
  if (bounds_) peer_bound::lift(&bounds_[page]);
}

bool Sc::hold_off_peers(size_t page) { return !bounds_ || peer_bound::mark_mapping(&bounds_[page]); }

void Sc::let_peers_in(size_t page) {
  if (bounds_) peer_bound::unmark(&bounds_[page]);
}

// The duplicated descriptors keep the peers' userfaultfds open: closed with
// the protocol.
Sc::~Sc() {
  if (peer_fds_)
    for (int n = 0; n < nodes_; ++n)
      if (peer_fds_[n].load() >= 0) close(peer_fds_[n].load());
}

}  // namespace rdsm
