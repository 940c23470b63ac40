// Page fetch axis: bring a copy of a page from its home into this node's
// system view, at least as new as this node's notices require.
//   message:   request to the home; its handler replies with the page once
//              it has applied every diff the request names (async, draw);
//   one_sided: read the home's version vector, then the page, and retry
//              until the versions cover what is required; no code of the
//              home runs (ARDMAR, GeNIMA's remote fetch).  The home makes
//              diffs visible before the version that announces them, so a
//              page read after a sufficient version holds those diffs.
//              The pages' copy counts go up in the same batch as the first
//              read of the versions (Fabric::batch): two round trips a
//              fetch on a network, not one per page plus two; only the
//              page read must wait for the counts.
//
// Prefetch axis (GeNIMA's prefetch, seed 003 §1.5.1): `adaptive` brings,
// with a missing page, the pages after it that this node also lacks (same
// home, already new enough there), in the same read and one protection
// change.  The window's last page, the sentinel, is fetched but left
// inaccessible: touching it is the proof that the window was used, and it
// fetches the next window, twice as large (a sequential stream ramps up to
// kMaxPrefetchWindow pages per fault).  A sentinel invalidated or dropped untouched
// marks its window wasted, and the page whose fault started the window
// starts at most half as much next time, nothing once that is under two
// pages: the false-prefetch history.  Used and wasted count whole windows
// (a window read up to its sentinel, or not).
//
// Strided streams: a run of misses at a constant stride (stride_run.hpp:
// the rows of a matrix a transpose reads a column block of, one page per
// row) brings the pages along the stride that this node lacks, of the same
// home, each read on its own and mapped readable (no sentinel: they count
// as used): kStrideWindow at the run's start, then twice the pages the run
// has covered, at most kMaxPrefetchWindow.  Rows whose page this node holds
// already are stepped over (the window covers them too).  Where a chain of
// columns taught the run a width (stride_run.hpp), each row comes that
// wide, the faulting row and the two before it included.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <sched.h>
#include <vector>

#include "common/error.hpp"
#include "common/fault_inject.hpp"
#include "protocol/hlrc.hpp"
#include "protocol/msg_types.hpp"
#include "stats/stats.hpp"

namespace rdsm {

namespace {
constexpr size_t kVersionWords = 4096; // version words read per get (a stack buffer)

struct FetchHeader {
  uint32_t page;
  uint32_t count;  // request: pages asked for; reply: pages that follow
};
}  // namespace

int Hlrc::home_without_claim(size_t page) {
  int h = home_[page];
  if (h < 0 && cfg_.claim == HomeClaimAxis::cas) {
    // A home this node never asked for: the directory word tells it
    // without claiming the page (0 means nobody has).
    uint64_t word = f_.atomic_load((int)(page % nodes_), dir_seg_.id, page * sizeof(uint64_t));
    if (word) home_[page] = (int16_t)(h = (int)(word - 1));
  }
  return h;
}

bool Hlrc::held_here(ptrdiff_t q, int home) {
  return q >= 0 && (size_t)q < pages_ && state_[q] != kInvalid && home_[q] == home;
}

bool Hlrc::can_prefetch(ptrdiff_t q, int home) {
  return q >= 0 && (size_t)q < pages_ && state_[q] == kInvalid && !has_twin_[q] && home_without_claim((size_t)q) == home;
}

size_t Hlrc::prefetch_candidates(size_t page, int home, size_t limit) {
  size_t n = 0;
  while (n < limit && can_prefetch((ptrdiff_t)(page + 1 + n), home)) ++n;
  return n;
}

// A transpose reads its own rows' column block as it reads the others':
// one page of each row, a constant stride apart.  Its home pages need no
// fetch, but each one never mapped here took a read fault of its own (two
// fifths of a SPLASH FFT's read faults).  A run of such faults maps the
// home pages along its stride with the faulting one, in the window strided
// prefetch uses (stepping over the ones mapped already); one the program
// does not read costs a mapping, not a fault.
// No allocation here: this may run in the signal handler (hlrc.hpp).
void Hlrc::map_home_strided(size_t page) {
  const ptrdiff_t stride = home_read_run_.observe(page);
  if (stride == 0) return;
  const size_t window = home_read_run_.window(kStrideWindow, kMaxPrefetchWindow);
  size_t n = 0;
  for (; n < window; ++n) {
    const ptrdiff_t q = (ptrdiff_t)page + stride * (ptrdiff_t)(n + 1);
    if (q < 0 || (size_t)q >= pages_ || home_[q] != self_) break;
    if (state_[q] != kInvalid) continue;  // mapped already: stepped over, as in prefetch_strided
    if (!scan_ && !races_ && claim_untracked((size_t)q)) {  // nobody's copy: written untracked, as at a fault
      write_untracked((size_t)q, 1);
    } else {
      state_[q] = kReadOnly;
      region_->protect((size_t)q, 1, Prot::read);
    }
  }
  home_read_run_.advanced(page, n);
}

// No allocation here: this may run in the signal handler (hlrc.hpp).
void Hlrc::prefetch_strided(size_t page, int home, ptrdiff_t stride, bool can_poll) {
  static_assert(FetchRunsScratch::kMaxRuns >= kMaxPrefetchWindow + 3 &&
                    FetchRunsScratch::kMaxWidth >= StrideRun::kMaxWidth,
                "the scratch holds the largest window");
  const size_t width = read_run_.width(), window = read_run_.window(kStrideWindow, kMaxPrefetchWindow);
  auto lacking = [&](size_t q, size_t limit) {
    size_t n = 0;
    while (n < limit && can_prefetch((ptrdiff_t)(q + n), home)) ++n;
    return n;
  };
  FetchRun *runs = fetch_scratch_.runs;
  size_t count = 0;
  if (width > 1) {
    if (size_t n = lacking(page + 1, width - 1)) runs[count++] = {page + 1, n};  // the rest of this row
    // The rest of the two rows whose faults found the stride, which were
    // read a page each: a tile's next columns would take a fault each.
    for (ptrdiff_t back = 1; back <= 2; ++back) {
      const ptrdiff_t q = (ptrdiff_t)page - stride * back;  // that row's faulted page
      if (held_here(q, home))
        if (size_t n = lacking((size_t)q + 1, width - 1)) runs[count++] = {(size_t)q + 1, n};
    }
  }
  const size_t first_row = count;
  // A row whose page is here already (a copy refreshed at an acquire, one
  // read since) is stepped over, not the end of the window: the rows after
  // it still lack theirs, and each stop costs a fault and the stride's
  // three faults to find again.
  size_t r = 0;
  for (; r < window; ++r) {
    ptrdiff_t q = (ptrdiff_t)page + stride * (ptrdiff_t)(r + 1);
    if (can_prefetch(q, home)) {
      runs[count++] = {(size_t)q, lacking((size_t)q, width)};
    } else if (!held_here(q, home)) {
      break;
    }
  }
  fetch_runs(home, runs, count, can_poll);
  size_t pages = 0, rows = r;
  for (size_t i = 0; i < count; ++i) {
    const FetchRun &run = runs[i];
    // The run goes on past the rows fetched up to the first one not new
    // enough at its home (its fault fetches it).
    if (i >= first_row && !run.got)  // the window's row of this run, which starts on the stride
      rows = std::min(rows, (size_t)(((ptrdiff_t)run.first - (ptrdiff_t)page) / stride - 1));
    pages += run.got;
    // Counted as read, so re-read too if a notice dropped it: a transpose's
    // columns come back by this prefetch, rarely by their own miss.
    for (size_t k = 0; k < run.got; ++k) note_reread(run.first + k, true);
  }
  add(stats().prefetched, pages);
  add(stats().prefetch_used, pages);  // no sentinel: counted as used
  read_run_.advanced(page, rows);
}

// No allocation here either.  One-sided: two batches, one round trip each
// on a network, for the whole window (a row at a time cost two a row).
// The rows fetched are mapped readable.
void Hlrc::fetch_runs(int home, FetchRun *runs, size_t count, bool can_poll) {
  if (cfg_.fetch == FetchAxis::message) {  // a request a row: the home's handler counts the copies
    for (size_t i = 0; i < count; ++i) runs[i].got = fetch_pages(runs[i].first, home, runs[i].n - 1, false, can_poll);
  } else {
    fetch_runs_one_sided(home, runs, count);
  }
  for (size_t i = 0; i < count; ++i) {
    const FetchRun &r = runs[i];
    if (!r.got) continue;
    for (size_t k = 0; k < r.got; ++k) state_[r.first + k] = kReadOnly;
    region_->protect(r.first, r.got, Prot::read);
  }
}

void Hlrc::fetch_runs_one_sided(int home, FetchRun *runs, size_t count) {
  using Op = fabric::Fabric::BatchOp;
  FetchRunsScratch &s = fetch_scratch_;
  const size_t per = (size_t)nodes_;
  // Each page counted before it is read (fetch_pages), the versions with
  // the counts.
  size_t nops = 0, counted = 0, at = 0;
  for (size_t i = 0; i < count; ++i) {
    const FetchRun &r = runs[i];
    queue_copy_counts(r.first, r.n, nops, counted);
    s.ops[nops++] = Op::read(version_seg_.id, r.first * per * sizeof(uint32_t), &s.versions[at],
                             r.n * per * sizeof(uint32_t));
    at += r.n * per;
  }
  if (nops) f_.batch(home, s.ops.data(), nops);
  note_copy_counts(home, counted);
  // The rows new enough there, and the counts of the rest taken back.
  nops = at = 0;
  for (size_t i = 0; i < count; ++i) {
    FetchRun &r = runs[i];
    size_t ok = 0;
    while (ok < r.n && versions_cover(&s.versions[at + ok * per], required(r.first + ok))) ++ok;
    at += r.n * per;
    r.got = ok;
    queue_uncounts(r.first + ok, r.n - ok, nops);  // not fetched after all
    if (ok && resident_[r.first])  // the others are read below into memory the file gives them
      s.ops[nops++] = Op::read(data_seg_.id, r.first * kPageBytes, region_->sys_page(r.first), ok * kPageBytes);
  }
  std::atomic_thread_fence(std::memory_order_acquire);  // the pages are read after their versions
  fault_point("fetch");
  if (nops) f_.batch(home, s.ops.data(), nops);
  for (size_t i = 0; i < count; ++i) {
    const FetchRun &r = runs[i];
    if (!r.got) continue;
    if (!resident_[r.first])
      f_.get_fresh(home, data_seg_.id, r.first * kPageBytes, data_seg_, r.first * kPageBytes, r.got * kPageBytes);
    for (size_t k = 0; k < r.got; ++k) resident_[r.first + k] = 1;
    if (scan_) twin_fetched(r.first, r.got);
  }
}

void Hlrc::queue_copy_counts(size_t first, size_t n, size_t &nops, size_t &counted) {
  FetchRunsScratch &s = fetch_scratch_;
  for (size_t p = first; p < first + n; ++p) {
    if (copied_[p]) {
      note_copy_base(p, page_word::kHome);  // counted before: base unknown
      continue;
    }
    s.ops[nops++] = fabric::Fabric::BatchOp::add(copies_seg_.id, p * sizeof(uint64_t), page_word::kCopy,
                                                 &s.words[counted]);
    s.counted[counted++] = p;
  }
}

void Hlrc::queue_uncounts(size_t first, size_t n, size_t &nops) {
  for (size_t p = first; p < first + n; ++p)
    if (copied_[p]) {
      copied_[p] = 0;
      fetch_scratch_.ops[nops++] = fabric::Fabric::BatchOp::add(copies_seg_.id, p * sizeof(uint64_t), (uint64_t)-1);
    }
}

void Hlrc::note_copy_counts(int home, size_t counted) {
  FetchRunsScratch &s = fetch_scratch_;
  size_t firsts = 0;  // copies of pages the home may be writing untracked
  for (size_t j = 0; j < counted; ++j) {
    note_copy_base(s.counted[j], s.words[j]);
    if (s.words[j] & page_word::kUntracked) s.firsts[firsts++] = s.counted[j];
    copied_[s.counted[j]] = 1;
  }
  announce_first_copies(home, firsts);
}

void Hlrc::map_prefetched(size_t first, size_t count, size_t origin) {
  if (count == 0) return;
  add(stats().prefetched, count);
  for (size_t i = 0; i + 1 < count; ++i) state_[first + i] = kReadOnly;
  if (count > 1) region_->protect(first, count - 1, Prot::read);
  size_t s = first + count - 1;
  state_[s] = kPrefetched;  // stays inaccessible
  pf_window_[s] = (uint8_t)count;
  pf_origin_[s] = (uint32_t)origin;
}

void Hlrc::prefetch_dropped(size_t page) {
  if (pf_window_.empty() || pf_window_[page] == 0) return;
  add(stats().prefetch_wasted, pf_window_[page]);
  pf_limit_[pf_origin_[page]] = (uint8_t)(pf_window_[page] / 2);
  pf_window_[page] = 0;
}

// No allocation here: this may run in the signal handler (hlrc.hpp).
size_t Hlrc::fetch_pages(size_t page, int home, size_t extra, bool demand, bool can_poll) {
  if (cfg_.fetch == FetchAxis::message) {
    // The home's handler waits for the first page's diffs either way: with
    // message diffs a notice is known only after its diffs were applied, so
    // the wait is short even for a page fetched ahead.  The handler counted
    // every page it sent.
    fetch_by_message(page, home, 1 + extra);
    size_t got = fetched_count_.load(std::memory_order_acquire);
    for (size_t i = 0; i < got; ++i) {
      copied_[page + i] = 1;
      note_copy_base(page + i, page_word::kHome);  // not known here: none
    }
    if (scan_) twin_fetched(page, got);
    return got;
  }
  const size_t total = 1 + extra;
  const size_t per = (size_t)nodes_, batch = std::max<size_t>(1, kVersionWords / per);
  uint32_t have[kVersionWords];
  // Each page is counted before it is read: the home then notices its
  // writes, and the answer is the copy's base for whole-page writes.  The
  // counts and the first read of the versions go in one batch (one round
  // trip; the versions need not follow the counts, only the pages must).
  bool have_read = false;  // `have` holds the versions of the first pages
  auto take_back_counts = [&](size_t from) {  // of the pages from `from` on: not fetched after all
    for (size_t i = from; i < total;) {
      const size_t n = std::min(total - i, FetchRunsScratch::kMaxPages);
      size_t nops = 0;
      queue_uncounts(page + i, n, nops);
      if (nops) f_.batch(home, fetch_scratch_.ops.data(), nops);
      i += n;
    }
  };
  for (size_t i = 0; i < total;) {
    const size_t n = std::min(total - i, FetchRunsScratch::kMaxPages);
    size_t nops = 0, counted = 0;
    queue_copy_counts(page + i, n, nops, counted);
    if ((i += n) == total) {
      fetch_scratch_.ops[nops++] = fabric::Fabric::BatchOp::read(
          version_seg_.id, page * per * sizeof(uint32_t), have, std::min(batch, total) * per * sizeof(uint32_t));
      have_read = true;
    }
    f_.batch(home, fetch_scratch_.ops.data(), nops);
    note_copy_counts(home, counted);
  }
  size_t ok = 0;  // pages [page, page + ok) are new enough at the home
  while (ok < total) {
    size_t n = std::min(batch, total - ok);
    for (unsigned attempt = 0;; ++attempt) {
      if (!have_read)
        f_.get(home, version_seg_.id, (page + ok) * per * sizeof(uint32_t), have, n * per * sizeof(uint32_t));
      have_read = false;
      // Only the demanded page is waited for; a page fetched ahead that is
      // not new enough yet ends the run (it is fetched when missed).
      if (!demand || ok > 0 || versions_cover(have, required(page))) break;
      if (attempt > 64) {
        // The page is on its way: a diff, or a new home taking over at a
        // barrier (home_migration.cpp).  The new home may be waiting for
        // this node to answer a message, which in poll mode only a polling
        // thread does: the signal handler gives the fault to one.
        if (!can_poll && attempt > 1024) {
          take_back_counts(0);
          return 0;
        }
        if (can_poll) f_.poll();
        sched_yield();
      }
    }
    size_t j = 0;
    while (j < n && versions_cover(have + j * per, required(page + ok + j))) ++j;
    ok += j;
    if (j < n) break;
  }
  take_back_counts(ok);
  if (ok == 0) return 0;
  std::atomic_thread_fence(std::memory_order_acquire);  // the pages are read after their versions
  fault_point("fetch");
  // Pages this node never held are most likely not in its memory file yet.
  if (resident_[page])
    f_.get(home, data_seg_.id, page * kPageBytes, region_->sys_page(page), ok * kPageBytes);
  else
    f_.get_fresh(home, data_seg_.id, page * kPageBytes, data_seg_, page * kPageBytes, ok * kPageBytes);
  for (size_t i = 0; i < ok; ++i) resident_[page + i] = 1;
  if (scan_) twin_fetched(page, ok);
  return ok;
}

namespace {
// The runs of pages of [first, first + count) that `want` takes, as {first,
// count}; or the whole range when they would be many and short (a cyclic
// placement): a call per run would cost more than the pages it spares.
template <class Want>
std::vector<std::pair<size_t, size_t>> runs_worth_it(size_t first, size_t count, Want want) {
  constexpr size_t kMinMeanRun = 16;
  std::vector<std::pair<size_t, size_t>> runs;
  for (size_t p = first, end = first + count; p < end;) {
    if (!want(p)) {
      ++p;
      continue;
    }
    size_t q = p + 1;
    while (q < end && want(q)) ++q;
    runs.emplace_back(p, q - p);
    if (runs.size() > count / kMinMeanRun + 1) return {{first, count}};
    p = q;
  }
  return runs;
}
}  // namespace

void Hlrc::populate_copies(size_t first, size_t count) {
  if (nodes_ == 1 || first >= pages_) return;
  if (cfg_.coherence == CoherenceAxis::hardware) {
    // Every node's view maps node 0's memory, and a process maps a page of
    // it at its first touch: a fault per page and process, where threads
    // sharing one page table take each once, as the program sets up, and
    // where the other protocols' nodes map their copies here, as the data
    // is allocated.  So hw nodes map theirs here too, or the limit hw stands
    // for would pay in the parallel phase what neither pays there (SPLASH
    // RADIX -n4194304 at 2 processes: 0.026-0.028 s, 0.014-0.019 so, as 2
    // threads of one node: 0.013-0.026).
    count = region_->populate_within(first, std::min(count, pages_ - first), 1, opt_.prepopulate_bytes);
    SharedRegion::premap_shared(region_->app_page(first), count * kPageBytes);
    return;
  }
  // Every page gets its memory (a home page needs it too), but entries in
  // the system view's page table only where copies will be made: the pages
  // homed elsewhere or not placed yet.  This node writes its home pages
  // through the application view.  (A fork-join worker's start, SPLASH FFT
  // -m20 at 2 nodes: 26.8 -> 21.2 ms; Ocean -n1026: 39.4 -> 33.3 ms.)
  count = region_->populate_within(first, std::min(count, pages_ - first), nodes_, opt_.prepopulate_bytes);
  if (count == 0) return;
  std::vector<std::pair<size_t, size_t>> copies;
  {
    // Homes change under it (claims, moves), and fetches by compute threads
    // of this node (--threads) read resident_.
    std::lock_guard<FutexLock> g(mu_);
    copies = runs_worth_it(first, count, [&](size_t p) { return home_[p] != self_; });
    for (size_t i = 0; i < count; ++i) resident_[first + i] = 1;
    // Home pages nobody has copied are mapped writable, untracked, now, as
    // a first fault on them would map them (hlrc.cpp), without the fault:
    // at a fork-join CREATE every page of a node's share is such a page,
    // and the first phase took a fault per run of them on top of its own
    // misses (SPLASH FFT -m20 at 2 nodes: the first transpose 8.2 -> 4.1
    // ms).  A page some node copied already stays as it is (the claim
    // fails); one copied later is tracked from the next release on, as
    // after a fault (first_copy_log.cpp).
    if (!scan_ && !races_) {
      for (size_t p = first; p < first + count;) {
        size_t n = 0;
        while (p + n < first + count && home_[p + n] == self_ && state_[p + n] == kInvalid &&
               claim_untracked(p + n))
          ++n;
        if (n) write_untracked(p, n);
        p += n ? n : 1;
      }
    }
  }
  for (auto [at, n] : copies) region_->premap_system(at, n);
  // The other nodes' copies too, where this node maps them (one host): a
  // fetch or diff would otherwise fault on each of their pages here first.
  // All of them, not only those the peer is home of now: a page that moves
  // there later (home=migrate) is read there too.  (Radix at paper size:
  // 1.05 of the time with the peers' home pages only.)
  for (int n = 0; n < nodes_; ++n) {
    fabric::Segment peer;
    if (n == self_ || !f_.peer_segment(n, data_seg_.id, &peer)) continue;
    SharedRegion::premap_shared(peer.base + first * kPageBytes, count * kPageBytes);
  }
}

void Hlrc::fetch_by_message(size_t page, int home, size_t count) {
  // The need vectors of consecutive pages are consecutive in required_.
  FetchHeader h{(uint32_t)page, (uint32_t)count};
  iovec req[2] = {{&h, sizeof h}, {required(page), count * nodes_ * sizeof(uint32_t)}};
  fetched_page_.store(-1);
  f_.sendv(home, msg::kFetchRequest, req, 2);
  fault_point("fetch");
  f_.wait([&] { return fetched_page_.load(std::memory_order_acquire) == (int64_t)page; });
}

bool Hlrc::home_copy_covers(size_t page, const uint32_t *need) {
  for (int w = 0; w < nodes_; ++w)
    if (version(page, w).load(std::memory_order_acquire) < need[w]) return false;
  return true;
}

void Hlrc::on_fetch_request(const fabric::Message &m) {
  FetchHeader h;
  if (m.len < sizeof h) fatal("internal error: short fetch request from node %d", m.src);
  memcpy(&h, m.data, sizeof h);
  if (h.count == 0 || h.page + (uint64_t)h.count > pages_ || m.len != sizeof h + (size_t)h.count * nodes_ * 4)
    fatal("internal error: malformed fetch request from node %d", m.src);
  std::vector<uint32_t> need((size_t)h.count * nodes_);
  memcpy(need.data(), static_cast<const uint8_t *>(m.data) + sizeof h, need.size() * sizeof(uint32_t));
  count_first_copy(h.page, copies_here(h.page).fetch_add(1, std::memory_order_seq_cst));
  if (home_copy_covers(h.page, need.data()))
    serve_fetch(m.src, h.page, h.count, need.data());
  else
    deferred_[h.page].push_back(DeferredFetch{m.src, h.count, std::move(need)});
}

// The first page is new enough; the ones after it go along while they are.
void Hlrc::serve_fetch(int requester, size_t page, size_t count, const uint32_t *need) {
  size_t k = 1;
  for (; k < count; ++k) {
    size_t q = page + k;
    // Counted before it is read, as the first page was (hlrc.hpp).
    count_first_copy(q, copies_here(q).fetch_add(1, std::memory_order_seq_cst));
    if (!home_copy_covers(q, need + k * nodes_)) {
      copies_here(q).fetch_sub(1, std::memory_order_seq_cst);
      break;
    }
  }
  fault_point("fetch_serve");
  FetchHeader h{(uint32_t)page, (uint32_t)k};
  iovec iov[2] = {{&h, sizeof h}, {region_->sys_page(page), k * kPageBytes}};
  f_.sendv(requester, msg::kFetchReply, iov, 2);
}

void Hlrc::serve_deferred_fetches(size_t page) {
  auto it = deferred_.find((uint32_t)page);
  if (it == deferred_.end()) return;
  auto &list = it->second;
  for (size_t i = 0; i < list.size();) {
    if (home_copy_covers(page, list[i].need.data())) {
      serve_fetch(list[i].requester, page, list[i].count, list[i].need.data());
      list[i] = std::move(list.back());
      list.pop_back();
    } else {
      ++i;
    }
  }
  if (list.empty()) deferred_.erase(it);
}

void Hlrc::on_fetch_reply(const fabric::Message &m) {
  FetchHeader h;
  if (m.len < sizeof h) fatal("internal error: short page reply");
  memcpy(&h, m.data, sizeof h);
  if (h.count == 0 || m.len != sizeof h + (size_t)h.count * kPageBytes)
    fatal("internal error: page reply of %zu bytes for %u pages", m.len, h.count);
  // The pages are invalid in the application view while they are fetched,
  // so writing the system view here races with nothing.
  memcpy(region_->sys_page(h.page), static_cast<const uint8_t *>(m.data) + sizeof h, (size_t)h.count * kPageBytes);
  fetched_count_.store(h.count, std::memory_order_relaxed);
  fetched_page_.store(h.page, std::memory_order_release);
}

}  // namespace rdsm
