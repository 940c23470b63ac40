#include "api/runtime_teardown.hpp"

#include <atomic>
#include <thread>
#include <time.h>
#include <unistd.h>

#include "api/runtime.hpp"
#include "common/message_signal.hpp"

namespace rdsm {

namespace {
std::unique_ptr<Runtime> g_kept;
// A detached thread with a flag, not a joinable std::thread: a program that
// exits without ending its jobs (exit() from the master) must not end in
// std::terminate because a thread object was still joinable.
std::atomic<bool> g_busy{false};

void destroy(std::unique_ptr<Runtime> rt) {
  rt->protocol.reset();
  rt->fabric.reset();
}
}  // namespace

void keep_for_teardown(std::unique_ptr<Runtime> rt) {
  settle_background_teardown();
  // The allocator, the registry and the node's threads are quick to go,
  // and may refer to the protocol: they go first, here.
  rt->allocator.reset();
  rt->registry.reset();
  rt->threads.reset();
  rt->protocol->region().move_view_aside();
  g_kept = std::move(rt);
}

void tear_down_kept_in_background() {
  if (!g_kept) return;
  g_busy.store(true, std::memory_order_release);
  std::thread([rt = std::move(g_kept)]() mutable {
    block_message_signal_here();
    destroy(std::move(rt));
    g_busy.store(false, std::memory_order_release);
  }).detach();
}

void settle_background_teardown() {
  while (g_busy.load(std::memory_order_acquire)) {
    struct timespec nap = {0, 50000};
    nanosleep(&nap, nullptr);
  }
  if (g_kept) destroy(std::move(g_kept));
}

void close_in_background(std::vector<int> fds) {
  if (fds.empty()) return;
  std::thread([fds = std::move(fds)] {
    block_message_signal_here();
    for (int fd : fds) close(fd);
  }).detach();
}

}  // namespace rdsm
