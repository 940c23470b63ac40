// The functions behind the SPLASH macros (include/rdsm_splash.h).
//
// Program structure is fork_join.cpp's.  Every synchronisation object is a
// job lock id found from the object's address (sync_registry.hpp) plus, for
// barriers, pause flags and condition variables, a few counters in the
// object itself, read and written only while holding that lock, so lazy
// release consistency makes them exact.  A process waiting for a counter to
// change re-takes the lock now and then: that is what shows it the other
// processes' writes.  A barrier of every process of the job is the
// protocol's own barrier.
#include "api/fork_join.hpp"
#include "api/runtime.hpp"
#include "api/splash_order.hpp"
#include "api/thread_sync.hpp"
#include "common/clock.hpp"
#include "common/error.hpp"
#include "common/message_signal.hpp"
#include "races/allocation_sites.hpp"
#include "rdsm_splash.h"
#include "stats/stats.hpp"
#include "sync/locks.hpp"

using namespace rdsm;

// In namespace rdsm, as all of the runtime's globals (program_image.hpp).
namespace rdsm {
namespace {

// The runtime for a synchronisation call: the master forks the workers its
// CREATE calls asked for before it first synchronises.  A worker's first
// call of the job waits for its turn and passes it on before it acts
// (splash_order.hpp); a LOCK, once it holds the lock (lock_in_turn).
Runtime &sync_runtime(const char *call) {
  fj::form_pending_job();
  Runtime &rt = runtime_for(call);
  fj::first_turn(rt);
  return rt;
}

void lock_in_turn(Runtime &rt, int id) {
  const bool first = fj::take_turn(rt);
  thread_lock(rt, id);
  if (first) fj::pass_turn(rt);
}

// WAIT_FOR_END and MAIN_END may form the job (the master's first call of
// it, then): the master's turn passes at once.
void form_for_end() {
  fj::form_pending_job();
  fj::end_turn();
}

int id_of(Runtime &rt, const void *object, const char *call) {
  if (!object) api_error(call, "NULL object");
  SharedRegion &r = rt.protocol->region();
  if (!r.contains(object))
    api_error(call,
              "the object at %p is not in shared memory; declare it in memory from G_MALLOC so that every "
              "process sees the same one",
              object);
  return rt.registry->id_for((uint64_t)(static_cast<const uint8_t *>(object) - r.app()), call);
}

// Holds the object's lock for `body`; returns what body returns.
template <class F>
auto with_lock(Runtime &rt, int id, F body) {
  thread_lock(rt, id);
  auto result = body();
  thread_unlock(rt, id);
  return result;
}

// Re-checks `ready` (which takes the object's lock) as a lock or barrier of
// the protocol waits for a remote word (sync::backoff_until: yields for the
// first tens of microseconds, then sleeps of at most 50 us with the timer
// slack cut), serving this node's messages meanwhile when nothing else does
// (the modes in which waiting threads deliver).  A SETPAUSE is so seen
// within tens of microseconds of its release, as a pthread condition
// variable would wake its waiter, where sleeps growing to half a
// millisecond at the default 50 us slack made every hand-off of a radix
// sort's prefix tree cost 40-130 us.
template <class F>
void wait_until(Runtime &rt, F ready) {
  const bool deliver = waiters_deliver(rt.opt.handler);
  sync::backoff_until([&] {
    if (deliver) rt.fabric->poll();
    return ready();
  }, nullptr);
}

double g_roi_begin = 0, g_roi_seconds = 0;

// G_MALLOC before MAIN_INITENV (sequential set-up that allocates shared
// data first) makes this process the master at once, with the default
// region; the MAIN_INITENV that follows then only checks its estimate.
bool g_started_by_malloc = false;
bool g_initenv_seen = false;

Runtime &allocation_runtime(const char *call) {
  if (!runtime_if_initialized() && !fj::in_fork_join_program()) {
    fj::init(0);
    g_started_by_malloc = true;
  }
  return runtime_for(call);
}

}  // namespace
}  // namespace rdsm

extern "C" {

void rdsm_splash_init(size_t shared_bytes) {
  InsideRdsm inside;
  if (g_started_by_malloc && !g_initenv_seen && rdsm_rank() == 0) {
    g_initenv_seen = true;
    size_t have = runtime_for("MAIN_INITENV").protocol->region().bytes();
    if (shared_bytes > have)
      api_error("MAIN_INITENV",
                "asks for %zu bytes of shared memory, but G_MALLOC before it set up a shared region of %zu bytes; "
                "set RDSM_REGION_SIZE (or --region-size) to at least %zu",
                shared_bytes, have, shared_bytes);
    return;
  }
  g_initenv_seen = true;
  fj::init(shared_bytes);
}
void rdsm_splash_end(void) {
  InsideRdsm inside;
  form_for_end();
  fj::end();
}
void rdsm_splash_create(void (*fn)(void)) {
  InsideRdsm inside;
  fj::create(fn, "CREATE");
}
void rdsm_splash_create_n(void (*fn)(void), long processes) {
  InsideRdsm inside;
  fj::create_and_run(fn, processes, "CREATE");
}
void rdsm_splash_wait_for_end(long workers) {
  InsideRdsm inside;
  if (workers < 0)
    api_error("WAIT_FOR_END", "%ld workers; the count cannot be negative: pass the number of workers CREATE'd",
              workers);
  form_for_end();
  fj::wait_for_end("WAIT_FOR_END");
}

void *rdsm_splash_malloc(size_t bytes) {
  InsideRdsm inside;
  Runtime &rt = allocation_runtime("G_MALLOC");
  // What the master allocates while its workers wait on other ranks is
  // homed at it, as a forked job homes the set-up's allocations: it writes
  // them first, with no claim to make.
  const rdsm_placement placement = fj::master_alone() ? RDSM_PLACE_LOCAL : RDSM_PLACE_DEFAULT;
  void *p = rt.allocator->allocate(bytes, placement, "G_MALLOC");
  fj::shared_data_grew(rt.allocator->used_bytes());
  return races::note_allocation(p, bytes, __builtin_return_address(0));
}

void rdsm_splash_lock_init(rdsm_splash_lock_t *l) {
  InsideRdsm inside;
  id_of(runtime_for("LOCKINIT"), l, "LOCKINIT");
}
void rdsm_splash_alock_init(rdsm_splash_lock_t *locks, long count) {
  InsideRdsm inside;
  Runtime &rt = runtime_for("ALOCKINIT");
  if (count < 0) api_error("ALOCKINIT", "%ld locks; the count cannot be negative", count);
  for (long i = 0; i < count; ++i) id_of(rt, &locks[i], "ALOCKINIT");
}
void rdsm_splash_lock(rdsm_splash_lock_t *l) {
  InsideRdsm inside;
  fj::form_pending_job();
  Runtime &rt = runtime_for("LOCK");
  lock_in_turn(rt, id_of(rt, l, "LOCK"));
}
void rdsm_splash_unlock(rdsm_splash_lock_t *l) {
  InsideRdsm inside;
  Runtime &rt = sync_runtime("UNLOCK");
  thread_unlock(rt, id_of(rt, l, "UNLOCK"));
}

void rdsm_splash_barrier_init(rdsm_splash_barrier_t *b) {
  InsideRdsm inside;
  Runtime &rt = runtime_for("BARINIT");
  id_of(rt, b, "BARINIT");
  b->arrived = 0;
  b->generation = 0;
}
void rdsm_splash_barrier(rdsm_splash_barrier_t *b, long processes) {
  InsideRdsm inside;
  Runtime &rt = sync_runtime("BARRIER");
  if (fj::master_alone()) return;
  const int workers = fj::job_workers();
  if (processes < 1 || processes > workers)
    api_error("BARRIER",
              "%ld processes asked for, but the job has %d (the master and its CREATE'd workers); pass the number "
              "of processes that reach the barrier, 1 to %d",
              processes, workers, workers);
  if (processes == workers) {
    thread_barrier(rt, false);
    return;
  }
  int id = id_of(rt, b, "BARRIER");
  uint64_t mine = 0;
  bool last = with_lock(rt, id, [&] {
    mine = b->generation;
    if (++b->arrived < processes) return false;
    b->arrived = 0;
    b->generation = mine + 1;
    return true;
  });
  if (!last) wait_until(rt, [&] { return with_lock(rt, id, [&] { return b->generation != mine; }); });
}

void rdsm_splash_pause_init(rdsm_splash_pause_t *p) {
  InsideRdsm inside;
  id_of(runtime_for("PAUSEINIT"), p, "PAUSEINIT");
  p->count = 0;
}
void rdsm_splash_pause_set(rdsm_splash_pause_t *p) {
  InsideRdsm inside;
  Runtime &rt = sync_runtime("SETPAUSE");
  with_lock(rt, id_of(rt, p, "SETPAUSE"), [&] { return ++p->count; });
}
void rdsm_splash_pause_wait(rdsm_splash_pause_t *p) {
  InsideRdsm inside;
  Runtime &rt = sync_runtime("WAITPAUSE");
  int id = id_of(rt, p, "WAITPAUSE");
  wait_until(rt, [&] {
    return with_lock(rt, id, [&] {
      if (p->count <= 0) return false;
      --p->count;
      return true;
    });
  });
}
void rdsm_splash_pause_clear(rdsm_splash_pause_t *p) {
  InsideRdsm inside;
  Runtime &rt = sync_runtime("CLEARPAUSE");
  with_lock(rt, id_of(rt, p, "CLEARPAUSE"), [&] { return p->count = 0; });
}

// A waiter notes the generation it arrived in; signal and broadcast hand
// out wake-ups to waiters counted so far and start a new generation, and a
// waiter leaves by taking a wake-up handed out after it arrived.
void rdsm_splash_condvar_init(rdsm_splash_condvar_t *cv) {
  InsideRdsm inside;
  id_of(runtime_for("CONDVARINIT"), cv, "CONDVARINIT");
  cv->waiters = 0;
  cv->wakeups = 0;
  cv->generation = 0;
}
void rdsm_splash_condvar_wait(rdsm_splash_condvar_t *cv, rdsm_splash_lock_t *l) {
  InsideRdsm inside;
  Runtime &rt = sync_runtime("CONDVARWAIT");
  int id = id_of(rt, cv, "CONDVARWAIT");
  int user = id_of(rt, l, "CONDVARWAIT");
  uint64_t arrived_in = with_lock(rt, id, [&] {
    ++cv->waiters;
    return cv->generation;
  });
  thread_unlock(rt, user);
  wait_until(rt, [&] {
    return with_lock(rt, id, [&] {
      if (cv->generation == arrived_in || cv->wakeups == 0) return false;
      --cv->wakeups;
      return true;
    });
  });
  thread_lock(rt, user);
}
void rdsm_splash_condvar_signal(rdsm_splash_condvar_t *cv) {
  InsideRdsm inside;
  Runtime &rt = sync_runtime("CONDVARSIGNAL");
  with_lock(rt, id_of(rt, cv, "CONDVARSIGNAL"), [&] {
    if (cv->waiters > 0) {
      --cv->waiters;
      ++cv->wakeups;
      ++cv->generation;
    }
    return 0;
  });
}
void rdsm_splash_condvar_broadcast(rdsm_splash_condvar_t *cv) {
  InsideRdsm inside;
  Runtime &rt = sync_runtime("CONDVARBCAST");
  with_lock(rt, id_of(rt, cv, "CONDVARBCAST"), [&] {
    if (cv->waiters > 0) {
      cv->wakeups += cv->waiters;
      cv->waiters = 0;
      ++cv->generation;
    }
    return 0;
  });
}

void rdsm_splash_getsub_init(rdsm_splash_getsub_t *gs) {
  InsideRdsm inside;
  id_of(runtime_for("GSINIT"), gs, "GSINIT");
  gs->next = 0;
  gs->exhausted = 0;
}
long rdsm_splash_getsub(rdsm_splash_getsub_t *gs, long max, long processes) {
  InsideRdsm inside;
  Runtime &rt = sync_runtime("GETSUB");
  return with_lock(rt, id_of(rt, gs, "GETSUB"), [&]() -> long {
    if (gs->next <= max) return gs->next++;
    if (++gs->exhausted >= processes) {
      gs->next = 0;
      gs->exhausted = 0;
    }
    return -1;
  });
}

void rdsm_splash_release_fence(void) {
  InsideRdsm inside;
  sync_runtime("RELEASE_FENCE").protocol->release();
}
void rdsm_splash_acquire_fence(void) {
  InsideRdsm inside;
  sync_runtime("ACQUIRE_FENCE").protocol->acquire();
}
void rdsm_splash_full_fence(void) {
  InsideRdsm inside;
  Runtime &rt = sync_runtime("FULL_FENCE");
  rt.protocol->release();
  rt.protocol->acquire();
}

unsigned long rdsm_splash_clock(void) { return (unsigned long)(now_ns() / 1000); }

void rdsm_splash_roi_begin(void) {
  InsideRdsm inside;
  runtime_for("SPLASH3_ROI_BEGIN");
  stats().reset();
  g_roi_begin = (double)now_ns() * 1e-9;
}
void rdsm_splash_roi_end(void) {
  InsideRdsm inside;
  runtime_for("SPLASH3_ROI_END");
  g_roi_seconds = (double)now_ns() * 1e-9 - g_roi_begin;
}
double rdsm_splash_roi_seconds(void) { return g_roi_seconds; }

}  // extern "C"
