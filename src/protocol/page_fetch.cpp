// Page fetch axis: bring a copy of a page from its home into this node's
// system view, at least as new as this node's notices require.
//   message:   request to the home; its handler replies with the page once
//              it has applied every diff the request names (async, draw);
//   one_sided: read the home's version vector, then the page, and retry
//              until the versions cover what is required; no code of the
//              home runs (ARDMAR, GeNIMA's remote fetch).  The home makes
//              diffs visible before the version that announces them, so a
//              page read after a sufficient version holds those diffs.
#include <atomic>
#include <cstring>
#include <sched.h>
#include <vector>

#include "common/error.hpp"
#include "protocol/hlrc.hpp"
#include "protocol/msg_types.hpp"
#include "stats/stats.hpp"

namespace rdsm {

namespace {
struct FetchHeader {
  uint32_t page;
};
}  // namespace

void Hlrc::fetch(size_t page, int home) {
  uint8_t *dst = region_->sys_page(page);
  const uint32_t *need = required(page);
  // No allocation here: this may run in the signal handler (hlrc.hpp).
  if (cfg_.fetch == FetchAxis::one_sided) {
    if (!copied_[page]) {
      // Counted before the page is read: the home then notices its writes.
      f_.fetch_add(home, copies_seg_.id, page * sizeof(uint64_t), 1);
      copied_[page] = 1;
    }
    uint32_t have[kMaxNodes];
    for (unsigned attempt = 0;; ++attempt) {
      f_.get(home, version_seg_.id, page * nodes_ * sizeof(uint32_t), have, nodes_ * sizeof(uint32_t));
      if (versions_cover(have, need)) break;
      if (attempt > 64) sched_yield();  // the diff is on its way; let its writer run
    }
    std::atomic_thread_fence(std::memory_order_acquire);  // the page is read after its version
    f_.get(home, data_seg_.id, page * kPageBytes, dst, kPageBytes);
    return;
  }
  FetchHeader h{(uint32_t)page};
  iovec req[2] = {{&h, sizeof h}, {const_cast<uint32_t *>(need), nodes_ * sizeof(uint32_t)}};
  fetched_page_.store(-1);
  f_.sendv(home, msg::kFetchRequest, req, 2);
  f_.wait([&] { return fetched_page_.load(std::memory_order_acquire) == (int64_t)page; });
}

void Hlrc::on_fetch_request(const fabric::Message &m) {
  FetchHeader h;
  memcpy(&h, m.data, sizeof h);
  std::vector<uint32_t> need(nodes_);
  memcpy(need.data(), static_cast<const uint8_t *>(m.data) + sizeof h, nodes_ * sizeof(uint32_t));
  std::atomic_ref<uint64_t>(reinterpret_cast<uint64_t *>(copies_seg_.base)[h.page])
      .fetch_add(1, std::memory_order_seq_cst);
  std::vector<uint32_t> have(nodes_);
  for (int w = 0; w < nodes_; ++w) have[w] = version(h.page, w).load(std::memory_order_acquire);
  if (versions_cover(have.data(), need.data()))
    serve_fetch(m.src, h.page);
  else
    deferred_[h.page].push_back(DeferredFetch{m.src, std::move(need)});
}

void Hlrc::serve_fetch(int requester, size_t page) {
  FetchHeader h{(uint32_t)page};
  iovec iov[2] = {{&h, sizeof h}, {region_->sys_page(page), kPageBytes}};
  f_.sendv(requester, msg::kFetchReply, iov, 2);
}

void Hlrc::serve_deferred_fetches(size_t page) {
  auto it = deferred_.find((uint32_t)page);
  if (it == deferred_.end()) return;
  std::vector<uint32_t> have(nodes_);
  for (int w = 0; w < nodes_; ++w) have[w] = version(page, w).load(std::memory_order_acquire);
  auto &list = it->second;
  for (size_t i = 0; i < list.size();) {
    if (versions_cover(have.data(), list[i].need.data())) {
      serve_fetch(list[i].requester, page);
      list[i] = std::move(list.back());
      list.pop_back();
    } else {
      ++i;
    }
  }
  if (list.empty()) deferred_.erase(it);
}

void Hlrc::on_fetch_reply(const fabric::Message &m) {
  FetchHeader h;
  if (m.len != sizeof h + kPageBytes) fatal("internal error: page reply of %zu bytes", m.len);
  memcpy(&h, m.data, sizeof h);
  // The page is invalid in the application view while it is fetched, so
  // writing the system view here races with nothing.
  memcpy(region_->sys_page(h.page), static_cast<const uint8_t *>(m.data) + sizeof h, kPageBytes);
  fetched_page_.store(h.page, std::memory_order_release);
}

}  // namespace rdsm
