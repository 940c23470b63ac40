#include "sync/atomic_lock.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "common/clock.hpp"
#include "common/error.hpp"

namespace rdsm::sync {

namespace {
// Record: [u64 next ticket][u64 now serving][u64 kept length][kept bytes]
// then, from slots_ on, a u64 per node: slot t mod nodes names the waiter
// of ticket t as (t << 16) | (rank + 1).  At most `nodes` tickets are out
// at a time (a node waits for one lock at most once), so the slot is the
// ticket's alone while it is out; an older ticket's name stays in it and
// is told apart by its ticket.
constexpr uint64_t kNext = 0, kServing = 8, kKeptLen = 16, kKept = 24;
constexpr int kRankBits = 16;
// A waiter looks at the counter now and then even if nobody woke it (after
// 2 ms, then twice as long each time, up to 64 ms): the releaser learns
// whether the next ticket is out in the same batch as it moves the
// counter, and a fabric need not order a batch's operations (MPI does
// not), so it may read "nobody" just before the waiter takes that ticket
// and just after the waiter last looked.  A wake missed so costs at most
// about as long again as the wait.
constexpr uint64_t kFirstLookAgainNs = 2'000'000, kLastLookAgainNs = 64'000'000;

constexpr uint64_t kRankMask = (1u << kRankBits) - 1;
uint64_t waiter(uint64_t ticket, int rank) { return ticket << kRankBits | (uint64_t)(rank + 1); }
// The ticket a slot names, as a waiter() of `ticket` would (the top bits fall off alike).
bool names_ticket(uint64_t named, uint64_t ticket) {
  return (named & kRankMask) != 0 && named >> kRankBits == (ticket << kRankBits) >> kRankBits;
}
}  // namespace

AtomicLocks::AtomicLocks(fabric::Fabric &f, int lock_count, size_t kept_bytes)
    : f_(f), count_(lock_count), kept_bytes_(kept_bytes) {
  if (f.nodes() >= (1 << kRankBits) - 1)
    fatal("a job of %d nodes is too large for atomic locks (at most %d); use --axes lock=manager", f.nodes(),
          (1 << kRankBits) - 2);
  slots_ = (kKept + kept_bytes + 7) / 8 * 8;
  record_bytes_ = (slots_ + sizeof(uint64_t) * f.nodes() + 63) / 64 * 64;  // a cache line or more per lock
  size_t per_node = ((size_t)lock_count + f.nodes() - 1) / f.nodes();
  seg_ = f_.register_segment(per_node * record_bytes_);
  wake_seg_ = f_.register_segment(sizeof(uint64_t) * (size_t)lock_count);
  held_.assign(lock_count, 0);
}

Bytes AtomicLocks::acquire(int id, const Bytes &, const std::function<void()> &while_waiting) {
  if (held_[id]) already_held("rdsm_lock", id);
  int m = manager_of(id);
  uint64_t rec = record(id);
  // The ticket and a first look at the one being served in one round trip:
  // serving reaches this ticket only when the lock is this node's, and
  // stays there, whenever it is read.
  uint64_t ticket = 0, serving = 0;
  fabric::Fabric::BatchOp ops[] = {fabric::Fabric::BatchOp::add(seg_.id, rec + kNext, 1, &ticket),
                                   fabric::Fabric::BatchOp::add(seg_.id, rec + kServing, 0, &serving)};
  f_.batch(m, ops, 2);
  if (serving == ticket) return take(id);
  // Named in the ticket's slot (an add that turns whatever older name is
  // there into this one), then the counter read again: served meanwhile,
  // or the releaser that serves this ticket will find the name.
  std::atomic_ref<uint64_t> wake(reinterpret_cast<uint64_t *>(wake_seg_.base)[id]);
  uint64_t seen = wake.load(std::memory_order_acquire);
  const uint64_t slot = rec + slots_ + sizeof(uint64_t) * (ticket % (uint64_t)f_.nodes());
  const uint64_t old = f_.atomic_load(m, seg_.id, slot), mine = waiter(ticket, f_.rank());
  f_.fetch_add(m, seg_.id, slot, mine - old);
  for (uint64_t after = kFirstLookAgainNs; f_.atomic_load(m, seg_.id, rec + kServing) != ticket;) {
    const uint64_t look_again = now_ns() + after;
    backoff_until([&] { return wake.load(std::memory_order_acquire) != seen || now_ns() >= look_again; },
                  while_waiting);
    if (wake.load(std::memory_order_acquire) == seen) after = std::min(2 * after, kLastLookAgainNs);
    seen = wake.load(std::memory_order_acquire);
  }
  return take(id);
}

std::optional<Bytes> AtomicLocks::try_acquire(int id, const Bytes &) {
  if (held_[id]) already_held("rdsm_trylock", id);
  int m = manager_of(id);
  uint64_t rec = record(id);
  // Free means no ticket beyond the one being served: take exactly that
  // one, and only if nobody took it meanwhile.  Both counters only grow and
  // next >= serving, so a next still equal to the serving value read
  // before means serving has not moved either.
  uint64_t serving = f_.atomic_load(m, seg_.id, rec + kServing);
  if (f_.cas(m, seg_.id, rec + kNext, serving, serving + 1) != serving) return std::nullopt;
  return take(id);
}

Bytes AtomicLocks::take(int id) {
  int m = manager_of(id);
  uint64_t rec = record(id);
  held_[id] = 1;
  // The length and the bytes in one read: the last holder wrote both
  // before it let the lock go.
  Bytes kept(sizeof(uint64_t) + kept_bytes_);
  f_.get(m, seg_.id, rec + kKeptLen, kept.data(), kept.size());
  uint64_t len;
  memcpy(&len, kept.data(), sizeof len);
  if (len > kept_bytes_) fatal("internal error: lock %d keeps %llu bytes of %zu", id, (unsigned long long)len, kept_bytes_);
  kept.erase(kept.begin(), kept.begin() + sizeof len);
  kept.resize(len);
  return kept;
}

void AtomicLocks::release(int id, const Bytes &kept) {
  if (!held_[id])
    api_error("rdsm_unlock", "lock %d is not held by this node; unlock only a lock this node holds", id);
  if (kept.size() > kept_bytes_) fatal("internal error: %zu bytes kept with a lock of %zu", kept.size(), kept_bytes_);
  int m = manager_of(id);
  uint64_t rec = record(id);
  uint64_t len = kept.size();
  fabric::Fabric::Piece pieces[] = {{rec + kKeptLen, &len, sizeof len}, {rec + kKept, kept.data(), len}};
  f_.putv(m, seg_.id, pieces, len ? 2 : 1);  // adjacent: one write
  f_.flush(m);  // what is kept is visible before the next holder is served
  held_[id] = 0;
  // Served on, and whether anybody has taken the next ticket, in one round
  // trip (the counter moves first: a waiter that names itself later finds
  // it moved).
  uint64_t served = 0, taken = 0;
  fabric::Fabric::BatchOp ops[] = {fabric::Fabric::BatchOp::add(seg_.id, rec + kServing, 1, &served),
                                   fabric::Fabric::BatchOp::add(seg_.id, rec + kNext, 0, &taken)};
  f_.batch(m, ops, 2);
  const uint64_t next = served + 1;
  if (taken <= next) return;  // nobody holds the next ticket
  // Its waiter, if it has named itself, is woken in its own memory; if not
  // yet, it reads the counter after naming itself.
  const uint64_t named =
      f_.atomic_load(m, seg_.id, rec + slots_ + sizeof(uint64_t) * (next % (uint64_t)f_.nodes()));
  if (names_ticket(named, next))
    f_.fetch_add((int)(named & kRankMask) - 1, wake_seg_.id, sizeof(uint64_t) * (uint64_t)id, 1);
}

}  // namespace rdsm::sync
