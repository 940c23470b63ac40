// Whole axis: a page whose diff is many small runs (floating-point rows
// where some bytes keep their value, keys whose high byte is zero) costs one
// remote write per run.  With `exclusive`, such a page goes home as one
// whole-page write when that cannot lose anybody's write.
//
// Writing the unchanged bytes too is safe only if, at every unchanged byte,
// the home's copy holds what this node's copy holds, and nobody changes it
// while the page is written.  The home's word of the page (page_word.hpp)
// tracks exactly that:
//   - Every change of the home's copy is announced in the word: a node
//     writing runs adds a writer before its data and removes it, adding a
//     generation, after its versions; the home's application sets `home`
//     before it can write (the page becomes writable there) and clears it,
//     adding a generation, once the page is write-protected again; a new
//     home taking a moved page adds a generation after reading it in.
//   - A copy's base is the word a fetch answered when it counted itself
//     (before it read the page): if nobody was changing the page then, the
//     copy holds the home's copy as of that generation.  A runs flush that
//     found the word quiet at that generation and alone when it ended leaves
//     the copy equal to the home's again, one generation on.
//   - A whole-page write claims the word by compare-and-swap, from quiet at
//     the copy's generation to `whole` plus one writer, writes the page and
//     releases the word at once (a claim held over a whole flush would make
//     the home's write faults on those pages wait for all of it).  Succeeding proves
//     that nobody changed the home's copy since the copy was taken, and
//     nobody will while `whole` is set: the home waits for it to clear
//     before it writes; a runs writer registering meanwhile writes its runs,
//     and again once `whole` is clear (its first write may have been
//     overwritten with the older bytes).  Nobody waits while holding
//     `whole`, so there is no deadlock between two nodes flushing.
//   - A page that cannot go whole (its copy's base is unknown, or the home's
//     copy changed since) may still be written by a byte-masked write under
//     the same claim, from quiet at any generation: while `whole` is set
//     nobody else changes the home's copy, so a transport that maps it can
//     write each 32 bytes back whole, the unmasked bytes with the values
//     they hold (put_masked_alone).  A byte-masked store of a page whose
//     every word is only partly written (radix keys: the high byte stays
//     zero) costs four times as much (micro_masked).
//   - Such a claim may also be taken while `home` is set, if the home is
//     parked: its application threads are all in a barrier, from before
//     its release to the barrier's end (park, unpark), so none of them
//     writes; its release only reads its home pages (comparisons, twins),
//     as it may while other nodes' diffs arrive in any case.
//     The home's parked word (after the first-copy log) has the flag and
//     a count of nodes holding it; a flush to the home adds itself to the
//     count once (home_is_parked), sees the flag or takes itself off
//     again, and lets go after its last page there.  The home clears the
//     flag only once the count is zero, right after the barrier's wait and
//     before any of its own work on home pages (moves, twins), so no
//     application store and no write by the home's runtime meets a blend.
//     A scatter's pages (radix: the destination, homed by block, written
//     by every node) are writable at their home, untracked or kept, so
//     this is the case of the later node's flush: the other is in the
//     barrier already.
//   - Readers need nothing new: versions are written after the data as
//     always, and the bytes a whole-page write does not change it rewrites
//     with the values they already have.
// Generations wrap after 2^26 changes of a page between a copy's fetch and
// its flush; the claim could then succeed wrongly, which no run comes near.
#include <sched.h>
#include <cstdio>
#include <cstdlib>

#include "common/fault_inject.hpp"
#include "protocol/hlrc.hpp"

namespace rdsm {

namespace pw = page_word;

void Hlrc::home_starts_writing(size_t page) {
  if (!whole_pages() || home_writing_[page]) return;
  home_writing_[page] = 1;
  uint64_t w = copies_here(page).fetch_or(pw::kHome, std::memory_order_seq_cst);
  // A whole-page write in progress would overwrite what the application
  // writes next: it is short, and its writer waits for nobody.
  while (w & pw::kWhole) {
    sched_yield();
    w = copies_here(page).load(std::memory_order_acquire);
  }
}

void Hlrc::home_stops_writing(const uint32_t *pages, size_t count) {
  if (!whole_pages()) return;
  for (size_t i = 0; i < count; ++i) {
    uint32_t p = notice_page(pages[i]);
    if (!home_writing_[p] || (home_[p] == self_ && state_[p] == kWritable)) continue;
    // The application's stores came before the release that protected the
    // page (or moved its home away), on this thread: the generation covers
    // them.
    home_writing_[p] = 0;
    copies_here(p).fetch_add(pw::kGen - pw::kHome, std::memory_order_seq_cst);
  }
}

bool Hlrc::claimed_write(int home, uint32_t page, uint64_t &w, const uint64_t *mask, uint64_t *released) {
  const uint64_t off = page * sizeof(uint64_t);
  uint64_t seen = f_.cas(home, copies_seg_.id, off, w, w + pw::kWhole + pw::kWriter);
  if (seen != w) {
    w = seen;
    return false;
  }
  // Written and released at once: the claim is held for one page's write,
  // so the home and runs writers that meet it wait only that long.
  if (mask)
    f_.put_masked_alone(home, data_seg_.id, (uint64_t)page * kPageBytes, region_->sys_page(page), mask, kPageBytes);
  else
    f_.put(home, data_seg_.id, (uint64_t)page * kPageBytes, region_->sys_page(page), kPageBytes);
  f_.flush(home);
  fault_point("whole_page");
  *released = f_.fetch_add(home, copies_seg_.id, off, pw::kGen - pw::kWhole - pw::kWriter);
  return true;
}

bool Hlrc::write_whole(int home, uint32_t page) {
  uint32_t base = copy_gen_[page];
  if (base == pw::kNoGen) return false;
  uint64_t w = f_.atomic_load(home, copies_seg_.id, page * sizeof(uint64_t));
  // A few tries: the copy count may change under the claim.
  for (int attempt = 0; attempt < 4; ++attempt) {
    if (!pw::quiet(w) || pw::gen(w) != base) break;
    uint64_t before;
    if (claimed_write(home, page, w, nullptr, &before)) {
      // The home's copy is this copy now; a runs writer that registered
      // meanwhile adds its own generation when it ends.
      copy_gen_[page] = pw::gen(before + pw::kGen);
      return true;
    }
  }
  copy_gen_[page] = pw::kNoGen;  // changed by someone else: runs from now on
  return false;
}

bool Hlrc::write_masked_alone(int home, uint32_t page, const uint64_t *mask) {
  uint64_t w = f_.atomic_load(home, copies_seg_.id, page * sizeof(uint64_t));
  for (int attempt = 0; attempt < 4; ++attempt) {
    if (w & (pw::kWritersMask | pw::kWhole)) return false;
    if ((w & pw::kHome) && !home_is_parked(home)) return false;
    const uint64_t seen = w;
    uint64_t before;
    if (claimed_write(home, page, w, mask, &before)) {
      // The home's copy equals this copy only if nobody changed it since
      // the copy was taken: the bytes this node did not write are the
      // home's, which may be newer (the home's own writes show in the
      // generation only once it stops writing).
      copy_gen_[page] =
          pw::quiet(seen) && pw::gen(seen) == copy_gen_[page] ? pw::gen(before + pw::kGen) : pw::kNoGen;
      return true;
    }
  }
  return false;
}

bool Hlrc::home_is_parked(int home) {
  const uint64_t off = (pages_ + kParkedWord) * sizeof(uint64_t);
  if (runs_.parked == 0) {
    const uint64_t before = f_.fetch_add(home, copies_seg_.id, off, 1);
    runs_.parked = (before & pw::kParked) ? 1 : -1;
    if (runs_.parked < 0) f_.fetch_add(home, copies_seg_.id, off, (uint64_t)-1);
  }
  return runs_.parked > 0;
}

void Hlrc::let_go_of_parked(int home) {
  if (runs_.parked > 0) f_.fetch_add(home, copies_seg_.id, (pages_ + kParkedWord) * sizeof(uint64_t), (uint64_t)-1);
  runs_.parked = 0;
}

void Hlrc::park() {
  if (!whole_pages()) return;
  // Ordered after the release's stores to home pages: a node that sees the
  // flag reads them.
  copies_here(pages_ + kParkedWord)
      .fetch_or(pw::kParked | (uint64_t)epoch_stamp_ << pw::kParkedEpochShift, std::memory_order_seq_cst);
}

void Hlrc::unpark() {
  if (!whole_pages()) return;
  // Writers that hold the flag are in the middle of pages the application
  // may write next: wait for them (a flush to this node, short).
  uint64_t w = copies_here(pages_ + kParkedWord).load(std::memory_order_seq_cst);
  for (;;) {
    if (w & pw::kParkedHolders) {
      sched_yield();
      w = copies_here(pages_ + kParkedWord).load(std::memory_order_seq_cst);
      continue;
    }
    if (copies_here(pages_ + kParkedWord).compare_exchange_weak(w, 0, std::memory_order_seq_cst)) return;
  }
}

void Hlrc::register_runs(int home, size_t from) {
  if (from == runs_.held.size()) return;
  std::vector<fabric::Fabric::BatchOp> ops;
  ops.reserve(runs_.held.size() - from);
  for (size_t k = from; k < runs_.held.size(); ++k)
    ops.push_back(fabric::Fabric::BatchOp::add(copies_seg_.id, runs_.held[k].page * sizeof(uint64_t), pw::kWriter,
                                               &runs_.held[k].word));
  f_.batch(home, ops.data(), ops.size());
}

void Hlrc::rewrite_covered_runs(int home) {
  if (runs_.repeat_pages.empty()) return;
  for (uint32_t p : runs_.repeat_pages)
    while (f_.atomic_load(home, copies_seg_.id, p * sizeof(uint64_t)) & pw::kWhole) sched_yield();
  f_.putv(home, data_seg_.id, runs_.repeat_pieces.data(), runs_.repeat_pieces.size());
  for (size_t k = 0; k < runs_.repeat_masked.size(); ++k) {
    uint32_t p = runs_.repeat_masked[k];
    f_.put_masked(home, data_seg_.id, (uint64_t)p * kPageBytes, region_->sys_page(p),
                  runs_.repeat_masks.data() + k * (kPageBytes / 64), kPageBytes);
  }
  f_.flush(home);
}

void Hlrc::end_runs_writes(int home) {
  // One batch for all: each add's answer is all that is needed after it.
  std::vector<uint64_t> before(runs_.held.size());
  std::vector<fabric::Fabric::BatchOp> ops;
  ops.reserve(runs_.held.size());
  for (size_t k = 0; k < runs_.held.size(); ++k)
    ops.push_back(fabric::Fabric::BatchOp::add(copies_seg_.id, runs_.held[k].page * sizeof(uint64_t),
                                               pw::kGen - pw::kWriter, &before[k]));
  if (!ops.empty()) f_.batch(home, ops.data(), ops.size());
  for (size_t k = 0; k < runs_.held.size(); ++k) {
    const RunsFlush::HeldPage &h = runs_.held[k];
    // Equal to the home's copy only if the copy was when the flush began and
    // nobody else changed the home's copy while it ran.
    bool alone = pw::quiet(h.word) && pw::gen(h.word) == copy_gen_[h.page] &&
                 pw::writers(before[k]) == 1 && (before[k] & (pw::kWhole | pw::kHome)) == 0 &&
                 pw::gen(before[k]) == pw::gen(h.word);
    copy_gen_[h.page] = alone ? pw::gen(before[k] + pw::kGen) : pw::kNoGen;
  }
  runs_.clear();
}

}  // namespace rdsm
