#include "sync/atomic_lock.hpp"

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
  if (held_[id])
    api_error("rdsm_lock", "lock %d is already held by this node; locks are not recursive: unlock it first", id);
  int m = manager_of(id);
  uint64_t rec = record(id);
  uint64_t ticket = f_.fetch_add(m, seg_.id, rec + kNext, 1);
  if (f_.atomic_load(m, seg_.id, rec + kServing) != ticket)
    backoff_until([&] { return f_.atomic_load(m, seg_.id, rec + kServing) == ticket; }, while_waiting);
  held_[id] = 1;
  uint64_t len = f_.atomic_load(m, seg_.id, rec + kKeptLen);
  Bytes kept(len);
  if (len) f_.get(m, seg_.id, rec + kKept, kept.data(), len);
  return kept;
}

void AtomicLocks::release(int id, const Bytes &kept) {
  if (!held_[id])
    api_error("rdsm_unlock", "lock %d is not held by this node; unlock only a lock this node holds", id);
  if (kept.size() > kept_bytes_) fatal("internal error: %zu bytes kept with a lock of %zu", kept.size(), kept_bytes_);
  int m = manager_of(id);
  uint64_t rec = record(id);
  uint64_t len = kept.size();
  if (len) f_.put(m, seg_.id, rec + kKept, kept.data(), len);
  f_.put(m, seg_.id, rec + kKeptLen, &len, sizeof len);
  f_.flush(m);  // what is kept is visible before the next holder is served
  held_[id] = 0;
  f_.fetch_add(m, seg_.id, rec + kServing, 1);
}

}  // namespace rdsm::sync
