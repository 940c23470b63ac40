#include "api/thread_sync.hpp"

namespace rdsm {

void thread_lock(Runtime &rt, int id) {
  if (!rt.threads) {
    rt.protocol->lock(id);
    return;
  }
  rt.threads->lock(id, [&] { rt.protocol->lock(id); });
}

bool thread_try_lock(Runtime &rt, int id) {
  if (!rt.threads) return rt.protocol->try_lock(id);
  return rt.threads->try_lock(id, [&] { return rt.protocol->try_lock(id); });
}

void thread_unlock(Runtime &rt, int id) {
  if (!rt.threads) {
    rt.protocol->unlock(id);
    return;
  }
  rt.threads->unlock(id, [&] { rt.protocol->unlock(id); });
}

void thread_barrier(Runtime &rt, bool counted) {
  auto node_barrier = [&] {
    if (counted) rt.allocator->count_barrier();
    rt.protocol->barrier();
  };
  if (!rt.threads) {
    node_barrier();
    return;
  }
  rt.threads->barrier(node_barrier);
}

}  // namespace rdsm
