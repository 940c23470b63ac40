// Rewrite axis: how a node learns that it wrote a page again in a later
// interval.
//   fault:   at release every written page is write-protected again, so the
//            next write to it faults (the seeds);
//   compare: a written page stays writable ("kept") after the release,
//            with its twin brought up to date; at the next
//            release a comparison with the twin says whether it was written
//            again: if so it is diffed (or, at its home, named in the
//            notices) and kept once more, if not it is write-protected and
//            its twin freed.  Two exceptions keep write-once pages (a radix
//            sort's destination) from paying up to three comparisons and
//            two twin copies each, at memory speed, before their window
//            runs out (choose_kept, kept_home_page_written_elsewhere):
//              - a copy is kept only when written again within
//                kMaxKeepWindow releases of its last write; at its first
//                write it is write-protected at release, as under `fault`;
//              - a home page is kept from its first write (the home of a
//                phase's data writes it phase after phase: FFT's rows),
//                but "on probation" (window 0): if a barrier brings another
//                node's notice for it, the page is shared by several
//                writers, and it is write-protected instead of having its
//                twin copied again.
//            At a barrier both wait for its notices: a home page's first
//            twin, and the write protection of a page dropped from
//            probation, are taken at the barrier's end, and neither if no
//            other node has a copy of the page by then (the others drop
//            theirs on this node's notice): the page goes back to untracked
//            (settle_deferred_home_pages).
//            Radix -k 2621440 at 2 nodes: the barrier and fetch overhead
//            summed over the nodes 45 -> 38 ms (medians of 9).
//            A page written interval after interval (a
//            boundary row, a bucket shared by two nodes, a lock-protected
//            counter) then costs one comparison per release instead of a
//            fault, a twin copy and two protection changes.  A page stays
//            kept through a few releases that find it unwritten
//            (kMinKeepWindow), for pages written every other
//            interval or so: a lock-protected tree whose nodes a node
//            updates now and again (Barnes' build) saves the fault, the
//            twin and the two protection changes for the price of a
//            comparison or two.  A page found written again a few releases
//            after the last time (by a fault or by the comparison, a page
//            opened ahead included) keeps a longer window, about one and a
//            half times the longest such gap seen (not the last: Ocean's
//            coarse grids are written on a V-cycle's way down and again on
//            its way up, gaps of a few releases and of some eighty in
//            turn), up to kMaxKeepWindow releases: a write fault costs the
//            program 10-20 us on a virtual machine (the SIGBUS, the
//            protection changes, the twin; measured against plain threads
//            barrier by barrier), a comparison of an unwritten page in
//            cache about 0.15 us, so keeping a page through 96 idle
//            releases costs about the fault it saves.  Radix (10
//            iterations) makes a third fewer write faults so, Water half;
//            Ocean (paper size, 2 nodes) 1,280 -> 180-260 a node and
//            0.91-0.96 of the time; Barnes' build only 4% fewer, since most of its
//            pages are written again hundreds of lock releases later, past
//            any window worth its comparisons.
//            A scatter's page is the exception (note_rewrite): found
//            written through a page opened ahead, in an interval that
//            opened dense groups (write_ahead.cpp), kReopenGap or more
//            releases after its last write, it is not kept past that
//            release (write-protected, its twin freed), and its next write
//            fault opens its group without waiting for the usual evidence.
//            Such pages come back a group at a time, about a microsecond
//            each, where keeping them cost a comparison at every release
//            in between with page and twin streamed from memory (thousands
//            of them): a radix sort in steady state (12.5 M keys, 4
//            passes, 4 iterations, 2 nodes) compared each destination page
//            three times unwritten between its writes; with the exception
//            its barriers' protocol time went 0.51 -> 0.41 s summed over
//            the nodes, its fault time 0.30 -> 0.32, the parallel phase
//            0.769 -> 0.723 s (medians of 5 alternated runs).
//
// A kept page at its home has a twin too (no other home page has one), and
// that twin must follow the writes other nodes' diffs make to the home's
// copy, or the home could write back a byte's earlier value unnoticed: a
// write ordered after another node's diff is ordered after the acquire that
// brings that node's notice, and at that acquire the home compares the page
// with its twin (a difference is named as written, conservatively: it may
// be the diff alone) and refreshes the twin.  Diffs that land without such
// an acquire are from writers the home does not synchronise with, so in a
// data-race-free program the home never writes their bytes.
// A difference the home cannot tell from other nodes' diffs is named
// "maybe written" rather than written when such a diff has landed since the
// twin was taken (the page's version entries of other nodes moved): the
// notice invalidates the same, but home migration does not take it for a
// write of the home's own (home_migration.cpp), or a page a worker wrote
// would stay at the master whenever the worker's diff happened to land
// before the master's release compared the page.
//
// A kept page at its home that is found written again while nobody has a
// copy of it any more (the copies were dropped on notices) goes back to
// untracked (hlrc.hpp): writable, with no twin, no comparison and no notice
// until a copy is counted again.  A home writing its pages phase after
// phase (FFT's rows, Ocean's interior) would otherwise pay a comparison and
// a twin copy per page at every release for pages only it reads.  A page
// found unwritten stays kept and is write-protected as before, even with
// no copy left: a page others read but the home no longer writes would
// otherwise go untracked, be named maybe written when copied again (which
// drops that copy), and so on at every release.  The release's fence orders
// the application's stores before the loads of the copy counters, as for
// the pages that become untracked at a write fault (close_interval).
//
// A node's writes during close_interval would race with the comparison, so
// this axis assumes one application thread per node.
#include <algorithm>
#include <cstring>

#include "protocol/hlrc.hpp"
#include "protocol/page_compare.hpp"
#include "protocol/twin_copy.hpp"
#include "stats/stats.hpp"

namespace rdsm {

namespace {
constexpr size_t kStreamedRefreshPages = 512;  // 2 MiB of twins, about a core's L2 here
constexpr uint32_t kReopenGap = 3;  // releases between writes from which a scatter's page is reopened (note_rewrite)
}  // namespace

bool Hlrc::untrack_uncopied_home_page(size_t page, bool &fenced) {
  if (scan_ || races_ || home_[page] != self_ || !claim_untracked(page, &fenced)) return false;
  kept_[page] = 0;
  free_twin(page);
  return true;
}

void Hlrc::note_rewrite(size_t page, bool opened_ahead) {
  uint32_t last = last_rewrite_[page];
  last_rewrite_[page] = releases_;
  uint32_t gap = last == 0 ? UINT32_MAX : releases_ - last;
  if (opened_ahead && gap >= kReopenGap && gap <= kMaxKeepWindow)
    keep_window_[page] = kReopenedWindow;
  else if (gap > kMaxKeepWindow)
    keep_window_[page] = 0;
  else  // the longest gap so far: gaps that alternate short and long (a V-cycle's levels)
    keep_window_[page] = (uint8_t)std::clamp<uint32_t>(
        std::max<uint32_t>(gap + gap / 2, keep_window_[page] == kReopenedWindow ? 0 : keep_window_[page]),
        kMinKeepWindow, kMaxKeepWindow);
}

void Hlrc::sweep_kept(ProtectionBatch &batch) {
  ++releases_;
  size_t kept = 0;
  bool fenced = false;
  for (size_t i = 0; i < kept_count_; ++i) {
    uint32_t p = kept_list_[i];
    if (!kept_[p]) continue;  // dropped since (invalidated, moved)
    bool faulted = written_[p];
    if (faulted || differs_from_twin(p)) {
      if (untrack_uncopied_home_page(p, fenced)) continue;  // written, with nobody to tell
      note_rewrite(p, kept_[p] == kKeptAhead && dense_opened_ > 0);  // the gap since it was last found written
      opened_unwritten_[p] = 0;
      kept_[p] = keep_window_[p] == kReopenedWindow ? 0 : 1;  // not kept: choose_kept write-protects it
      if (faulted || home_[p] != self_) note_written(p);
      else note_kept_home_change(p);
      if (kept_[p]) kept_list_[kept++] = p;
      continue;
    }
    // Not written again: kept a while longer (unless opened ahead: those
    // were a guess), then write-protected until the next write fault.
    const uint8_t window = keep_window_[p] ? keep_window_[p] : kMinKeepWindow;
    if (kept_[p] == 1 || (kept_[p] >= kKeptIdle && kept_[p] < kKeptIdle + window - 1)) {
      kept_[p] = kept_[p] == 1 ? kKeptIdle : kept_[p] + 1;
      kept_list_[kept++] = p;
      continue;
    }
    if (kept_[p] == kKeptAhead) {
      add(stats().write_ahead_unused);
      if (opened_unwritten_[p] < kOpenedUnwrittenLimit) ++opened_unwritten_[p];
    }
    free_twin(p);
    protect_unkept(p, batch);
  }
  kept_count_ = kept;
}

void Hlrc::choose_kept(const std::vector<uint32_t> &written, ProtectionBatch &batch) {
  bool fenced = false;
  for (uint32_t p : written) {
    if (state_[p] != kWritable) continue;
    if (home_[p] == self_ && (untracked_[p] || untrack_uncopied_home_page(p, fenced))) continue;
    if (!kept_[p] && last_rewrite_[p] != releases_) note_rewrite(p);  // a write fault: sweep_kept found the others
    if (keep_window_[p] == kReopenedWindow) {
      // Written through a page opened ahead, long after its last write:
      // not kept (nor its twin), the write-ahead will reopen it.
      if (home_[p] == self_) free_twin(p);
      protect_unkept(p, batch);
      continue;
    }
    // A home page is kept from its first write (on probation, window 0):
    // the home of a phase's data writes it phase after phase (FFT's rows).
    // A copy only once written again soon.
    if (keep_window_[p] != 0 || home_[p] == self_) {
      if (!kept_[p]) {
        kept_[p] = 1;
        kept_list_[kept_count_++] = p;
      }
      continue;
    }
    // A copy written for the first time in a long while: write-protected,
    // as under rewrites=fault; its twin goes with its diff.
    protect_unkept(p, batch);
  }
}

void Hlrc::protect_unkept(size_t page, ProtectionBatch &batch) {
  kept_[page] = 0;  // its list entry, if any, goes at the next sweep
  state_[page] = kReadOnly;
  batch.set(page, Prot::read);
  if (home_[page] == self_) unkept_.push_back((uint32_t)page);
}

void Hlrc::apply_unkeeping(ProtectionBatch &batch) {
  if (barrier_release_ && !races_ && !scan_)
    batch.move_to(*after_release_);  // protect_after_release
  else
    batch.apply();
  home_stops_writing(unkept_.data(), unkept_.size());
  unkept_.clear();
}

void Hlrc::protect_after_release() {
  // A barrier's release write-protects the pages it is done with only once
  // the barrier's notices have invalidated what they name: no thread of the
  // node runs the program meanwhile (every one is in the barrier), and most
  // pages a scatter wrote are written by another node too, so their write
  // protection would be one more change to the page tables just before the
  // invalidation drops the page (a radix sort's destination).  What the
  // invalidations dropped, or changed otherwise, keeps its state.
  if (after_release_->empty()) return;
  std::lock_guard<FutexLock> g(mu_);
  after_release_->keep_only([this](size_t p) { return state_[p] == kReadOnly; });
  after_release_->apply();
}

void Hlrc::give_twins(const std::vector<uint32_t> &pages) {
  // New twins beyond the pool's slots are in the sparse arena, whose pages
  // get memory at their first touch: one fault each, a home's whole
  // partition of a phase (FFT's rows) at once.  Runs of them get their
  // memory in one call first.
  size_t run_start = 0, run_len = 0;
  auto flush_run = [&] {
    if (run_len > 1) SharedRegion::populate_private(twins_ + run_start * kPageBytes, run_len * kPageBytes);
    run_len = 0;
  };
  for (uint32_t p : pages) {
    races::PageLocks::Hold hold(twin_locks_, p);  // --races: against the diff handler
    take_twin_slot(p);
    has_twin_[p] = 1;
    if (twin_slot_[p] >= 0) continue;
    if (run_len && p != run_start + run_len) flush_run();
    if (run_len == 0) run_start = p;
    ++run_len;
  }
  flush_run();
}

void Hlrc::keep_written(const std::vector<uint32_t> &written) {
  // At a barrier, a home page kept for the first time gets its twin once
  // the barrier has brought the other nodes' notices: on probation, a page
  // another node wrote in the same epoch stops being kept there
  // (kept_home_page_written_elsewhere), and its twin would have been a
  // copy for nothing.  A radix sort's destination, written by every node
  // page after page, paid a copy of every home page it wrote (0.8 ms a
  // pass at 2 nodes).  Nothing reads the twin before: every thread of the
  // node is in the barrier, and the barrier's own steps skip a kept home
  // page without one.  (--races and scan mode keep twins at all times.)
  const bool defer = barrier_release_ && !races_ && !scan_;
  std::vector<uint32_t> fresh;
  for (uint32_t entry : written) {
    uint32_t p = notice_page(entry);
    if (state_[p] != kWritable || home_[p] != self_ || untracked_[p] || has_twin_[p]) continue;
    (defer ? deferred_home_pages_ : fresh).push_back(p);
  }
  give_twins(fresh);
  // More twins than a core's cache holds are evicted before the next
  // release compares them: streamed (twin_copy.hpp).  The interval's whole
  // written list is the measure; its home pages are most of it here.
  const bool streaming = written.size() > kStreamedRefreshPages;
  for (uint32_t entry : written) {
    uint32_t p = notice_page(entry);
    if (state_[p] != kWritable || home_[p] != self_) continue;  // elsewhere the diff brought the twin up to date
    if (untracked_[p] || !has_twin_[p]) continue;  // nobody had copied it, or deferred
    races::PageLocks::Hold hold(twin_locks_, p);  // --races: against the diff handler
    refresh_home_twin(p, streaming);
  }
}

void Hlrc::settle_deferred_home_pages() {
  if (deferred_home_pages_.empty()) return;
  std::lock_guard<FutexLock> g(mu_);
  // A page that no other node has a copy of any more (they dropped them on
  // this barrier's notices, and sent their uncounts first) goes back to
  // untracked, writable: a transpose's rows, copied in one phase and
  // written by their home in the next, cost no twin and no comparison, and
  // a radix sort's buckets, dropped from probation, no write protection.
  // The others get their twin (still kept) or are write-protected.
  std::vector<uint32_t> still;
  ProtectionBatch batch(*region_);
  bool fenced = false;
  for (uint32_t p : deferred_home_pages_) {
    if (home_[p] != self_ || state_[p] != kWritable || has_twin_[p] || untracked_[p]) continue;
    if (untrack_uncopied_home_page(p, fenced)) continue;
    if (kept_[p])
      still.push_back(p);
    else
      protect_unkept(p, batch);
  }
  deferred_home_pages_.clear();
  apply_unkeeping(batch);
  give_twins(still);
  const bool streaming = still.size() > kStreamedRefreshPages;
  for (uint32_t p : still) refresh_home_twin(p, streaming);
}

void Hlrc::unkeep(size_t page) {
  if (kept_.empty() || !kept_[page]) return;
  kept_[page] = 0;  // its list entry is swept at the next release
  free_twin(page);
}

void Hlrc::kept_home_page_written_elsewhere(size_t page, ProtectionBatch &batch) {
  if (races_) return;  // the diff handler kept the twin up to date (race_recording.cpp)
  const bool deferred = !has_twin_[page];  // its first twin is taken at the barrier's end, if kept
  if (quiet_since_release_ && keep_window_[page] == 0) {
    // On probation (kept since its first write) and written by another
    // node in the same epoch: a page shared by several writers (a radix
    // sort's buckets), more likely written once than phase after phase.
    // Not kept, rather than compared and its twin copied at every release
    // of its window: write-protected, as under rewrites=fault, unless
    // nobody copies it any more at the barrier's end.
    free_twin(page);
    if (!scan_) {
      kept_[page] = 0;
      deferred_home_pages_.push_back((uint32_t)page);
    } else {
      protect_unkept(page, batch);
    }
    return;
  }
  // At a barrier this node has not written the page since its release, so
  // a difference is only the other nodes' diffs: nothing to name.
  if (deferred) return;
  if (!quiet_since_release_ && differs_from_twin(page))
    note_kept_home_change(page);
  refresh_home_twin(page);
}

bool Hlrc::differs_from_twin(size_t page) {
  // Other nodes' one-sided diffs may write a home page during the
  // comparison: pages_differ reads each byte once, so a byte changing under
  // it cannot hide the home's own writes further on (memcmp re-reads the
  // first differing byte and can answer "equal" then).  Under --races the
  // diff handler also changes the twin, before the page
  // (race_recording.cpp); the lock (a no-op otherwise) keeps the
  // comparison from naming a page written for the moment between the two.
  races::PageLocks::Hold hold(twin_locks_, page);
  return pages_differ(region_->sys_page(page), twin(page), kPageBytes);
}

void Hlrc::note_kept_home_change(size_t page) {
  if (!written_[page] && others_versions(page) != twin_others_versions_[page]) maybe_written_[page] = 1;
  note_written(page);
}

void Hlrc::refresh_home_twin(size_t page, bool streaming) {
  // The versions first: a diff landing during the copy then shows as a
  // change of versions at the next comparison (named maybe written), never
  // as a write of the home's own.
  twin_others_versions_[page] = others_versions(page);
  if (streaming)
    copy_to_twin(twin_to_write(page, true), region_->sys_page(page), kPageBytes);
  else
    memcpy(twin_to_write(page, true), region_->sys_page(page), kPageBytes);
}

uint32_t Hlrc::others_versions(size_t page) {
  uint32_t sum = 0;
  for (int x = 0; x < nodes_; ++x)
    if (x != self_) sum += version(page, x).load(std::memory_order_acquire);
  return sum;
}

}  // namespace rdsm
