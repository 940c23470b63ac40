// Write-ahead axis: a program that writes an array front to back takes a
// write fault on every page (a twin, or at the home a notice), about 5 us
// each, when the pages are valid copies or tracked home pages.  With
// `stream`, a write fault on a page whose predecessor is writable (a stream
// of writes) also opens the valid pages after it, twice as many as the
// stream has behind it (at least kMinWriteWindow, at most kMaxWriteWindow),
// as kept pages of the rewrite axis (rewrite_detection.cpp): writable, each
// with a twin of its current content.  Nothing is assumed written: the release compares
// every kept page with its twin, so a page opened ahead and not written
// costs a copy and a comparison (well under a microsecond), is named in no
// notice, sends no diff, and is write-protected again.  A stream that stops
// wastes at most twice as many pages as it used, or kMinWriteWindow.  A
// write miss in a stream (the page is not valid here) fetches the missing
// pages after it from the same home in the same read, and opens them the
// same way.
//
// Writes at a constant stride (a transpose writing one column of blocks
// down a matrix's rows, each row a few pages long) fault on every page just
// the same: a run of write faults at a constant stride (stride_run.hpp)
// opens the valid pages along the stride the same way, the window growing
// with the run.  Both may open pages at one fault: the rest of a row after
// the page, and the rows below it.
//
// Writes scattered densely over a region (a radix sort's permutation: a
// thousand bucket cursors, each moving along its own few pages) are neither
// a stream nor a stride, and fault once per page all the same.  With
// `dense` (stream and stride as above, plus this), a write fault that finds
// kDenseTrigger pages written (faulted) in this interval within the aligned
// block of kDenseGroup * kDenseFactor pages around it opens its aligned
// group of kDenseGroup pages: the valid pages, the missing ones of other
// homes after one read per run, and the node's own tracked home pages
// (write-protected because another node has a copy: a twin costs a tenth
// of the fault it saves).  The group grows with the scatter: once the
// interval has opened kDenseFactor groups, a trigger opens kDenseFactor
// groups at once, and once it has opened kDenseFactor^2, kDenseFactor^2
// (kDenseGrowth steps).  A permutation's first writes land on bucket starts
// all over its destination, a few to a group (a radix sort's second pass
// on 4 M keys starts its buckets eight pages apart: two to a group until
// half the keys are placed), so the evidence is looked for in the block
// around, and the growth counted over the interval, not the neighbours.
// A fault on a page a scatter wrote releases ago, and that was
// write-protected for it (kReopenedWindow, rewrite_detection.cpp), needs
// no evidence: the scatter is back, and its group opens at once.
// Radix at its paper size on 2 nodes: 690 write faults per node become
// 158; a SPLASH RADIX of 4 M keys: 1,028 become 254 (parallel time 0.84
// and 0.91 of before, medians of 15 alternated runs).  Untracked home
// pages take no fault and are left alone.
//
// Waste: a page opened ahead and found unwritten kOpenedUnwrittenLimit
// times in a row is not opened ahead any more, until a write fault or a
// comparison finds it written (a tree's cells beside the ones a lock
// protects: Barnes' build opened 22,000 pages per node, 98% of them for
// nothing).
//
// Why it is safe: a kept page is exactly a page written in an interval
// whose twin equals its content; every mechanism that handles those
// (invalidation with unreleased writes, the home's twin following other
// nodes' diffs, home migration, whole-page claims through home_writing_)
// handles an opened page the same way, written or not.
#include <algorithm>
#include <cstring>

#include "protocol/hlrc.hpp"
#include "protocol/twin_copy.hpp"
#include "stats/stats.hpp"

namespace rdsm {

size_t Hlrc::write_stream(size_t page) const {
  if (cfg_.write_ahead == WriteAheadAxis::off || kept_.empty()) return 0;
  size_t behind = 0;
  while (behind < kMaxWriteWindow && behind < page && state_[page - 1 - behind] == kWritable) ++behind;
  // Twice the stream so far, at least kMinWriteWindow: a page opened and
  // not written costs a tenth of a fault.
  return behind == 0 ? 0 : std::min(kMaxWriteWindow, std::max(kMinWriteWindow, 2 * behind));
}

bool Hlrc::can_open_ahead(ptrdiff_t q) const {
  if (q < 0 || (size_t)q >= pages_ || kept_[q] || has_twin_[q] || opened_unwritten_[q] >= kOpenedUnwrittenLimit)
    return false;
  // A valid copy, or a home page this node never mapped: a home's copy is
  // always valid, so it opens without a fetch (a transpose writing its rows
  // across pages it never read took a fault on each).
  return state_[q] == kReadOnly || (state_[q] == kInvalid && home_[q] == self_ && !untracked_[q]);
}

bool Hlrc::can_fetch_to_open(size_t q, int home) {
  // A missing page (can_prefetch) has no twin and is not kept: once fetched,
  // only the record of waste can keep open_ahead from taking it, and a page
  // fetched and not opened would stay unmapped.
  return can_prefetch((ptrdiff_t)q, home) && opened_unwritten_[q] < kOpenedUnwrittenLimit;
}

void Hlrc::open_write_window(size_t page) {
  if (cfg_.write_ahead == WriteAheadAxis::off || kept_.empty()) return;
  size_t limit = write_stream(page), n = 0;
  while (n < limit && can_open_ahead((ptrdiff_t)(page + 1 + n))) ++n;
  open_ahead(page + 1, n);
  open_strided_window(page);
}

void Hlrc::open_dense_group(size_t page, int home, bool can_poll) {
  if (cfg_.write_ahead != WriteAheadAxis::dense || kept_.empty()) return;
  // The block to open: a group, larger as the interval opens more (above).
  size_t size = kDenseGroup;
  for (size_t level = 0, opened = kDenseFactor; level < kDenseGrowth && dense_opened_ >= opened; ++level) {
    size *= kDenseFactor;
    opened *= kDenseFactor;
  }
  const size_t first = page & ~(size - 1), end = std::min(pages_, first + size);
  // The evidence: pages that took a write fault in this interval, in the
  // block around (at least a group and its kDenseFactor - 1 neighbours);
  // pages kept writable from earlier intervals say nothing of this one.
  const size_t around = std::max(size, kDenseGroup * kDenseFactor);
  const size_t from = page & ~(around - 1), to = std::min(pages_, from + around);
  size_t writing = 0;
  for (size_t q = from; q < to; ++q) writing += written_[q];
  if (writing < kDenseTrigger && keep_window_[page] != kReopenedWindow) return;
  ++dense_opened_;
  // The block's missing pages of other homes, in runs of one home, not
  // waited for (one that is not new enough there is left to its own
  // fault).  Each is opened below, which maps it: only those open_ahead
  // will take.
  for (size_t q = first; q < end;) {
    const int h = home_[q] >= 0 ? home_[q] : home;  // an unclaimed page: can_fetch_to_open says
    size_t n = 0;
    while (h != self_ && q + n < end && can_fetch_to_open(q + n, h)) ++n;
    if (n == 0) {
      ++q;
      continue;
    }
    size_t got = fetch_pages(q, h, n - 1, false, can_poll);
    for (size_t k = 0; k < got; ++k) state_[q + k] = kReadOnly;  // valid; opened below
    q += n;
  }
  // Home pages too: a tracked one (another node has a copy) takes a write
  // fault at its first write, which a twin saves (open_ahead).
  for (size_t q = first; q < end;) {
    size_t n = 0;
    while (q + n < end && can_open_ahead((ptrdiff_t)(q + n))) ++n;
    if (n == 0) {
      ++q;
      continue;
    }
    open_ahead(q, n);
    q += n;
  }
}

void Hlrc::open_strided_window(size_t page) {
  ptrdiff_t stride = write_run_.observe(page);
  if (stride == 0) return;
  // As for a stream: twice the pages the run has covered, within bounds.
  size_t window = write_run_.window(kMinWriteWindow, kMaxWriteWindow), n = 0;
  for (; n < window; ++n) {
    ptrdiff_t q = (ptrdiff_t)page + stride * (ptrdiff_t)(n + 1);
    if (!can_open_ahead(q)) break;
    open_ahead((size_t)q, 1);
  }
  write_run_.advanced(page, n);
}

void Hlrc::open_ahead(size_t first, size_t count) {
  if (count == 0) return;
  for (size_t q = first; q < first + count; ++q) {
    if (home_[q] == self_) home_starts_writing(q);
    races::PageLocks::Hold hold(twin_locks_, q);  // --races: a home page's twin, against the diff handler
    // Streamed: a page opened ahead is compared at the release that ends
    // the stream or scatter it belongs to, after the rest of it was written
    // (twin_copy.hpp).
    twin_from_copy(q, true);
    state_[q] = kWritable;
    kept_[q] = kKeptAhead;
    kept_list_[kept_count_++] = (uint32_t)q;
  }
  region_->protect(first, count, Prot::read_write);
  add(stats().write_ahead, count);
}

}  // namespace rdsm
