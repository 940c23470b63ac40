// Lock-ahead axis: a lock protects data, and its next holder usually
// writes what the last one wrote under it (a tree cell, a counter, a queue
// head).  Under `on`, the release of an atomic lock keeps with the lock,
// beside its timestamp, the releaser's rank and the interval its release
// closed; the next holder, once it has applied the notices the timestamp
// requires, fetches those pages if it lacks them and opens them writable
// with twins, as kept pages written ahead (write_ahead.cpp).  A critical
// section then takes no read fault and no write fault on them; a page opened
// and not written costs a twin copy and a comparison at the next release,
// and is named in no notice.
//
// Why it is safe: the pages are fetched after the notices the lock's
// timestamp brings were applied, as a read fault would fetch them, and
// opened exactly as the write-ahead axis opens pages (with a twin of their
// current content), so every later release finds their writes by comparison.
// An interval this node no longer knows (forgotten after a barrier) opens
// nothing.
#include <cstring>

#include "protocol/hlrc.hpp"

namespace rdsm {

sync::Bytes Hlrc::lock_release_bytes() const {
  const size_t at = nodes_ * sizeof(uint32_t);
  sync::Bytes b(at + sizeof(LockHolder));
  notices_.copy_vc(reinterpret_cast<uint32_t *>(b.data()));
  LockHolder h{(uint32_t)self_, released_interval_};
  memcpy(b.data() + at, &h, sizeof h);
  return b;
}

void Hlrc::open_lock_pages(const sync::Bytes &kept) {
  if (cfg_.lock_ahead != LockAheadAxis::on || kept_.empty()) return;
  if (kept.size() != nodes_ * sizeof(uint32_t) + sizeof(LockHolder)) return;
  LockHolder h;
  memcpy(&h, kept.data() + nodes_ * sizeof(uint32_t), sizeof h);
  if (h.interval == 0 || h.rank >= (uint32_t)nodes_) return;
  uint32_t pages[kLockAheadPages];
  size_t n = 0;
  VClock after(nodes_, 0), upto(nodes_, 0);
  after[h.rank] = h.interval - 1;
  upto[h.rank] = h.interval;
  notices_.visit(after, upto, [&](const Interval &iv) {
    // A long interval is more than a critical section: nothing to guess.
    if (iv.pages.size() > kLockAheadPages) return;
    for (uint32_t entry : iv.pages) pages[n++] = notice_page(entry);
  });
  if (n == 0) return;
  std::lock_guard<FutexLock> g(mu_);
  for (size_t i = 0; i < n; ++i) {
    size_t p = pages[i];
    if (state_[p] == kInvalid && home_[p] != self_) {
      int home = home_without_claim(p);
      if (home < 0 || home == self_ || !can_prefetch((ptrdiff_t)p, home)) continue;
      FetchRun run{p, 1};
      fetch_runs(home, &run, 1, true);
      if (!run.got) continue;  // not new enough at its home: left to its fault
    }
    // Counted with the pages written ahead (opened ahead / unwritten).  Not
    // a home page: kept at its home, every diff another node makes to it
    // would be taken for a write of the home (rewrite_detection.cpp).
    if (home_[p] != self_ && can_open_ahead((ptrdiff_t)p)) open_ahead(p, 1);
  }
}

}  // namespace rdsm
