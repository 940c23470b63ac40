#include "api/splash_order.hpp"

#include "api/fork_join.hpp"
#include "api/fork_join_ranks.hpp"
#include "api/node_threads.hpp"
#include "api/shared_allocator.hpp"
#include "common/clock.hpp"
#include "common/message_signal.hpp"
#include "sync/locks.hpp"

namespace rdsm::fj {

namespace {
// Far longer than the wait for the workers before it that a program whose
// processes start with a LOCK, a BARRIER or a wait sees (microseconds; tens
// of milliseconds on a loaded machine, whose scheduler may hold a process
// back for that long), short enough to pass unnoticed once in a program
// with a worker that computes long before it first synchronises.
constexpr uint64_t kTurnWaitNs = 250'000'000;

bool ordered(const Runtime &rt) { return in_fork_join_program() && !ranks::active() && rt.fabric->nodes() > 1; }

uint64_t worker_of(const Runtime &rt) {
  return (uint64_t)rt.fabric->rank() * (uint64_t)rt.opt.threads + (uint64_t)NodeThreads::local_id();
}
}  // namespace

bool take_turn(Runtime &rt) {
  // Checked first, and set in any job: after a thread's first call this is
  // all a synchronisation call pays.
  uint8_t &done = rt.first_sync_done[(size_t)NodeThreads::local_id()];
  if (done) return false;
  done = 1;
  if (!ordered(rt)) return false;
  const uint64_t me = worker_of(rt);
  const uint64_t until = now_ns() + kTurnWaitNs;
  // While waiting, this node still serves the others where waiting
  // threads deliver its messages.
  sync::backoff_until([&] { return rt.allocator->first_sync_turn() >= me || now_ns() >= until; },
                      [&] {
                        if (waiters_deliver(rt.opt.handler)) rt.fabric->poll();
                      });
  return true;
}

void pass_turn(Runtime &rt) { rt.allocator->raise_first_sync_turn(worker_of(rt) + 1); }

void first_turn(Runtime &rt) {
  if (take_turn(rt)) pass_turn(rt);
}

void end_turn() {
  InsideRdsm inside;
  if (Runtime *rt = runtime_if_initialized()) first_turn(*rt);
}

}  // namespace rdsm::fj
