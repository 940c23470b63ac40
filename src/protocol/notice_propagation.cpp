// Notice axis: how an acquirer learns the write notices it lacks.
//   lazy:       notices travel with lock grants and barrier departures, and
//               are asked from their writers when only a timestamp came
//               (an atomic lock or barrier) or at rdsm_acquire (HLRC);
//   eager_push: at release the writer appends the interval's notices to a
//               ring that every other node keeps for it, by one-sided
//               writes; readers take them from their own memory and apply
//               them at their next acquire (GeNIMA).
#include <algorithm>
#include <cstring>

#include "common/error.hpp"
#include "protocol/hlrc.hpp"
#include "protocol/msg_types.hpp"
#include "stats/stats.hpp"
#include "sync/locks.hpp"

namespace rdsm {

namespace {
// Ring of writer w in reader r's memory: [u64 head][pad][u64 tail][pad][data]
constexpr uint64_t kHead = 0, kTail = 64, kData = 128;
// Record: [u32 interval][u32 page count][pages], padded to 8 bytes.
size_t record_bytes(size_t pages) { return (8 + 4 * pages + 7) / 8 * 8; }

// Writer w's ring in this node's notice segment.
struct Ring {
  uint8_t *base;
  std::atomic_ref<uint64_t> head, tail;
  Ring(uint8_t *segment, size_t ring_bytes, int w)
      : base(segment + (kData + ring_bytes) * w),
        head(*reinterpret_cast<uint64_t *>(base + kHead)),
        tail(*reinterpret_cast<uint64_t *>(base + kTail)) {}
};

// Whether some writer's ring holds records this node has not moved yet.  A
// hint read without rings_.pending_mu: a tail another thread of this node is
// moving is found equal to its head only once that thread is done (the
// tail is stored last, with release).
bool anything_pushed(uint8_t *segment, size_t ring_bytes, int nodes, int self) {
  for (int w = 0; w < nodes; ++w) {
    if (w == self) continue;
    Ring r(segment, ring_bytes, w);
    if (r.head.load(std::memory_order_acquire) != r.tail.load(std::memory_order_acquire)) return true;
  }
  return false;
}
}  // namespace

sync::Bytes Hlrc::vc_bytes() const {
  sync::Bytes b(nodes_ * sizeof(uint32_t));
  notices_.copy_vc(reinterpret_cast<uint32_t *>(b.data()));
  return b;
}

// What a node does while it polls a remote word (atomic locks and barriers,
// full notice rings): answer its peers' messages in poll mode (they may be
// what the holder is waiting for) and take in pushed notices.
std::function<void()> Hlrc::while_waiting() {
  return [this] {
    f_.poll();
    drain_notices();
  };
}

void Hlrc::setup_notice_buffers() {
  if (cfg_.notices != NoticeAxis::eager_push) return;
  // One whole interval (every page of the region) always fits in a ring.
  rings_.ring_bytes = 256 << 10;
  while (rings_.ring_bytes < record_bytes(pages_) + 8) rings_.ring_bytes *= 2;
  rings_.seg = f_.register_segment((kData + rings_.ring_bytes) * nodes_);
  rings_.push_head.assign(nodes_, 0);
  rings_.push_tail_seen.assign(nodes_, 0);
}

void Hlrc::publish_interval(uint32_t id, const std::vector<uint32_t> &pages) {
  if (cfg_.notices != NoticeAxis::eager_push) return;
  std::vector<uint8_t> &rec = rings_.record;
  rec.assign(record_bytes(pages.size()), 0);
  uint32_t hdr[2] = {id, (uint32_t)pages.size()};
  memcpy(rec.data(), hdr, sizeof hdr);
  if (!pages.empty()) memcpy(rec.data() + 8, pages.data(), 4 * pages.size());
  uint64_t ring = (kData + rings_.ring_bytes) * self_;  // this writer's ring, in every reader
  for (int r = 0; r < nodes_; ++r) {
    if (r == self_) continue;
    uint64_t &head = rings_.push_head[r], &tail = rings_.push_tail_seen[r];
    // The reader's tail only grows: room by an old reading is room now, and
    // the reader's line is fetched (a miss each time it moved) only when the
    // ring looks full.
    auto fits = [&] {
      if (rings_.ring_bytes - (head - tail) >= rec.size()) return true;
      tail = f_.atomic_load(r, rings_.seg.id, ring + kTail);
      return rings_.ring_bytes - (head - tail) >= rec.size();
    };
    // A full ring empties when its reader acquires; meanwhile take in what
    // others push to this node, so that two writers never wait on each other.
    if (!fits()) sync::backoff_until(fits, while_waiting());
    uint64_t at = head % rings_.ring_bytes;
    size_t first = std::min<size_t>(rec.size(), rings_.ring_bytes - at);
    f_.put(r, rings_.seg.id, ring + kData + at, rec.data(), first);
    if (first < rec.size()) f_.put(r, rings_.seg.id, ring + kData, rec.data() + first, rec.size() - first);
    head += rec.size();
    f_.flush(r);  // the record is visible before the head that covers it
    f_.put(r, rings_.seg.id, ring + kHead, &head, sizeof head);
  }
  f_.flush_all();
}

void Hlrc::drain_notices() {
  if (cfg_.notices != NoticeAxis::eager_push) return;
  // Most acquires find nothing new: then no lock (a lock pair costs about a
  // tenth of an uncontended rdsm_lock + rdsm_unlock).
  if (!anything_pushed(rings_.seg.base, rings_.ring_bytes, nodes_, self_)) return;
  std::lock_guard<std::mutex> g(rings_.pending_mu);
  for (int w = 0; w < nodes_; ++w) {
    if (w == self_) continue;
    Ring ring(rings_.seg.base, rings_.ring_bytes, w);
    uint64_t head = ring.head.load(std::memory_order_acquire), tail = ring.tail.load(std::memory_order_relaxed);
    auto read = [&](uint64_t pos, void *dst, size_t n) {
      uint64_t at = pos % rings_.ring_bytes;
      size_t first = std::min<size_t>(n, rings_.ring_bytes - at);
      memcpy(dst, ring.base + kData + at, first);
      if (first < n) memcpy(static_cast<uint8_t *>(dst) + first, ring.base + kData, n - first);
    };
    while (tail < head) {
      uint32_t hdr[2];
      read(tail, hdr, sizeof hdr);
      Interval iv{(uint32_t)w, hdr[0], std::vector<uint32_t>(hdr[1])};
      if (hdr[1]) read(tail + 8, iv.pages.data(), 4 * (size_t)hdr[1]);
      rings_.pending.push_back(std::move(iv));
      rings_.pending_any.store(true, std::memory_order_relaxed);  // ordered before the tail's release
      tail += record_bytes(hdr[1]);
    }
    ring.tail.store(tail, std::memory_order_release);
  }
}

// rdsm_acquire: every notice released before, by any node.
void Hlrc::catch_up(const VClock &target) {
  auto covered = [&] { return notices_.covers(target, self_); };
  if (cfg_.notices == NoticeAxis::lazy) {
    VClock vc = notices_.vc();
    std::vector<int> writers;
    for (int w = 0; w < nodes_; ++w)
      if (w != self_ && vc[w] < target[w]) writers.push_back(w);
    if (!writers.empty()) pull_notices(writers);
    if (!covered()) fatal("internal error: writers did not return the notices of a released interval");
    return;
  }
  // Writers push before they release, so the notices are in this node's
  // rings already; waiting only guards against a late flush.  Those the
  // target does not require are applied too: invalidated early, a page
  // read without a lock (Barnes' tree walk) is seen stale less often.
  apply_pushed_notices();
  if (!covered())
    sync::backoff_until(
        [&] {
          apply_pushed_notices();
          return covered();
        },
        while_waiting());
}

void Hlrc::apply_pushed_notices() {
  drain_notices();
  NoticeSet s;
  if (rings_.pending_any.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> g(rings_.pending_mu);
    s.intervals.swap(rings_.pending);
    rings_.pending_any.store(false, std::memory_order_relaxed);
  }
  if (s.intervals.empty() && learn_at_barrier_.empty()) return;  // nothing arrived, nothing held back
  apply_notices(s);
}

void Hlrc::pull_notices(const std::vector<int> &writers) {
  VClock vc = notices_.vc();
  {
    std::lock_guard<std::mutex> g(query_mu_);
    query_replies_.clear();
  }
  for (int w : writers) f_.send(w, msg::kNoticeQuery, vc.data(), vc.size() * sizeof(uint32_t));
  f_.wait([&] {
    std::lock_guard<std::mutex> g(query_mu_);
    return query_replies_.size() == writers.size();
  });
  std::vector<NoticeSet> replies;
  {
    std::lock_guard<std::mutex> g(query_mu_);
    replies.swap(query_replies_);
  }
  for (const NoticeSet &s : replies) apply_notices(s);
}

}  // namespace rdsm
