// Home axis: `fixed` keeps a page's home where placement or first touch put
// it; `migrate` moves it, at barriers, to the node that alone writes it, so
// that node's later writes need no twin and no diff (the shape of SPLASH
// programs: the master initialises everything, then each worker rewrites
// its own part in every phase).
//
// The decision needs no message.  After a barrier every node knows every
// interval up to the barrier's clock `target` (the barrier axes guarantee
// it), and intervals never change, so every node sees the same writers of
// each page in the epoch (since, target] and takes the same decisions, in
// the same order, with the same per-page history:
//   - a page written in the epoch by one node w only moves to w, unless the
//     page's last written epoch had another single writer (hysteresis: a
//     page that alternates between writers, such as NBodyW's bodies, stays);
//   - and only if the move is likely to pay: w wrote the page alone in its
//     last written epoch too (it keeps writing it), or w wrote alone every
//     page of the aligned group of kMoveGroup pages around it (a partition
//     of w's, as SPLASH programs lay out their data, whose home was the
//     master that initialised it).  A page written once by w among pages
//     other nodes write (a radix sort's permutation, whose buckets are
//     shared page by page) stays: its home, which will read it, would
//     otherwise fetch it back, for no write saved at w.  The group rule
//     does not count a page its home named "maybe written" in the epoch:
//     the home may have written it then (the buckets again, which the home
//     fills unnoticed while w copies them to write its part), so it moves
//     only once w wrote it alone in two epochs (a SPLASH worker's part of
//     the master's data, written phase after phase, moves one epoch later);
//     a page of such a group that w changed only in part (its notice says
//     kPartlyWritten: some 64-byte stretch left as it was; one-sided diffs
//     only) moves by the budget below, not with its group: the home may
//     have written the rest unnoticed, before w's copy or after it (a radix
//     sort's buckets, every process filling a part of each page);
//   - a page some node wrote in two intervals of one epoch (under a lock,
//     released and taken again) moves only to that node, ever: a writer
//     that is not the home pays a twin and a diff per interval, so the
//     page belongs with it rather than with a node that writes it once an
//     epoch.  Barnes' cells, created under the build's locks by one node
//     and summed up by another node's centre-of-mass pass once a step,
//     moved to the summing node whenever it wrote them alone two epochs
//     in a row (steps whose build left them alone), then cost their
//     creator a twin and a diff per lock: 2 nodes, 65,536 bodies, 12
//     steps, twins 20,751 -> 12,709 and diffs 48,362 -> 29,033 summed
//     over the nodes; 4 nodes, paper size, diffs 2,118 -> 520; SPLASH
//     programs' moves unchanged (their phases write a page once between
//     barriers);
//   - a page moves at most kMoveBudget times (no endless ping-pong);
//   - a barrier makes at most history_.budget moves by the second-epoch rule
//     (the group rule's are not counted, nor those of a whole group w wrote
//     alone in two epochs whose home named it maybe written: no scatter), a
//     budget that doubles whenever a barrier spends it all: 64 first, then
//     128, 256...;
//   - a move is regretted when a node other than the new home writes the
//     page later; once a quarter of 64 or more moves are, no page moves any
//     more.
// The last two are for pages that look written alone only because a home's
// writes are unnoticed (above): a radix sort's keys, which each node
// generates in its part of the array before the others scatter into it,
// and its buckets, written by the home and one other node in the same
// epoch.  Every such page moved, one epoch after its second writer was
// seen, and stayed at the wrong node: its old home then paid the twin, the
// diff and the fetch back, each iteration (a radix sort of 2.6 million keys
// with 30 iterations at 2 nodes: 3,200 pages moved to each node, 1.2 to 1.3
// times the time of home=fixed).  With the budget the first of them move,
// their old homes' next writes regret them, and nothing else moves (6 and
// 196 pages moved to the two nodes, in about 0.8 of the time, as home=fixed
// within noise).  A SPLASH program's moves are rarely regretted: the
// master's data goes to the worker that keeps writing it alone.  The
// counts, as the decisions, come from the same notices at every node.
// The first decision about a page also tells nodes that never looked up its
// home where it is, so afterwards every node knows the home alike.
//
// The new home keeps its own copy if that copy survived the barrier's
// catch-up: w wrote the page alone in the epoch, and every other change of
// the page up to `target` came with a notice that dropped w's copy (writes
// the old home made while nobody held a copy included, which its notices
// name as "maybe written", kMaybeWritten: not counted as writes here, but
// they invalidate like any notice).  Otherwise w takes the old home's copy,
// which holds every write of every interval up to `target` (all diffs were
// applied before the barrier, and the old home's own writes are in it),
// with one read.  A SPLASH worker that fetched its part of the master's
// data, wrote it and sent it home so becomes its home without reading it
// a second time.
// Nobody writes the page at the old home any more: every node has learnt of
// the move before its next access.  w then sets its version vector of the
// page to `target` (what any node may require, until newer intervals of the
// new home come) before anyone can read the page from it.
//
// Invariants that keep one-sided readers and claims correct:
//   - Only the current home's `copies` word of a page is ever counted up:
//     readers count themselves at the home they know, and they learn of a
//     move at the same barrier as everyone.  Every copy counted at the old
//     home is counted out there when it is dropped, at the move at the
//     latest, so the old home's count is back to zero before the next
//     barrier (before the page could move back), and the new home's word
//     counts only readers that already learnt of the move.  With whole-page
//     writes the old home has also cleared its `home` flag (at the move),
//     and the new home adds a generation after reading the page in, so a
//     copy counted there early has no base (whole_page_writes.cpp).
//   - Every node other than the new home drops its copy of a moved page: a
//     copy counted at the old home is unknown to the new one, which would
//     otherwise write the page as untracked under it.
//   - A reader that fetches from the new home before it has taken over sees
//     a version below what its notices require (the new home's entry for
//     itself names the epoch's writes, newer than anything it held for the
//     page before) and retries until the versions are set: it never reads a
//     stale copy.  Message fetches that arrive too early wait in the new
//     home's deferred list, served when the home's handler is told of the
//     move (kHomesMoved, sent to itself after the versions are set).
//   - The directory word is moved by compare-and-swap from the old home to
//     the new one.  A first-touch claim CASes only a word that is still 0,
//     and a moved page has had a home since before the epoch, so a claim and
//     a move can never both win.  Nobody looks a moved page up anyway: every
//     node knows its home from the move itself.
//
// Withheld diffs (one-sided fetches and diffs, pushed notices, atomic
// barrier): at the release that arrives at a barrier, a written copy whose
// home will likely move here at that barrier (this node wrote it alone in
// its last written epoch too, or wrote its whole aligned group for the
// first time; withhold_likely_moves says which of the rules above it can
// apply alone) keeps its twin and sends no diff; its notice entry carries
// kWithheld.  The epoch that moves a SPLASH worker's part of the master's
// data so costs neither the diff nor, at the home, its bytes.
//   - The move made, the copy is the page: it holds every write up to the
//     barrier, as a kept copy does (above), and the twin goes.
//   - Another writer's notice names the page at the catch-up (it will not
//     move here, or the copy is dropped): the diff goes home at once,
//     before the copy is dropped and before a move reads the old home.
//   - The home's own notice names it "maybe written" and nobody else's
//     does (keep_withheld_on): the home may have written the page
//     untracked before it learnt of this node's copy.  Such a notice does
//     not stop the move of a page written alone before (rare: the home
//     must have gone back to writing it unnoticed in between), so the copy
//     is kept: at the move it takes the old home's bytes wherever it still
//     equals its twin (in a data-race-free program no byte was written by
//     both), one read instead of sending the diff, dropping the copy and
//     reading the page back.  If the page stays (as a group written whole
//     for the first time does then), its diff goes home at settle_withheld
//     and the copy, maybe stale, is dropped there.
//   - Still here after the moves: the barrier sends the diff before it
//     returns (settle_withheld), with the version of the withheld interval.
//   - Readers past the barrier require that interval's version, so a fetch
//     from the old home waits for the diff; the old home itself, which
//     reads its pages without versions, waits for them before it leaves
//     the barrier (await_withheld_diffs).
//   - A page whose writes of the same interval already went home (an
//     acquire outside a barrier dropped the copy, apply_notices) is never
//     withheld: that diff raised the version readers would wait for.
//   - A page once withheld for a move that did not happen
//     (withhold_missed_: another node wrote it too, found at the catch-up,
//     or at the moves if its notice came before this node's release) is
//     never withheld again: it is shared, not on its way here.  Ocean's
//     boundary pages of the coarse grids, written by one process alone in
//     some epochs and by both in the next, were withheld at nearly every
//     barrier (640 a run of 5,500 barriers at -n258, none of them moved),
//     each diff then sent after the barrier while the home waited for it
//     (await_withheld_diffs): its parallel phase at 2 processes 0.075 ->
//     0.067 s (medians of 21 runs alternated).  A page that would have
//     moved later costs one diff.
//   - Nobody may count on a withheld interval before passing its barrier:
//     a node learns it only once a barrier's clock covers it (hlrc.hpp,
//     learn_at_barrier_), so no lock released in the epoch carries it in
//     its clock to an acquirer that would wait for the diff while the
//     writer waits in the barrier.
#include <algorithm>
#include <cstring>

#include "common/error.hpp"
#include "common/fault_inject.hpp"
#include "fabric/masked_copy.hpp"
#include "protocol/diff.hpp"
#include "protocol/hlrc.hpp"
#include "protocol/msg_types.hpp"
#include "sync/locks.hpp"
#include "stats/stats.hpp"

namespace rdsm {

namespace {
constexpr uint8_t kMoveBudget = 8;
constexpr int16_t kNoWriter = MoveHistory::kNoWriter, kManyWriters = MoveHistory::kManyWriters;
constexpr size_t kMoveGroup = 16;
constexpr uint8_t kWithheldMerge = 2;  // withheld_: the home may have written the page too
constexpr size_t kRegretSample = 64;   // moves made before their regrets may stop the moves
constexpr uint8_t kGroupAlone = 1;      // migrate_homes: the page's aligned group written by its writer alone
constexpr uint8_t kGroupHomeMaybe = 2;  // ... but the page named maybe written by its home

// A page of an aligned group that moved to `w` already counts as w's in
// the whole-group rule (migrate_homes, withhold_likely_moves): w writes its
// own home pages unnoticed.  Moved pages only: their homes are known alike
// everywhere.
bool moved_to(uint8_t moves, int16_t home, int w) { return moves != 0 && home == w; }
}  // namespace

bool Hlrc::keep_withheld_on(size_t page, uint32_t entry, int writer) {
  if (!(entry & kMaybeWritten) || writer != home_[page] || history_.moves[page] != 0) return false;
  withheld_[page] = kWithheldMerge;
  return true;
}

bool MoveHistory::moves_to_writer(int16_t last, int16_t w, bool whole_group, uint8_t moves, int16_t often) {
  return (last == kNoWriter || last == w) && (last == w || whole_group) && moves < kMoveBudget &&
         (often == kNoWriter || often == w);
}

void Hlrc::migrate_homes(const VClock &since, const VClock &target) {
  if (history_.stopped) return;  // for good: no writer needs tracking any more
  std::vector<uint32_t> touched, home_maybe, partly;
  notices_.visit(since, target, [&](const Interval &iv) {
    for (uint32_t entry : iv.pages) {
      uint32_t p = notice_page(entry);
      if (entry & kPartlyWritten) partly.push_back(p);
      if (history_.on_trial[p] && (int)iv.writer != (int)home_[p]) {
        history_.on_trial[p] = 0;
        ++history_.regretted;
      }
      // "Maybe written" names what a home may have written unnoticed: writes
      // to a page nobody had copied, or a difference from its twin that
      // other nodes' diffs may have made (rewrite_detection.cpp).  Before a
      // page's first move such a notice is the master's set-up, not counted
      // (the old home's copy has it anyway), or no SPLASH page would ever
      // move.  After a move it comes from the new home, which writes the
      // page unnoticed while nobody copies it: counted, or a page two nodes
      // write in turns looks written by the other node alone, epoch after
      // epoch, and moves back and forth.
      if ((entry & kMaybeWritten) && (history_.moves[p] == 0 || (int)home_[p] != (int)iv.writer)) {
        if (history_.moves[p] == 0) home_maybe.push_back(p);
        continue;
      }
      auto &e = history_.epoch_writer[p];
      if (e == kNoWriter) {
        e = (int16_t)iv.writer;
        touched.push_back(p);
      } else if (e != (int16_t)iv.writer) {
        e = kManyWriters;
      } else {
        history_.often_writer[p] = (int16_t)iv.writer;  // a second interval of its in this epoch
      }
    }
  });
  if (history_.made >= kRegretSample && history_.regretted * 4 >= history_.made) history_.stopped = true;
  if (touched.empty()) return;
  // The same order everywhere, so that a fault injected at the N-th move
  // means the same page on every run.
  std::sort(touched.begin(), touched.end());

  // Whether the aligned group of kMoveGroup pages around each touched page
  // was written in the epoch by that page's writer alone (read before the
  // loop below resets the epoch's writers).  A page of the group moved to
  // the writer already and written by nobody else counts as the writer's
  // (moved_to).  A SPLASH LU worker's part, some of whose
  // pages the budget had moved, was otherwise left to the budget for good,
  // its diffs sent home at every barrier until then.
  std::vector<uint8_t> in_run(touched.size(), 0);
  for (size_t i = 0; i < touched.size(); ++i) {
    uint32_t p = touched[i];
    int16_t w = history_.epoch_writer[p];
    if (w < 0) continue;
    size_t first = p & ~(size_t)(kMoveGroup - 1);
    bool all = first + kMoveGroup <= pages_;
    for (size_t q = first; all && q < first + kMoveGroup; ++q)
      all = history_.epoch_writer[q] == w ||
            (history_.epoch_writer[q] == kNoWriter && moved_to(history_.moves[q], home_[q], w));
    in_run[i] = all ? kGroupAlone : 0;
  }
  // A page its home named maybe written in the epoch may have been written
  // by the home too: it is w's alone only if w wrote it alone before, and
  // then it moves outside the budget, which is for scattered pages.
  // Either way a group's page goes outside the budget only if w changed
  // all of it (no kPartlyWritten, above).  Every bucket page of an
  // iterated radix sort (2.6 M keys, 5 iterations, 2 nodes) moved with its
  // group, 800 a node at one barrier, before any move could be regretted,
  // and its old home fetched it back every pass after: 0.107 s against
  // 0.088 with home=fixed.
  std::sort(partly.begin(), partly.end());
  if (!home_maybe.empty()) {
    std::sort(home_maybe.begin(), home_maybe.end());
    for (size_t i = 0; i < touched.size(); ++i)
      if (in_run[i] && std::binary_search(home_maybe.begin(), home_maybe.end(), touched[i]))
        in_run[i] = kGroupHomeMaybe;
  }

  std::vector<uint32_t> became_home;
  std::lock_guard<FutexLock> g(mu_);
  ProtectionBatch batch(*region_);
  size_t moved = 0, budgeted = 0;
  for (size_t i = 0; i < touched.size(); ++i) {
    uint32_t p = touched[i];
    int16_t w = history_.epoch_writer[p], last = history_.last_writer[p];
    history_.epoch_writer[p] = kNoWriter;
    history_.last_writer[p] = w;
    const bool group = in_run[i] == kGroupAlone;
    if (w < 0 || history_.stopped ||
        !MoveHistory::moves_to_writer(last, w, group, history_.moves[p], history_.often_writer[p]))
      continue;
    const bool budget = std::binary_search(partly.begin(), partly.end(), p) ||
                        (!group && !(in_run[i] == kGroupHomeMaybe && last == w));
    if (budget && budgeted == history_.budget) continue;
    bool first = history_.moves[p] == 0;
    if (!first && home_[p] == w) continue;  // already there, and known so everywhere
    // Counted whether or not the page was there already: a node that has
    // not looked its home up cannot tell, and the counts must agree.
    history_.on_trial[p] = 1;
    ++history_.made;
    if (budget) ++budgeted;
    ++history_.moves[p];
    ++moved;
    move_home(p, w, target, batch, became_home);
  }
  batch.apply();
  send_uncounts();
  if (budgeted == history_.budget) history_.budget *= 2;
  if (moved == 0) return;
  // Pages dropped from the written list were only marked; sweep once.
  size_t kept = 0;
  for (size_t i = 0; i < written_count_; ++i)
    if (written_[written_list_[i]]) written_list_[kept++] = written_list_[i];
  written_count_ = kept;
  if (cfg_.fetch == FetchAxis::message && !became_home.empty())
    f_.send(self_, msg::kHomesMoved, became_home.data(), became_home.size() * sizeof(uint32_t));
}

void Hlrc::move_home(size_t p, int to, const VClock &target, ProtectionBatch &batch,
                     std::vector<uint32_t> &became_home) {
  int old = home_[p];
  if (old == to) return;
  if (!withheld_.empty() && withheld_[p]) {
    // The move its diff was withheld for: this copy is the page.  (Only
    // this node wrote it in the epoch, so it cannot move elsewhere.)
    if (to != self_) fatal("internal error: page %zu, whose diff node %d withheld, moves to node %d", p, self_, to);
    if (withheld_[p] == kWithheldMerge) take_unwritten_bytes(p, old);
    withheld_[p] = 0;
    free_twin(p);
  }
  uncount_copy(p);  // at the old home, where it was counted (migrate_homes sends it)
  unkeep(p);  // a kept page's twin served the old home; a new start below
  home_[p] = (int16_t)to;
  if (old >= 0) fault_point("home_migration");
  if (to == self_) {
    // In scan mode every copy has a twin; released at this barrier, it is
    // clean, and a home page needs none.
    if (scan_) free_twin(p);
    if (old < 0 || has_twin_[p])
      fatal("internal error: page %zu moves its home here, but this node, its only writer, has %s", p,
            old < 0 ? "never known its home" : "an unsent twin");
    // A copy still valid after this barrier's catch-up holds every write up
    // to the barrier: this node wrote the page alone in the epoch, and any
    // other change (an earlier epoch's, or the old home's untracked writes,
    // named as maybe written) came with a notice that dropped the copy.
    // Otherwise the old home's copy holds them all, its own included.
    // Nobody writes it there any more, and nobody reads it here before the
    // versions below.
    if (state_[p] == kInvalid) f_.get(old, data_seg_.id, p * kPageBytes, region_->sys_page(p), kPageBytes);
    // A copy counted here before the move has no base in what was read.
    if (whole_pages()) copies_here(p).fetch_add(page_word::kGen, std::memory_order_seq_cst);
    if (state_[p] != kReadOnly) {  // invalid, or writable because it was kept
      state_[p] = kReadOnly;
      batch.set(p, Prot::read);
    }
    // This node's own entry last.  It wrote the page in the epoch that moved
    // it, so every reader's notices require that entry: nobody passes a
    // fetch check, and so nobody can write the page and raise another
    // entry by its diff, before the other entries are stored.  (Stored
    // later, an entry could lower a version a diff had just raised, and a
    // reader needing it would retry for ever; found by models/.)
    for (int x = 0; x < nodes_; ++x)
      if (x != self_) version(p, x).store(target[x], std::memory_order_release);
    version(p, self_).store(target[self_], std::memory_order_release);
    int dir = (int)(p % nodes_);
    uint64_t seen = f_.cas(dir, dir_seg_.id, p * sizeof(uint64_t), (uint64_t)old + 1, (uint64_t)self_ + 1);
    if (seen != (uint64_t)old + 1)
      fatal("internal error: the directory of page %zu names node %d, not the old home %d", p, (int)seen - 1, old);
    if (!scan_ && !races_ && claim_untracked(p)) {
      // Nobody has counted a copy here yet: write it untracked, as a home
      // page nobody copied (hlrc.hpp).
      home_starts_writing(p);
      state_[p] = kWritable;
      batch.set(p, Prot::read_write);
    }
    became_home.push_back((uint32_t)p);
    add(stats().migrations);
    return;
  }
  if (old == self_) {
    if (untracked_[p]) unlist_untracked(p);
    // The application is in this barrier: it writes nothing here until it
    // learns the new home.
    uint32_t entry = (uint32_t)p;
    home_stops_writing(&entry, 1);
  }
  // The open interval began at this barrier's release, and the application
  // has not run since, so a note in it names no write of this node: only a
  // kept home page that the catch-up found changed by others' diffs
  // (rewrite_detection.cpp).  Named here, it would require a version the new
  // home never gets from this node.
  if (written_[p]) written_[p] = 0;  // swept from the list by the caller
  if (state_[p] != kInvalid) {
    if (state_[p] == kPrefetched) prefetch_dropped(p);
    free_twin(p);  // scan mode: the clean copy's twin
    state_[p] = kInvalid;
    batch.set(p, Prot::none);
    add(stats().invalidations);
  }
}

bool Hlrc::may_withhold() const {
  // One-sided fetches and diffs, and notices pushed at release with the
  // atomic barrier: the readers that may find a withheld page missing at
  // its home wait for its version, and need nobody's handler for it.
  return cfg_.home == HomeAxis::migrate && cfg_.coherence == CoherenceAxis::software && nodes_ > 1 &&
         cfg_.fetch == FetchAxis::one_sided && cfg_.diff == DiffAxis::one_sided &&
         cfg_.notices == NoticeAxis::eager_push && cfg_.barrier == BarrierAxis::atomic && !scan_ && !races_;
}

void Hlrc::withhold_likely_moves(std::vector<uint32_t> &dirty, std::vector<uint32_t> &written, uint32_t id) {
  if (dirty.empty() || history_.stopped) return;  // nothing moves any more: nothing to wait for
  // The rules of migrate_homes, as far as this node can apply them before
  // it knows what the others wrote: it wrote the page before as the only
  // writer, or it wrote the whole aligned group around it in this interval
  // (a SPLASH worker's first phase over its part of the master's data).  A
  // page written for the first time among pages it did not write (a radix
  // sort's buckets, shared page by page) is likely written by others too:
  // its diff waiting for the barrier's end would make the home wait for it
  // there, for no move.  Two more of those rules are known here:
  //   - a page whose first copy at a home writing it untracked this node
  //     counted in the epoch, before that home began its barrier
  //     (note_first_copies), is named "maybe written" by the home at its
  //     release, so its whole group does not move it; only a page this
  //     node wrote alone before does (a SPLASH worker's part moves one
  //     epoch later, a radix sort's destination written whole by one
  //     process stays);
  //   - at most history_.budget pages move by the second-epoch rule alone, the
  //     lowest first.
  // A guess that is still wrong (another node, or the home unnoticed,
  // wrote a page of the group too) costs its diff at the catch-up or at the
  // barrier's end, where the home waits for it: a radix sort's second pass
  // of 16 M keys, whose destination pages one process writes whole and the
  // other homes, had 2,000 diffs a process sent there, 8-11 ms of the
  // barrier at each process for no move.
  std::vector<uint32_t> sorted(dirty);
  std::sort(sorted.begin(), sorted.end());
  // As migrate_homes counts it: pages that moved here already are this
  // node's.  Asked in page order, so each group is looked at once.
  size_t group_first = SIZE_MAX;
  bool group_whole = false;
  auto whole_group = [&](uint32_t p) {
    const size_t first = p & ~(size_t)(kMoveGroup - 1);
    if (first == group_first) return group_whole;
    group_first = first;
    group_whole = first + kMoveGroup <= pages_;
    auto at = std::lower_bound(sorted.begin(), sorted.end(), (uint32_t)first);
    for (size_t q = first; group_whole && q < first + kMoveGroup; ++q) {
      const bool dirty_here = at != sorted.end() && *at == q;
      if (dirty_here) ++at;
      group_whole = dirty_here || moved_to(history_.moves[q], home_[q], self_);
    }
    return group_whole;
  };
  // A withheld page's notice must say whether it was changed whole (the
  // group rule, migrate_homes): a comparison here instead of its diff's.
  auto changed_whole = [&](uint32_t q) {
    if (mask_buf_.size() < kPageBytes / 64) mask_buf_.resize(kPageBytes / 64);
    diff_change_mask(twin(q), region_->sys_page(q), kPageBytes, mask_buf_.data());
    note_partial_write(q, mask_buf_.data(), nullptr, 0);
    return !partly_written_[q];
  };
  dirty.clear();
  size_t budgeted = 0;
  for (uint32_t p : sorted) {
    const int16_t last = history_.last_writer[p];
    const bool whole = whole_group(p), home_maybe = first_copied_[p] == epoch_stamp_;
    // A whole group moves outside the budget, a home's maybe written one only if it
    // was written here alone before (migrate_homes); a page of it changed in part, by the budget.
    const bool moves = MoveHistory::moves_to_writer(last, (int16_t)self_, whole && !home_maybe, history_.moves[p],
                                                    history_.often_writer[p]);
    if (!withhold_missed_[p] && diffed_early_[p] != id && moves &&
        ((whole && changed_whole(p)) || budgeted++ < history_.budget)) {
      if (!whole) changed_whole(p);
      withheld_[p] = 1;
      withheld_list_.push_back(p);
    } else {
      dirty.push_back(p);
    }
  }
  if (withheld_list_.empty()) return;
  add(stats().diffs_withheld, withheld_list_.size());
  withheld_interval_ = id;
  for (uint32_t &entry : written)
    if (withheld_[notice_page(entry)]) entry |= kWithheld;
}

void Hlrc::note_partial_write(size_t page, const uint64_t *mask, const DiffRun *runs, size_t count) {
  // One bit per 64 bytes: set where the diff changed something.
  constexpr size_t kChunks = kPageBytes / 64;
  static_assert(kChunks <= 64, "a page's 64-byte chunks fit one word");
  uint64_t changed = 0;
  if (mask) {
    for (size_t c = 0; c < kChunks; ++c) changed |= (uint64_t)(mask[c] != 0) << c;
  } else {
    for (size_t r = 0; r < count; ++r)
      for (size_t c = runs[r].off / 64; c <= (runs[r].off + runs[r].len - 1) / 64; ++c) changed |= 1ull << c;
  }
  const uint64_t all = kChunks == 64 ? ~0ull : (1ull << kChunks) - 1;
  partly_written_[page] = changed != all;
}

bool Hlrc::guesses_first_copies() const { return !first_copied_.empty() && whole_pages() && may_withhold(); }

void Hlrc::note_first_copies(size_t n, uint64_t parked) {
  // The home names a first copy "maybe written" at its first release that
  // sees the copy counted.  If it was not parked after the count, or parked
  // still in the barrier that began this epoch, that release is still to
  // come in this epoch (it parks before its barrier's release, and a
  // release reads the count after any park): the page's group will not
  // move it at this barrier.  Parked in this epoch's barrier, its release
  // may have passed (a worker copying the master's data while the master
  // waits in the barrier): left to the other rules.  (A transport that
  // reads the word before the count lands can only make the guess wrong,
  // which costs a diff sent where it could have waited for the move.)
  if ((parked & page_word::kParked) && (uint8_t)(parked >> page_word::kParkedEpochShift) == epoch_stamp_) return;
  for (size_t j = 0; j < n; ++j) first_copied_[fetch_scratch_.firsts[j]] = epoch_stamp_;
}

void Hlrc::take_unwritten_bytes(size_t p, int old) {
  uint8_t home_copy[kPageBytes];
  uint64_t mine_mask[kPageBytes / 64];
  f_.get(old, data_seg_.id, p * kPageBytes, home_copy, kPageBytes);
  // The bytes that differ from the twin are this node's: a diff of the
  // page, applied to the home's copy here instead of there.
  diff_change_mask(twin(p), region_->sys_page(p), kPageBytes, mine_mask);
  fabric::masked_copy(home_copy, region_->sys_page(p), mine_mask, kPageBytes);
  memcpy(region_->sys_page(p), home_copy, kPageBytes);
}

void Hlrc::settle_withheld() {
  if (withheld_list_.empty()) return;
  std::lock_guard<FutexLock> g(mu_);
  std::vector<uint32_t> stayed, stale;
  for (uint32_t p : withheld_list_)
    if (withheld_[p]) {  // neither moved here nor sent when another writer's notice came
      if (withheld_[p] == kWithheldMerge) stale.push_back(p);
      withheld_[p] = 0;
      withhold_missed_[p] = 1;
      stayed.push_back(p);
    }
  withheld_list_.clear();
  add(stats().withheld_unmoved, stayed.size());
  propagate_diffs(stayed, withheld_interval_, cfg_.rewrites == RewriteAxis::compare);
  // Their homes' notices named them: the copies may lack the homes' writes.
  ProtectionBatch batch(*region_);
  for (uint32_t p : stale) {
    if (!reread_.empty()) reread_[p] |= kDropped;
    if (!kept_.empty()) kept_[p] = 0;
    free_twin(p);
    uncount_copy(p);
    state_[p] = kInvalid;
    batch.set(p, Prot::none);
    add(stats().invalidations);
  }
  batch.apply();
  send_uncounts();
}

void Hlrc::await_withheld_diffs(const VClock &since, const VClock &target) {
  struct Wait {
    uint32_t page, writer, id;
  };
  std::vector<Wait> waits;
  notices_.visit(since, target, [&](const Interval &iv) {
    if ((int)iv.writer == self_) return;
    for (uint32_t entry : iv.pages)
      if ((entry & kWithheld) && home_[notice_page(entry)] == self_) waits.push_back({notice_page(entry), iv.writer, iv.id});
  });
  if (waits.empty()) return;
  for (const Wait &w : waits)
    sync::backoff_until([&] { return version(w.page, (int)w.writer).load(std::memory_order_acquire) >= w.id; },
                        while_waiting());
  // A kept home page's twin was refreshed at the catch-up, before the diff.
  std::lock_guard<FutexLock> g(mu_);
  for (const Wait &w : waits)
    if (!kept_.empty() && kept_[w.page] && has_twin_[w.page]) refresh_home_twin(w.page);  // else taken next
}

void Hlrc::on_homes_moved(const fabric::Message &m) {
  const auto *pages = static_cast<const uint8_t *>(m.data);
  for (size_t i = 0; i + sizeof(uint32_t) <= m.len; i += sizeof(uint32_t)) {
    uint32_t p;
    memcpy(&p, pages + i, sizeof p);
    serve_deferred_fetches(p);
  }
}

}  // namespace rdsm
