// Diff axis: make this node's writes to pages homed elsewhere visible at
// their homes, before the release that ends the interval completes.
//   message:   the diffs for one home are packed into messages; the home's
//              handler applies them, bumps the page versions and acks
//              (async, ardmar);
//   one_sided: each run is written straight into the home's copy, then the
//              page's version word, right after that page's diff (DRAW,
//              with the pipelining seed 000 §5.3.4 proposes); the home's
//              CPU does nothing.
#include <cstring>
#include <vector>

#include "common/error.hpp"
#include "protocol/diff.hpp"
#include "protocol/hlrc.hpp"
#include "protocol/msg_types.hpp"
#include "stats/stats.hpp"

namespace rdsm {

namespace {
constexpr size_t kDiffMessageBytes = 64 << 10;  // pack diffs up to this size per message

struct DiffEntry {
  uint32_t page;
  uint32_t len;
};

void append(std::vector<uint8_t> &b, const void *p, size_t n) {
  size_t at = b.size();
  b.resize(at + n);
  memcpy(b.data() + at, p, n);
}
}  // namespace

void Hlrc::propagate_diffs(const std::vector<uint32_t> &pages, uint32_t interval) {
  if (pages.empty()) return;
  std::vector<uint8_t> diff(diff_max_bytes(kPageBytes));
  if (cfg_.diff == DiffAxis::one_sided) {
    for (uint32_t p : pages) {
      int home = home_[p];
      size_t len = diff_encode(twin(p), region_->sys_page(p), kPageBytes, diff.data());
      free_twin(p);
      if (len) {
        diff_for_each_run(diff.data(), len, kPageBytes, [&](size_t off, const uint8_t *bytes, size_t n) {
          f_.put(home, data_seg_.id, (uint64_t)p * kPageBytes + off, bytes, n);
        });
        add(stats().diffs);
        add(stats().diff_bytes, len);
      }
      f_.flush(home);  // the runs are visible before the version that announces them
      f_.put(home, version_seg_.id, ((uint64_t)p * nodes_ + self_) * sizeof(uint32_t), &interval, sizeof interval);
    }
    f_.flush_all();
    return;
  }
  std::vector<std::vector<uint8_t>> out(nodes_);
  auto send = [&](int home) {
    diff_acks_pending_.fetch_add(1);
    f_.send(home, msg::kDiff, out[home].data(), out[home].size());
    out[home].clear();
  };
  for (uint32_t p : pages) {
    int home = home_[p];
    size_t len = diff_encode(twin(p), region_->sys_page(p), kPageBytes, diff.data());
    free_twin(p);
    // An empty diff still travels: the home must bump the page's version.
    if (out[home].empty()) append(out[home], &interval, sizeof interval);
    DiffEntry e{p, (uint32_t)len};
    append(out[home], &e, sizeof e);
    append(out[home], diff.data(), len);
    if (len) {
      add(stats().diffs);
      add(stats().diff_bytes, len);
    }
    if (out[home].size() >= kDiffMessageBytes) send(home);
  }
  for (int h = 0; h < nodes_; ++h)
    if (!out[h].empty()) send(h);
  f_.wait([&] { return diff_acks_pending_.load() == 0; });
}

void Hlrc::on_diff(const fabric::Message &m) {
  const uint8_t *p = static_cast<const uint8_t *>(m.data);
  const uint8_t *end = p + m.len;
  uint32_t interval;
  if (m.len < sizeof interval) fatal("internal error: short diff message from node %d", m.src);
  memcpy(&interval, p, sizeof interval);
  p += sizeof interval;
  while (p < end) {
    DiffEntry e;
    if ((size_t)(end - p) < sizeof e) fatal("internal error: truncated diff message from node %d", m.src);
    memcpy(&e, p, sizeof e);
    p += sizeof e;
    if ((size_t)(end - p) < e.len || e.page >= pages_ ||
        !diff_apply(region_->sys_page(e.page), kPageBytes, p, e.len))
      fatal("internal error: malformed diff for page %u from node %d", e.page, m.src);
    p += e.len;
    auto v = version(e.page, m.src);
    if (v.load(std::memory_order_relaxed) < interval) v.store(interval, std::memory_order_release);
    serve_deferred_fetches(e.page);
  }
  f_.send(m.src, msg::kDiffAck, nullptr, 0);
}

}  // namespace rdsm
