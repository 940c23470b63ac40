#include "api/runtime_teardown.hpp"

#include <cerrno>
#include <chrono>
#include <poll.h>
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

namespace {
// The workers' exits normally take a few milliseconds; one that takes
// longer does not keep the runtime's memory here for good.
constexpr int kExitWaitMs = 1000;

void wait_for_exits(const std::vector<int> &exits) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kExitWaitMs);
  for (int fd : exits) {
    for (;;) {
      using std::chrono::milliseconds;
      const auto left = std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now()).count();
      if (left <= 0) return;
      pollfd ended{fd, POLLIN, 0};
      const int n = poll(&ended, 1, (int)left);
      if (n > 0 || (n < 0 && errno != EINTR)) break;
    }
  }
}
}  // namespace

void tear_down_kept_in_background(std::vector<int> exits, std::vector<int> files) {
  if (!g_kept && exits.empty() && files.empty()) return;
  auto work = [rt = std::move(g_kept), exits = std::move(exits), files = std::move(files)]() mutable {
    block_message_signal_here();
    wait_for_exits(exits);
    if (rt) destroy(std::move(rt));
    for (int fd : exits) close(fd);
    for (int fd : files) close(fd);
  };
  background_threads().emplace_back(std::move(work));
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

}  // namespace rdsm
