#include "api/runtime_teardown.hpp"

#include <thread>
#include <unistd.h>

#include "api/runtime.hpp"
#include "common/message_signal.hpp"

namespace rdsm {

namespace {
std::unique_ptr<Runtime> g_kept;
// The threads doing background work, joined by settle_background_teardown.
// Held on the heap and never freed: a program that exits without ending its
// jobs (exit() from the master) must not end in std::terminate because a
// thread object was still joinable when static objects were destroyed.
// Only the master's program thread starts and joins them.
std::vector<std::thread> &background_threads() {
  static auto *threads = new std::vector<std::thread>;
  return *threads;
}

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
  background_threads().emplace_back([rt = std::move(g_kept)]() mutable {
    block_message_signal_here();
    destroy(std::move(rt));
  });
}

// Joined, not just waited for until their work is done: a thread that has
// finished its work is still exiting (running its thread-specific data's
// destructors, giving its stack back) for a while, and a fork meanwhile
// hands the child a C library, and a sanitizer runtime, caught in the
// middle of that.
void settle_background_teardown() {
  for (std::thread &t : background_threads()) t.join();
  background_threads().clear();
  if (g_kept) destroy(std::move(g_kept));
}

// Held, not destroyed (its mappings and files are the parent's too), and
// still reachable: a leak checker at the child's exit has nothing to say.
Runtime *g_abandoned = nullptr;

void abandon_kept_teardown() {
  if (g_kept) g_abandoned = g_kept.release();
}

void close_in_background(std::vector<int> fds) {
  if (fds.empty()) return;
  background_threads().emplace_back([fds = std::move(fds)] {
    block_message_signal_here();
    for (int fd : fds) close(fd);
  });
}

}  // namespace rdsm
