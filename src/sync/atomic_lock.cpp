#include "sync/atomic_lock.hpp"

#include <cstring>

#include "common/error.hpp"

namespace rdsm::sync {

namespace {
// Record: [u64 next ticket][u64 now serving][u64 kept length][kept bytes]
constexpr uint64_t kNext = 0, kServing = 8, kKeptLen = 16, kKept = 24;
}  // namespace

AtomicLocks::AtomicLocks(fabric::Fabric &f, int lock_count, size_t kept_bytes)
    : f_(f), count_(lock_count), kept_bytes_(kept_bytes) {
  record_bytes_ = (kKept + kept_bytes + 63) / 64 * 64;  // a cache line or more per lock
  size_t per_node = ((size_t)lock_count + f.nodes() - 1) / f.nodes();
  seg_ = f_.register_segment(per_node * record_bytes_);
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
  if (serving != ticket)
    backoff_until([&] { return f_.atomic_load(m, seg_.id, rec + kServing) == ticket; }, while_waiting, idle_work_);
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
  f_.fetch_add(m, seg_.id, rec + kServing, 1);
}

}  // namespace rdsm::sync
