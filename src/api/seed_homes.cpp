#include "api/seed_homes.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unistd.h>

#include "common/error.hpp"

namespace rdsm {

namespace {
constexpr uint64_t kPage = 4096;

void append_page(std::vector<PageRun> &runs, uint64_t page) {
  if (!runs.empty() && runs.back().first + runs.back().count == page)
    ++runs.back().count;
  else
    runs.push_back({page, 1});
}

// Copies [off, off + len) of one node file into the same place of another
// (both memfds, so the kernel copies between them).
void copy_range(int from_fd, int to_fd, uint64_t off, uint64_t len) {
  loff_t in = (loff_t)off, out = (loff_t)off;
  while (len > 0) {
    ssize_t n = copy_file_range(from_fd, &in, to_fd, &out, len, 0);
    if (n > 0) {
      len -= (uint64_t)n;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    fatal("CREATE: cannot copy the master's data into a worker's memory file: %s (node memory files are memory: "
          "free some, or run the program on a smaller input)",
          n == 0 ? "the master's file ended early" : strerror(errno));
  }
}
}  // namespace

SeedPlan plan_seeded_homes(std::vector<PageRun> held, const std::vector<AllocationSpan> &spans,
                           bool block_unwritten) {
  SeedPlan plan;
  plan.held = std::move(held);
  const std::vector<PageRun> &h = plan.held;
  size_t r = 0;
  for (const AllocationSpan &s : spans) {
    while (r < h.size() && h[r].first + h[r].count <= s.first) ++r;
    const bool written = r < h.size() && h[r].first < s.first + s.count;
    if (s.placement != RDSM_PLACE_FIRST_TOUCH)
      plan.placed.push_back({s.first, s.count, s.placement});
    else if (written || block_unwritten)
      plan.placed.push_back({s.first, s.count, RDSM_PLACE_BLOCK});
  }
  // Held pages in no allocation of the master's (its small blocks): at the master.
  size_t k = 0;
  for (const PageRun &run : h) {
    uint64_t at = run.first;
    const uint64_t end = run.first + run.count;
    while (at < end) {
      while (k < spans.size() && spans[k].first + spans[k].count <= at) ++k;
      const uint64_t next = k < spans.size() ? std::max(spans[k].first, at) : end;
      if (next > at) {
        const uint64_t stop = std::min(next, end);
        plan.placed.push_back({at, stop - at, RDSM_PLACE_LOCAL});
        at = stop;
      } else {
        at = std::min(end, spans[k].first + spans[k].count);
      }
    }
  }
  std::sort(plan.placed.begin(), plan.placed.end(),
            [](const SeededRange &a, const SeededRange &b) { return a.first < b.first; });
  return plan;
}

std::vector<PageRun> seeded_share(const SeedPlan &plan, int nodes, int node) {
  std::vector<PageRun> share;
  size_t r = 0;
  for (const SeededRange &s : plan.placed) {
    const uint64_t end = s.first + s.count;
    while (r < plan.held.size() && plan.held[r].first + plan.held[r].count <= s.first) ++r;
    for (size_t q = r; q < plan.held.size() && plan.held[q].first < end; ++q) {
      const uint64_t from = std::max(s.first, plan.held[q].first);
      const uint64_t to = std::min(end, plan.held[q].first + plan.held[q].count);
      for (uint64_t p = from; p < to; ++p)
        if (placed_node(s.placement, s.first, p - s.first, s.count, nodes, 0) == node) append_page(share, p);
    }
  }
  return share;
}

void place_seeded(const SeedPlan &plan, Protocol &protocol) {
  for (const SeededRange &r : plan.placed) protocol.place(r.first, r.count, r.placement);
}

void take_seeded_share(const SeedPlan &plan, const Protocol &protocol, int nodes, int node, int from_fd, int to_fd) {
  // Every node file lays its segments out alike: a page is at the same offset in each.
  if (protocol.data_segment().fd_offset != plan.data_offset)
    fatal("internal error: a fork-join worker's data segment is not where the master's is");
  copy_seeded_pages(plan, nodes, node, from_fd, to_fd, SharePart::worker);
}

void copy_seeded_pages(const SeedPlan &plan, int nodes, int node, int from_fd, int to_fd, SharePart part) {
  const std::vector<PageRun> share = seeded_share(plan, nodes, node);
  uint64_t total = 0;
  for (const PageRun &run : share) total += run.count;
  // The master's part: the first 1/nodes of the share's pages, so that with
  // one worker each copies half, and with more the master copies about as
  // much as each of them.
  const uint64_t split = total / (uint64_t)nodes;
  const uint64_t from = part == SharePart::worker ? split : 0, to = part == SharePart::master ? split : total;
  uint64_t at = 0;  // pages of the share before this run
  for (const PageRun &run : share) {
    const uint64_t lo = std::max(at, from), hi = std::min(at + run.count, to);
    if (lo < hi) copy_range(from_fd, to_fd, plan.data_offset + (run.first + lo - at) * kPage, (hi - lo) * kPage);
    at += run.count;
  }
}

}  // namespace rdsm
