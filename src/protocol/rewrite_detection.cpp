// Rewrite axis: how a node learns that it wrote a page again in a later
// interval.
//   fault:   at release every written page is write-protected again, so the
//            next write to it faults (the seeds);
//   compare: a page written in an interval stays writable ("kept") after
//            the release, with its twin brought up to date; at the next
//            release a comparison with the twin says whether it was written
//            again: if so it is diffed (or, at its home, named in the
//            notices) and kept once more, if not it is write-protected and
//            its twin freed.  A page written interval after interval (a
//            boundary row, a bucket shared by two nodes, a lock-protected
//            counter) then costs one comparison per release instead of a
//            fault, a twin copy and two protection changes.  A page stays
//            kept through a few releases that find it unwritten
//            (kKeepIdleReleases - 1), for pages written every other
//            interval or so: a lock-protected tree whose nodes a node
//            updates now and again (Barnes' build) saves the fault, the
//            twin and the two protection changes for the price of a
//            comparison or two.
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
#include <cstring>

#include "protocol/hlrc.hpp"
#include "stats/stats.hpp"

namespace rdsm {

bool Hlrc::untrack_uncopied_home_page(size_t page, bool &fenced) {
  if (scan_ || races_ || home_[page] != self_ || !uncopied_after_fence(page, fenced)) return false;
  kept_[page] = 0;
  free_twin(page);
  mark_untracked(page);
  return true;
}

void Hlrc::sweep_kept(ProtectionBatch &batch) {
  size_t kept = 0;
  bool fenced = false;
  for (size_t i = 0; i < kept_count_; ++i) {
    uint32_t p = kept_list_[i];
    if (!kept_[p]) continue;  // dropped since (invalidated, moved)
    if (written_[p] || memcmp(region_->sys_page(p), twin(p), kPageBytes) != 0) {
      if (untrack_uncopied_home_page(p, fenced)) continue;  // written, with nobody to tell
      kept_[p] = 1;
      note_written(p);
      kept_list_[kept++] = p;
      continue;
    }
    // Not written again: kept a while longer (unless opened ahead: those
    // were a guess), then write-protected until the next write fault.
    if (kept_[p] == 1 || (kept_[p] >= kKeptIdle && kept_[p] < kKeptIdle + kKeepIdleReleases - 2)) {
      kept_[p] = kept_[p] == 1 ? kKeptIdle : kept_[p] + 1;
      kept_list_[kept++] = p;
      continue;
    }
    if (kept_[p] == kKeptAhead) add(stats().write_ahead_unused);
    kept_[p] = 0;
    free_twin(p);
    state_[p] = kReadOnly;
    batch.set(p, Prot::read);
    if (home_[p] == self_) unkept_.push_back(p);
  }
  kept_count_ = kept;
}

void Hlrc::keep_written(const std::vector<uint32_t> &written) {
  bool fenced = false;
  for (uint32_t entry : written) {
    uint32_t p = notice_page(entry);
    if (state_[p] != kWritable) continue;  // invalidated meanwhile
    if (home_[p] == self_) {
      if (untracked_[p] || untrack_uncopied_home_page(p, fenced)) continue;
      races::PageLocks::Hold hold(twin_locks_, p);  // --races: against the diff handler
      if (!has_twin_[p]) {
        take_twin_slot(p);
        has_twin_[p] = 1;
      }
      memcpy(twin(p), region_->sys_page(p), kPageBytes);
    }  // elsewhere the diff brought the twin up to date
    if (!kept_[p]) {
      kept_[p] = 1;
      kept_list_[kept_count_++] = p;
    }
  }
}

void Hlrc::unkeep(size_t page) {
  if (kept_.empty() || !kept_[page]) return;
  kept_[page] = 0;  // its list entry is swept at the next release
  free_twin(page);
}

void Hlrc::kept_home_page_written_elsewhere(size_t page) {
  if (races_) return;  // the diff handler kept the twin up to date (race_recording.cpp)
  uint8_t *copy = region_->sys_page(page);
  if (memcmp(copy, twin(page), kPageBytes) != 0) note_written(page);
  memcpy(twin(page), copy, kPageBytes);
}

}  // namespace rdsm
