// The lock axis: how a node gets exclusive hold of a lock id, and what
// travels with it from the releaser to the next acquirer.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace rdsm::sync {

using Bytes = std::vector<uint8_t>;

// Work a node may do while it waits for a lock or a barrier instead of
// sleeping: returns true if it did some (the wait polls again at once),
// false once there is none.  Each call should take tens of microseconds at
// most: it delays the node's departure by that much.
using IdleWork = std::function<bool()>;

// What waits for other nodes.  The atomic lock and barrier run the idle
// work once a wait outlasts its first polls (backoff_until); the message
// ones block in the fabric and never do.
class Waiter {
 public:
  void set_idle_work(IdleWork work) { idle_work_ = std::move(work); }

 protected:
  IdleWork idle_work_;
};

class Locks : public Waiter {
 public:
  virtual ~Locks() = default;
  virtual int lock_count() const = 0;
  // Blocks until this node holds the lock and returns what came with it:
  // manager locks return the grant the releaser built for `request`; atomic
  // locks return what the last releaser kept with the lock (empty if none).
  // `while_waiting` runs now and then while the lock is busy.
  virtual Bytes acquire(int id, const Bytes &request, const std::function<void()> &while_waiting) = 0;
  // The same acquire, tried once: takes the lock and returns what acquire
  // would if no node holds it or is waiting for it, and nothing otherwise,
  // without waiting for the lock (only for the answer to one question).
  virtual std::optional<Bytes> try_acquire(int id, const Bytes &request) = 0;
  // `kept` is stored with the lock for the next acquirer (atomic locks).
  virtual void release(int id, const Bytes &kept) = 0;
  virtual bool held(int id) = 0;
};

class Barrier : public Waiter {
 public:
  virtual ~Barrier() = default;
  // Blocks until every node arrived; returns the departure payload.
  virtual Bytes wait(const Bytes &arrival, const std::function<void()> &while_waiting) = 0;
};

// Ends the job: `call` asked for lock `id`, which this node holds already.
[[noreturn]] void already_held(const char *call, int id);

// Polls `ready` with a growing pause (yield, then short sleeps): remote
// atomics give no wake-up, and spinning hard would starve the very node
// being waited for when nodes outnumber cores.  Where it would sleep it
// runs `idle_work` instead, as long as that finds something to do.
void backoff_until(const std::function<bool()> &ready, const std::function<void()> &while_waiting,
                   const IdleWork &idle_work = nullptr);

}  // namespace rdsm::sync
