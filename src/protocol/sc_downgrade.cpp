// Read-shared pages downgraded at barriers (sc.hpp): an owner that has
// served reads of a page makes itself read-only for it at each barrier it
// arrives at, so that the nodes reading it after the barrier read it
// one-sidedly (sc_fast_read.cpp) instead of asking its manager to order the
// owner about; and it takes write access back with one compare-and-swap
// while nobody has read the page since.
//
// Why the two swaps are safe:
//   - Downgrade: the page becomes read-only here (the application cannot
//     write it any more) before the word says so, so a one-sided reader
//     that sees kOwnerReadOnly reads a copy nobody changes.  The swap
//     expects the word to say exactly "owner: this node, writable, nothing
//     in progress": a manager starting a request meanwhile changes it, and
//     then this node's access is lower than the manager believes, which
//     costs at most a request later, never a stale copy elsewhere.
//   - Upgrade: the swap expects exactly what the downgrade left: owner this
//     node, kOwnerReadOnly and kVoluntary, no request in progress, no
//     one-sided read in progress or done since (a reader's bit stays in the
//     word until a request collects it).  While the word says so, the
//     manager's reader set of the page is empty: it was emptied when this
//     node was last granted write access, and a reader since would have
//     come through a request (which drops kVoluntary) or one-sidedly
//     (whose bit stays).  So succeeding proves no other node holds a copy.
//     A request that starts right after the swap orders this node about the
//     page through its handler, under mu_, which the upgrade holds until
//     the page is writable: the order then finds it writable and takes it
//     away as usual.
#include "memory/protection_batch.hpp"
#include "protocol/sc.hpp"
#include "stats/stats.hpp"
#include "stats/trace.hpp"

namespace rdsm {

namespace {
// Downgrades in a row that nobody read after (the owner took write access
// back by the swap) before a page is no longer downgraded: a page read
// once, long ago, and written in every phase since would otherwise cost
// its owner a fault per phase for ever.  A page read again comes back.
constexpr uint8_t kWastedDowngrades = 2;
// served_reads_[p]: kListed while p is in shared_list_ (taken out lazily,
// at the next barrier), and the downgrades it may still waste.
constexpr uint8_t kListed = 0x80, kBudget = 0x7f;
}  // namespace

void Sc::note_served_read(uint32_t page) {
  if (!fast_reads_) return;
  if (!(served_reads_[page] & kListed)) shared_list_.push_back(page);
  served_reads_[page] = kListed | kWastedDowngrades;
}

void Sc::downgrade_shared_pages() {
  if (!fast_reads_) return;
  std::lock_guard<std::mutex> g(mu_);
  if (shared_list_.empty()) return;
  std::vector<uint32_t> down;
  // One protection change for the whole group (seed 004's page groups):
  // pages that neighbour each other go in one call.
  ProtectionBatch batch(*region_);
  std::erase_if(shared_list_, [&](uint32_t p) {
    if (served_reads_[p] & kBudget) return false;
    served_reads_[p] = 0;
    return true;
  });
  for (uint32_t p : shared_list_) {
    if (access(p) != sc::kWrite) continue;
    std::atomic_ref<uint8_t>(access_[p]).store(sc::kRead, std::memory_order_release);
    batch.set(p, Prot::read);
    down.push_back(p);
  }
  batch.apply();
  // The words after the protection: a one-sided reader may read the page
  // as soon as its word says read-only.  Handlers wait for mu_ meanwhile;
  // the swaps are one-sided and need nobody's handler.
  const uint64_t mine = (uint64_t)self_ + 1;
  for (uint32_t p : down)
    if (f_.cas(manager_of(p), owner_seg_.id, owner_offset(p), mine, mine | kOwnerReadOnly | kVoluntary) == mine)
      set_voluntary(p, true);
}

bool Sc::upgrade_one_sided(size_t page) {
  // Not lock(): the interrupted thread may hold the lock itself (a step of
  // its own), and would wait for ever; the service thread can wait.
  if (!mu_.try_lock()) return false;
  bool done = false;
  // Peers are held off the page (sc_peer_downgrade.cpp) from the swap that
  // says "writable" until it is writable here: one that write-protected it
  // in between would find its protection lifted after its read.
  if (voluntary(page) && access(page) == sc::kRead && hold_off_peers(page)) {
    const uint64_t t0 = trace::start();
    const uint64_t mine = (uint64_t)self_ + 1, left = mine | kOwnerReadOnly | kVoluntary;
    done = f_.cas(manager_of(page), owner_seg_.id, owner_offset(page), left, mine) == left;
    set_voluntary(page, false);  // either way: once failed, the manager decides
    // Nobody read it since the downgrade: one more wasted.  A swap that
    // failed found a reader (or a request): the downgrade was worth it.
    uint8_t &s = served_reads_[page];
    if (!done) s = kListed | kWastedDowngrades;
    else if (s & kBudget) --s;
    if (done) {
      set_access(page, sc::kWrite);
      add(stats().write_faults);
      trace::record(trace::Kind::write_fault, t0, trace::on() ? now_ns() : 0, (uint32_t)page);
    }
    let_peers_in(page);
  }
  mu_.unlock();
  return done;
}

}  // namespace rdsm
