// Locks by remote atomics (GeNIMA's network-interface locks): no handler
// runs anywhere.  Each lock is a FIFO ticket lock in its manager's memory:
// an acquirer takes a ticket with one remote fetch-and-add and waits until
// the lock serves it; the releaser stores what it keeps with the lock (the
// protocol's vector timestamp) and advances the counter.  A try takes the
// ticket being served by compare-and-swap, or gives up.
//
// A waiter waits on a word of its own memory, not on the counter at the
// manager: it names itself in the lock's slot of its ticket, and the
// releaser that serves that ticket adds one to the waiter's word.  Polling
// the manager costs a round trip per poll, and where one-sided operations
// need the target's CPU (MPI over TCP) a wake-up of the manager's progress
// thread each time.  The waiter names itself and then reads the counter;
// the releaser moves the counter and reads whether the next ticket is out
// in one batch, and then reads the slot: so one of them sees the other,
// except where a fabric runs a batch's operations out of order (MPI), and
// for that case a waiter also looks at the counter now and then (after
// 2 ms, then ever more rarely).  The word only says "look again": the
// counter decides, so a stale add (a waiter that found itself served
// before the releaser's add came) costs one more look.  An uncontended
// release costs one round trip, as before.
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
  uint64_t slots_;  // where a record's waiter slots start: after what the releaser keeps
  fabric::Segment seg_;
  fabric::Segment wake_seg_;  // a word per lock at every node: its waiter is woken by an add
  std::vector<uint8_t> held_;
};

}  // namespace rdsm::sync
