// Prefetch axis, `adaptive`, second half: pages re-read after every
// invalidation are refreshed instead (an update protocol for exactly the
// pages that want one: the boundary rows a neighbour writes in every phase,
// a table every node reads after each barrier).
//
// A page whose copy a notice dropped, and which this node then missed on
// again, earns rounds: the next acquires that name it read the new
// contents from its home at once, in one read per run of consecutive pages
// of one home, and leave the page readable.  That saves the protection
// change of the invalidation, the fault, and the fault's separate read.
// When the rounds are used up the page is dropped as usual: if it is missed
// again it earns new rounds, if not the refreshing stops.  The grants grow,
// 4, 8, then 15 rounds, each time a page is missed again after a drop: a
// boundary row read after every barrier (Ocean's) pays an invalidation and
// a fault once in 16 barriers, not once in 5, while a page no longer read
// costs at most its grant in reads (a read is about a microsecond; the
// invalidation and the fault it saves, about five).
//
// A page brought back by a prefetch the node's reads asked for (a window
// they used, a stride) is re-read too, but only predicted so: such
// re-reads raise its level without rounds until the top level, whose grant
// its third one earns.  A column of another node's rows comes back by
// strided prefetch, rarely by a miss of its own (prefetched_rereads: read
// after every barrier, refreshed it costs no fault), while SPLASH FFT's
// single transform, whose copies are read two or three times, is not
// refreshed for nothing at its last barriers (1.27 times the time when
// the first such re-read earned rounds).
//
// An acquire that names more than kMaxRefreshPages pages for refresh drops
// them all (drop_bulk_refresh).  A copy kept fresh keeps its home's page
// counted, so the home compares the page with its twin at every release,
// written or not, and brings the twin up to date after each write; a bulk
// of pages read every few barriers costs more that way than the
// prefetcher's reads of those read again, which bring runs and strides of
// pages back a fault at a time.  Dropped, the copies are counted out and
// their homes write them unnoticed again.  An FFT of 2^21 points repeated
// 10 times at 2 nodes names 2,600-4,000 pages at each barrier; refreshed,
// a node copied 172,000 pages in a run where, dropped, it reads 126,000
// back, and comparing its home pages with their twins and bringing the
// twins up to date took a quarter of its time.  Dropped, the run takes
// 0.82-0.83 of the time; the sets refreshed below the limit stay so
// (the most pages named at one acquire at their paper sizes): Ocean's
// boundary rows (13), IS's bucket counts (257), Water's molecules (40).
//
// A page is refreshed only if its home's versions already cover what this
// node's notices require (fetch_pages checks them as for a miss, without
// waiting); otherwise it is dropped as usual.  Usually they do: an acquire
// learns a notice only after the writer's release made the diffs visible at
// the home.  But pushed notices may run ahead (intervals of the next epoch,
// after homes moved at a barrier this node has not finished), and those are
// left to the miss.  Only copies without unsent writes are refreshed (a page this
// node wrote in the open interval goes the usual way), and only with
// one-sided fetch, which reads a page without the home counting the copy
// again.
//
// A kept copy (rewrites=compare: writable, with a twin) equal to its twin
// is refreshed too, twin and all, and stays writable: a page that nodes
// write in turns under a lock (a shared counter, a tree's cells, a task
// queue) otherwise pays at every hand-off the invalidation, a read fault
// with its read, a write fault and a twin; refreshed, the next write costs
// nothing and the release's comparison finds it (micro_lock at 2 nodes: a
// hand-off 6.2 -> 2.0 us, a contended critical section 5.5 -> 1.8 us).
//
// The application thread is inside the acquire, so nothing reads the page
// while it is replaced (one application thread per node).
#include <algorithm>
#include <cstring>

#include "common/fault_inject.hpp"
#include "protocol/hlrc.hpp"
#include "stats/stats.hpp"

namespace rdsm {

namespace {
constexpr uint8_t kGrants[] = {4, 8, 15};  // rounds per level; 15 fits kRoundsMask
constexpr int kLevelShift = 4, kTopLevel = 2;
// More pages than this named for refresh at one acquire are all dropped.
constexpr size_t kMaxRefreshPages = 512;
}  // namespace

void Hlrc::note_reread(size_t page, bool prefetched) {
  if (reread_.empty() || !(reread_[page] & kDropped)) return;
  const int level = (reread_[page] & kLevelMask) >> kLevelShift;
  // A prefetch reads what the node will likely read, not what it did: its
  // re-reads of a page only raise the level until the top one.
  const uint8_t rounds = prefetched && level < kTopLevel ? 0 : kGrants[level];
  reread_[page] = (uint8_t)(std::min(level + 1, kTopLevel) << kLevelShift | rounds);
}

bool Hlrc::refresh_instead(size_t page) {
  if (reread_.empty() || (reread_[page] & kRoundsMask) == 0) return false;
  if (state_[page] == kReadOnly ? unreleased_writes(page) : !clean_kept_copy(page)) return false;
  return true;
}

void Hlrc::drop_bulk_refresh(std::vector<uint32_t> &pages, ProtectionBatch &batch) {
  std::sort(pages.begin(), pages.end());
  pages.erase(std::unique(pages.begin(), pages.end()), pages.end());
  if (pages.size() <= kMaxRefreshPages) return;
  for (uint32_t p : pages) {
    reread_[p] |= kDropped;
    free_twin(p);  // a clean kept copy's, or in scan mode the clean copy's
    invalidate_copy(p, batch);
  }
  pages.clear();
}

bool Hlrc::clean_kept_copy(size_t page) {
  // Withheld writes may equal the twin byte for byte and still be owed.
  return state_[page] == kWritable && !scan_ && !races_ && !kept_.empty() && kept_[page] && !written_[page] &&
         (withheld_.empty() || !withheld_[page]) && !differs_from_twin(page);
}

void Hlrc::refresh_copies(std::vector<uint32_t> &pages) {  // sorted, once each (drop_bulk_refresh)
  if (pages.empty()) return;
  ProtectionBatch batch(*region_);
  for (size_t i = 0; i < pages.size();) {
    size_t first = pages[i], n = 1;
    int home = home_[first];
    while (i + n < pages.size() && pages[i + n] == first + n && home_[first + n] == home) ++n;
    // Not waited for: an acquire may learn intervals written after this
    // barrier's home moves, which the home this node still knows never gets.
    fault_point("refresh");
    size_t got = fetch_pages(first, home, n - 1, false, true);
    add(stats().refreshed, got);
    for (size_t k = 0; k < n; ++k) {
      size_t p = first + k;
      uint8_t &r = reread_[p];
      r = (uint8_t)((r & kLevelMask) | ((r & kRoundsMask) - 1));
      const bool kept = state_[p] == kWritable;
      if (k < got) {
        if (kept) memcpy(twin_to_write(p, true), region_->sys_page(p), kPageBytes);  // the base of the next diff
        continue;
      }
      // Not new enough at that home: dropped (fetch_pages counted it out).
      r |= kDropped;
      if (kept) kept_[p] = 0;  // its list entry goes at the next sweep
      free_twin(p);  // a kept copy's twin, or in scan mode the clean copy's
      state_[p] = kInvalid;
      batch.set(p, Prot::none);
      add(stats().invalidations);
    }
    i += n;
  }
  batch.apply();
}

}  // namespace rdsm
