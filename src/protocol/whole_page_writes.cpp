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
//   - Readers need nothing new: versions are written after the data as
//     always, and the bytes a whole-page write does not change it rewrites
//     with the values they already have.
// Generations wrap after 2^26 changes of a page between a copy's fetch and
// its flush; the claim could then succeed wrongly, which no run comes near.
#include <sched.h>

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

bool Hlrc::write_whole(int home, uint32_t page) {
  uint32_t base = copy_gen_[page];
  if (base == pw::kNoGen) return false;
  uint64_t w = f_.atomic_load(home, copies_seg_.id, page * sizeof(uint64_t));
  // A few tries: the copy count may change under the claim.
  for (int attempt = 0; attempt < 4; ++attempt) {
    if (!pw::quiet(w) || pw::gen(w) != base) break;
    uint64_t seen = f_.cas(home, copies_seg_.id, page * sizeof(uint64_t), w, w + pw::kWhole + pw::kWriter);
    if (seen == w) {
      // Written and released at once: the claim is held for one page's
      // write, so the home and runs writers that meet it wait only that long.
      f_.put(home, data_seg_.id, (uint64_t)page * kPageBytes, region_->sys_page(page), kPageBytes);
      f_.flush(home);
      fault_point("whole_page");
      uint64_t before = f_.fetch_add(home, copies_seg_.id, page * sizeof(uint64_t), pw::kGen - pw::kWhole - pw::kWriter);
      // The home's copy is this copy now; a runs writer that registered
      // meanwhile adds its own generation when it ends.
      copy_gen_[page] = pw::gen(before + pw::kGen);
      return true;
    }
    w = seen;
  }
  copy_gen_[page] = pw::kNoGen;  // changed by someone else: runs from now on
  return false;
}

void Hlrc::register_runs(int home, size_t from) {
  if (from == held_.size()) return;
  std::vector<fabric::Fabric::BatchOp> ops;
  ops.reserve(held_.size() - from);
  for (size_t k = from; k < held_.size(); ++k)
    ops.push_back(fabric::Fabric::BatchOp::add(copies_seg_.id, held_[k].page * sizeof(uint64_t), pw::kWriter,
                                               &held_[k].word));
  f_.batch(home, ops.data(), ops.size());
}

void Hlrc::rewrite_covered_runs(int home) {
  if (repeat_pages_.empty()) return;
  for (uint32_t p : repeat_pages_)
    while (f_.atomic_load(home, copies_seg_.id, p * sizeof(uint64_t)) & pw::kWhole) sched_yield();
  f_.putv(home, data_seg_.id, repeat_pieces_.data(), repeat_pieces_.size());
  for (size_t k = 0; k < repeat_masked_.size(); ++k) {
    uint32_t p = repeat_masked_[k];
    f_.put_masked(home, data_seg_.id, (uint64_t)p * kPageBytes, region_->sys_page(p),
                  repeat_masks_.data() + k * (kPageBytes / 64), kPageBytes);
  }
  f_.flush(home);
}

void Hlrc::end_runs_writes(int home) {
  // One batch for all: each add's answer is all that is needed after it.
  std::vector<uint64_t> before(held_.size());
  std::vector<fabric::Fabric::BatchOp> ops;
  ops.reserve(held_.size());
  for (size_t k = 0; k < held_.size(); ++k)
    ops.push_back(fabric::Fabric::BatchOp::add(copies_seg_.id, held_[k].page * sizeof(uint64_t),
                                               pw::kGen - pw::kWriter, &before[k]));
  if (!ops.empty()) f_.batch(home, ops.data(), ops.size());
  for (size_t k = 0; k < held_.size(); ++k) {
    const HeldPage &h = held_[k];
    // Equal to the home's copy only if the copy was when the flush began and
    // nobody else changed the home's copy while it ran.
    bool alone = pw::quiet(h.word) && pw::gen(h.word) == copy_gen_[h.page] &&
                 pw::writers(before[k]) == 1 && (before[k] & (pw::kWhole | pw::kHome)) == 0 &&
                 pw::gen(before[k]) == pw::gen(h.word);
    copy_gen_[h.page] = alone ? pw::gen(before[k] + pw::kGen) : pw::kNoGen;
  }
  held_.clear();
  repeat_pieces_.clear();
  repeat_masked_.clear();
  repeat_masks_.clear();
  repeat_pages_.clear();
}

}  // namespace rdsm
