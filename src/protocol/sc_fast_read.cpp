// One-sided read misses (sc.hpp): with fetch=one-sided, a read miss on a
// page whose owner is read-only is served by the faulting thread, in the
// signal handler, with the fabric's one-sided operations only.  It costs
// two atomics and a read at the manager and the owner, where a request
// costs the hand-off to the fault service thread and a message, each
// waking a thread.  Whatever the word does not allow goes the usual way.
#include "protocol/sc.hpp"
#include "stats/stats.hpp"
#include "stats/trace.hpp"

namespace rdsm {

namespace {
// Compare-and-swap attempts on a word other readers change too.
constexpr int kClaimAttempts = 4;
}  // namespace

bool Sc::read_one_sided(size_t page) {
  const int manager = manager_of(page);
  const uint64_t off = owner_offset(page);
  const uint64_t t0 = trace::start();
  // The extent first: it is set once, when the minipage is allocated.
  sc::Extent e{0, (uint16_t)kPageBytes};
  if (views().is_minipage(page)) {
    uint32_t word = 0;
    f_.get(manager, extent_seg_.id, extent_index(page) * sizeof word, &word, sizeof word);
    e = sc::extent_of_word(word);
    if (e.bytes == 0) return false;  // not allocated: the manager says what happens
  }
  uint64_t w = f_.atomic_load(manager, owner_seg_.id, off);
  int owner = -1;
  bool downgrade = false;  // the owner holds it writable: this node write-protects it (sc_peer_downgrade.cpp)
  uint64_t added = 0;
  for (int attempt = 0;; ++attempt) {
    owner = owner_in(w);
    const bool idle = owner >= 0 && owner != self_ && !(w & (kInRequest | kReadingOneSided));
    downgrade = idle && !(w & (kOwnerReadOnly | kVoluntary)) && (w >> kOneSidedReaders) == 0 && can_downgrade(owner);
    if (!(idle && (w & kOwnerReadOnly)) && !downgrade) return false;
    if (attempt == kClaimAttempts) return false;
    added = kReadingOneSided | one_sided_reader(self_) | (downgrade ? kOwnerReadOnly : 0);
    const uint64_t seen = f_.cas(manager, owner_seg_.id, off, w, w | added);
    if (seen == w) break;
    w = seen;
  }
  if (downgrade && !downgrade_owner(owner, page)) {
    // The word as it was: while it says a one-sided read is in progress
    // nobody else changes it (the claim's rules above).
    f_.fetch_add(manager, owner_seg_.id, off, (uint64_t)0 - added);
    return false;
  }
  // The word is ours: the owner stays read-only and no request starts
  // until it is let go, so the copy read is the page's current contents,
  // and this node is a reader the next write request invalidates.
  f_.get(owner, data_seg_.id, data_offset(page, e), sys_bytes(page, e), e.bytes);
  // Accessible here before the word is let go: an order about the page
  // can only follow a request, which starts after that.
  set_access(page, sc::kRead);
  f_.fetch_add(manager, owner_seg_.id, off, (uint64_t)0 - kReadingOneSided);
  add(stats().read_faults);
  add(stats().pages_fetched);
  trace::record(trace::Kind::read_fault, t0, trace::on() ? now_ns() : 0, (uint32_t)page);
  return true;
}

}  // namespace rdsm
