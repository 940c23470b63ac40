// Which untracked home pages were copied since the home's last release.
//
// A home writes a page nobody has copied without tracking it (hlrc.hpp,
// untracked_): no write fault, no twin, no notice.  At every release it must
// find those pages that have been copied since, and from then on track them.
//
// The home makes a page untracked only by setting the `untracked` bit of
// its word in the same atomic step in which it sees no copy counted there
// (claim_untracked); the bit goes when the page is tracked again.  Every
// fetcher counts its copy in the word first, and one that finds the bit set
// (the home may be writing the page unnoticed) announces its copy before it
// reads the page: it adds one to the home's count of first copies, so a
// release whose count is unchanged costs one load.  Every such fetcher, not
// only the one that found no copy counted: a second fetcher that relied on
// the first one's announcement could read the page while the first was
// still between its two adds, and a release in that gap would see the count
// unchanged and go on writing the page unnoticed while the second copy
// went stale (a lost update under a lock).  A page the home tracks needs no
// announcement: its writes are noticed, and it cannot become untracked while
// a copy is counted.
//
// A count that moved used to make the release look at every untracked page
// (a load of each page's word), and it moves often: Ocean's readers drop
// their copies of a boundary row at each notice and copy it afresh at every
// one of its 25,000 barriers, while the home has thousands of untracked
// interior pages.  So the fetcher also logs the page: its add returned
// the entry's index, and it writes a tag of the index and the page into
// the entry's word, in a ring of kFirstCopyLog words after the count (a
// fetcher on the home's own node swaps it in from 0; one on another node
// writes the entries of all its copies at once, announce_first_copies).
// The home's release takes the entries from the count it saw last to the
// count it sees now, each swapped back to 0, and looks at their pages
// only.  Whatever the log cannot say (more entries than the ring holds, an
// entry not written yet, one left over from an earlier lap of the ring or
// overwritten by a later one) shows as an entry without its tag: the
// release then looks at every untracked page as before, which is always
// right, and a tag it finds is always its index's own page.  The order of
// the fetcher's steps (the page's word, the count, then the read of the
// page; the entry whenever) keeps the argument of close_interval: a home
// that does not see the count moved knows that every copy of an untracked
// page counted since is read after its load, so holds its stores; one that
// sees it and the entry knows which page; one that sees it but not the
// entry looks at them all.
#include "common/fault_inject.hpp"
#include "protocol/hlrc.hpp"
#include "protocol/page_word.hpp"

namespace rdsm {

namespace {
// An entry: the index's low 32 bits plus one (never 0, an empty word) above
// the page number.
uint64_t first_copy_tag(uint64_t index, size_t page) {
  return (((index & 0xffffffffu) + 1) << 32) | (uint32_t)page;
}
uint64_t log_offset(size_t pages, uint64_t index, uint64_t ring) {
  return (pages + 1 + index % ring) * sizeof(uint64_t);
}
}  // namespace

bool Hlrc::claim_untracked(size_t page, bool *fenced) {
  if (fenced && !*fenced) std::atomic_thread_fence(std::memory_order_seq_cst);
  if (fenced) *fenced = true;
  std::atomic_ref<uint64_t> word = copies_here(page);
  uint64_t w = word.load(std::memory_order_seq_cst);
  do {
    if (page_word::copies(w) != 0) return false;
  } while (!word.compare_exchange_weak(w, w | page_word::kUntracked, std::memory_order_seq_cst));
  if (!untracked_[page]) {
    untracked_list_[untracked_count_++] = (uint32_t)page;
    untracked_[page] = (uint32_t)untracked_count_;
  }
  return true;
}

void Hlrc::count_first_copy(size_t page, uint64_t before) {
  if (!(before & page_word::kUntracked)) return;
  uint64_t index = first_copies_here().fetch_add(1, std::memory_order_seq_cst);
  uint64_t empty = 0;
  uint64_t &entry = reinterpret_cast<uint64_t *>(copies_seg_.base)[log_offset(pages_, index, kFirstCopyLog) / 8];
  std::atomic_ref<uint64_t>(entry).compare_exchange_strong(empty, first_copy_tag(index, page),
                                                           std::memory_order_seq_cst);
}

// A fetcher's copies from another home, announced together: one add takes
// their entries' indices (the count moves by all of them at once), and the
// entries go as one posted write.  Only the count must reach the home
// before the pages are read (the argument above); an entry the home does
// not find (not arrived yet, or overwritten in the ring by a later one)
// only makes its release look at every untracked page, as the swap's
// failure did.  So a window of a transpose's rows costs one round trip for
// its announcements, not two for each row.  No allocation: the signal
// handler may be here (the scratch holds the entries).
void Hlrc::announce_first_copies(int home, size_t n) {
  if (n == 0) return;
  FetchRunsScratch &s = fetch_scratch_;
  fault_point("copy_counted");
  // With the count, in the same batch, the home's parked word for the
  // withheld diffs' guesses (note_first_copies).
  uint64_t index = 0, parked = 0;
  fabric::Fabric::BatchOp ops[2] = {fabric::Fabric::BatchOp::add(copies_seg_.id, pages_ * sizeof(uint64_t), n, &index),
                                    fabric::Fabric::BatchOp::add(copies_seg_.id, (pages_ + kParkedWord) * sizeof(uint64_t),
                                                                 0, &parked)};
  const bool guess = guesses_first_copies();
  f_.batch(home, ops, guess ? 2 : 1);
  if (guess) note_first_copies(n, parked);
  fault_point("first_copy_log");
  if (n > kFirstCopyLog) return;  // more than the ring holds: the home looks at them all anyway
  fabric::Fabric::Piece pieces[2];  // the ring wraps at most once
  size_t count = 0;
  for (size_t j = 0; j < n; ++j) {
    s.tags[j] = first_copy_tag(index + j, s.firsts[j]);
    uint64_t off = log_offset(pages_, index + j, kFirstCopyLog);
    if (count && pieces[count - 1].off + pieces[count - 1].n == off)
      pieces[count - 1].n += sizeof(uint64_t);
    else
      pieces[count++] = {off, &s.tags[j], sizeof(uint64_t)};
  }
  f_.putv(home, copies_seg_.id, pieces, count);
}

bool Hlrc::track_logged_first_copies(uint64_t from, uint64_t to) {
  auto *words = reinterpret_cast<uint64_t *>(copies_seg_.base);
  const bool fits = to - from <= kFirstCopyLog;
  bool complete = fits;
  // A ring overrun is cleared whole, for the fetchers to come.
  const uint64_t first = fits ? from : 0, last = fits ? to : kFirstCopyLog;
  for (uint64_t index = first; index < last; ++index) {
    uint64_t &word = words[log_offset(pages_, index, kFirstCopyLog) / 8];
    uint64_t entry = std::atomic_ref<uint64_t>(word).exchange(0, std::memory_order_seq_cst);
    if (!fits) continue;
    uint32_t page = (uint32_t)entry;
    if (entry != first_copy_tag(index, page) || page >= pages_) {
      complete = false;
      continue;
    }
    if (untracked_[page] && copied_at_home(page)) track_copied_page(page);
  }
  return complete;
}

void Hlrc::unlist_untracked(size_t page) {
  // The list's last page moves into this one's place: a page leaves in
  // constant time, as pages do at most releases (a boundary row copied
  // afresh after each barrier, among thousands of pages written untracked).
  const uint32_t at = untracked_[page] - 1, last = untracked_list_[--untracked_count_];
  untracked_list_[at] = last;
  untracked_[last] = at + 1;
  untracked_[page] = 0;
  copies_here(page).fetch_and(~page_word::kUntracked, std::memory_order_seq_cst);
}

void Hlrc::track_copied_page(uint32_t page) {
  unlist_untracked(page);
  if (!written_[page]) {
    maybe_written_[page] = 1;
    note_written(page);
  }
  if (scan_) rearm_.push_back(page);  // watched from now on
}

}  // namespace rdsm
