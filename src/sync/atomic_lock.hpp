// Locks by remote atomics (GeNIMA's network-interface locks): no handler
// runs anywhere.  Each lock is a FIFO ticket lock in its manager's memory:
// an acquirer takes a ticket with one remote fetch-and-add and waits until
// the lock serves it; the releaser stores what it keeps with the lock (the
// protocol's vector timestamp) and advances the counter.  A try takes the
// ticket being served by compare-and-swap, or gives up.
#pragma once
#include <vector>

#include "fabric/fabric.hpp"
#include "sync/locks.hpp"

namespace rdsm::sync {

class AtomicLocks final : public Locks {
 public:
  // Collective (registers the lock records).  `kept_bytes` is the fixed
  // size of what a releaser keeps with a lock.
  AtomicLocks(fabric::Fabric &f, int lock_count, size_t kept_bytes);
  int lock_count() const override { return count_; }
  Bytes acquire(int id, const Bytes &request, const std::function<void()> &while_waiting) override;
  // One remote compare-and-swap for the ticket being served.
  std::optional<Bytes> try_acquire(int id, const Bytes &request) override;
  void release(int id, const Bytes &kept) override;
  bool held(int id) override { return held_[id] != 0; }

 private:
  int manager_of(int id) const { return id % f_.nodes(); }
  uint64_t record(int id) const { return (uint64_t)(id / f_.nodes()) * record_bytes_; }
  // The lock is served to this node: reads what the last releaser kept.
  Bytes take(int id);

  fabric::Fabric &f_;
  int count_;
  size_t kept_bytes_, record_bytes_;
  fabric::Segment seg_;
  std::vector<uint8_t> held_;
};

}  // namespace rdsm::sync
