// The C API: argument checks that name the call, then the runtime.
#include <cstdint>
#include <cstring>
#include <vector>

#include "api/runtime.hpp"
#include "api/thread_sync.hpp"
#include "common/clock.hpp"
#include "common/error.hpp"
#include "common/message_signal.hpp"
#include "races/allocation_sites.hpp"
#include "stats/stats.hpp"
#include "stats/trace.hpp"

using namespace rdsm;

// In namespace rdsm, as all of the runtime's globals (program_image.hpp).
namespace rdsm {
namespace {
void check_lock(const char *call, Runtime &rt, int id) {
  int n = rt.protocol->lock_count();
  if (id < 0 || id >= n)
    api_error(call, "lock id %d is out of range 0..%d (the job has %d locks; set more with --locks)", id, n - 1,
              n);
}

// Collective calls are made once per node: by its thread 0 outside
// rdsm_run_threads.
void check_node_level(const char *call, Runtime &rt) {
  if (rt.threads && (rt.threads->in_region() || NodeThreads::local_id() != 0))
    api_error(call, "called inside rdsm_run_threads; it is collective over the nodes: call it before or after "
              "rdsm_run_threads, from the node's thread 0");
}

// The locks this node holds through rdsm_lock or rdsm_trylock, so that unlocking one it does
// not hold is reported in the caller's terms (one compute thread per node;
// with more, NodeThreads keeps each lock's holder).
std::vector<uint8_t> &held_locks(Runtime &rt) {
  static std::vector<uint8_t> held((size_t)rt.protocol->lock_count());
  return held;
}
}  // namespace
}  // namespace rdsm

extern "C" {

void rdsm_init(int *argc, char ***argv) {
  InsideRdsm inside;
  runtime_start(argc, argv);
}
void rdsm_finalize(void) {
  InsideRdsm inside;
  if (Runtime *rt = runtime_if_initialized()) check_node_level("rdsm_finalize", *rt);
  runtime_finish();
}
int rdsm_initialized(void) { return runtime_if_initialized() != nullptr; }

int rdsm_rank(void) { return runtime_for("rdsm_rank").fabric->rank(); }
int rdsm_nodes(void) { return runtime_for("rdsm_nodes").fabric->nodes(); }
int rdsm_node_threads(void) { return runtime_for("rdsm_node_threads").opt.threads; }
int rdsm_threads(void) {
  Runtime &rt = runtime_for("rdsm_threads");
  return rt.fabric->nodes() * rt.opt.threads;
}
int rdsm_thread_id(void) {
  Runtime &rt = runtime_for("rdsm_thread_id");
  return rt.fabric->rank() * rt.opt.threads + NodeThreads::local_id();
}
void rdsm_run_threads(void (*fn)(void *arg), void *arg) {
  InsideRdsm inside;
  Runtime &rt = runtime_for("rdsm_run_threads");
  if (rt.threads) {
    rt.threads->run(fn, arg, "rdsm_run_threads");
    return;
  }
  if (!fn) api_error("rdsm_run_threads", "NULL function; pass the function every thread of the node runs");
  OutsideRdsm program;
  fn(arg);
}

// Each allocation is noted with the program's call that made it, for the
// race report (--races).
void *rdsm_malloc(size_t size) {
  InsideRdsm inside;
  Runtime &rt = runtime_for("rdsm_malloc");
  return races::note_allocation(rt.allocator->allocate(size, RDSM_PLACE_DEFAULT, "rdsm_malloc"), size,
                                __builtin_return_address(0));
}
void *rdsm_malloc_placed(size_t size, rdsm_placement placement) {
  InsideRdsm inside;
  Runtime &rt = runtime_for("rdsm_malloc_placed");
  return races::note_allocation(rt.allocator->allocate(size, placement, "rdsm_malloc_placed"), size,
                                __builtin_return_address(0));
}
void *rdsm_malloc_minipage(size_t size) {
  Runtime &rt = runtime_for("rdsm_malloc_minipage");
  return races::note_allocation(rt.allocator->allocate(size, RDSM_PLACE_DEFAULT, "rdsm_malloc_minipage", true), size,
                                __builtin_return_address(0));
}
void *rdsm_malloc_all(size_t size, rdsm_placement placement) {
  InsideRdsm inside;
  Runtime &rt = runtime_for("rdsm_malloc_all");
  check_node_level("rdsm_malloc_all", rt);
  return races::note_allocation(rt.allocator->allocate_collective(size, placement), size,
                                __builtin_return_address(0));
}
int rdsm_is_shared(const void *p) {
  Runtime *rt = runtime_if_initialized();
  return rt && rt->protocol->region().contains(p);
}

void rdsm_publish_root(int slot, void *p) {
  InsideRdsm inside;
  runtime_for("rdsm_publish_root").allocator->publish_root(slot, p);
}
void *rdsm_root(int slot) {
  InsideRdsm inside;
  return runtime_for("rdsm_root").allocator->root(slot);
}

int rdsm_lock_count(void) { return runtime_for("rdsm_lock_count").protocol->lock_count(); }
void rdsm_lock(int lock_id) {
  InsideRdsm inside;
  Runtime &rt = runtime_for("rdsm_lock");
  check_lock("rdsm_lock", rt, lock_id);
  if (rt.threads) {
    thread_lock(rt, lock_id);
    return;
  }
  rt.protocol->lock(lock_id);
  held_locks(rt)[(size_t)lock_id] = 1;
}
int rdsm_trylock(int lock_id) {
  InsideRdsm inside;
  Runtime &rt = runtime_for("rdsm_trylock");
  check_lock("rdsm_trylock", rt, lock_id);
  if (rt.threads) return thread_try_lock(rt, lock_id);
  if (!rt.protocol->try_lock(lock_id)) return 0;
  held_locks(rt)[(size_t)lock_id] = 1;
  return 1;
}
void rdsm_unlock(int lock_id) {
  InsideRdsm inside;
  Runtime &rt = runtime_for("rdsm_unlock");
  check_lock("rdsm_unlock", rt, lock_id);
  if (rt.threads) {
    thread_unlock(rt, lock_id);
    return;
  }
  std::vector<uint8_t> &held = held_locks(rt);
  if ((size_t)lock_id >= held.size() || !held[(size_t)lock_id])
    api_error("rdsm_unlock",
              "lock %d is not held by this node; unlock only a lock this node took with rdsm_lock(%d)", lock_id,
              lock_id);
  held[(size_t)lock_id] = 0;
  rt.protocol->unlock(lock_id);
}
void rdsm_barrier(void) {
  InsideRdsm inside;
  thread_barrier(runtime_for("rdsm_barrier"), true);
}
void rdsm_release(void) {
  InsideRdsm inside;
  runtime_for("rdsm_release").protocol->release();
}
void rdsm_acquire(void) {
  InsideRdsm inside;
  runtime_for("rdsm_acquire").protocol->acquire();
}

const char *rdsm_protocol_name(void) { return runtime_for("rdsm_protocol_name").protocol->config().name.c_str(); }
size_t rdsm_page_size(void) { return kPageBytes; }
double rdsm_wtime(void) { return (double)now_ns() * 1e-9; }

void rdsm_get_stats(rdsm_stats *out) {
  InsideRdsm inside;
  runtime_for("rdsm_get_stats");
  if (!out) api_error("rdsm_get_stats", "NULL output pointer; pass the address of an rdsm_stats to fill in");
  *out = stats().snapshot();
  uint64_t t = now_ns();
  trace::record(trace::Kind::stats_read, t, t);  // rdsm sim ends the timed part here
}
void rdsm_reset_stats(void) {
  InsideRdsm inside;
  runtime_for("rdsm_reset_stats");
  stats().reset();
}

}  // extern "C"
