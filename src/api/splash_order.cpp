#include "api/splash_order.hpp"

#include <ctime>
#include <sched.h>

#include "api/fork_join.hpp"
#include "api/fork_join_ranks.hpp"
#include "api/node_threads.hpp"
#include "api/shared_allocator.hpp"
#include "common/clock.hpp"
#include "common/message_signal.hpp"

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
  if (!ordered(rt)) return false;
  uint8_t &done = rt.first_sync_done[(size_t)NodeThreads::local_id()];
  if (done) return false;
  done = 1;
  const uint64_t me = worker_of(rt);
  const uint64_t until = now_ns() + kTurnWaitNs;
  long nap_ns = 1000;
  for (unsigned i = 0; rt.allocator->first_sync_turn() < me && now_ns() < until; ++i) {
    // While waiting, this node still serves the others where waiting
    // threads deliver its messages.
    if (waiters_deliver(rt.opt.handler)) rt.fabric->poll();
    if (i < 64) {
      sched_yield();
    } else {
      timespec ts{0, nap_ns};
      nanosleep(&ts, nullptr);
      if (nap_ns < 100000) nap_ns += nap_ns / 2;
    }
  }
  return true;
}

void pass_turn(Runtime &rt) { rt.allocator->raise_first_sync_turn(worker_of(rt) + 1); }

void end_turn() {
  InsideRdsm inside;
  if (Runtime *rt = runtime_if_initialized(); rt && take_turn(*rt)) pass_turn(*rt);
}

}  // namespace rdsm::fj
