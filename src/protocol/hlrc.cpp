#include "protocol/hlrc.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>

#include "common/error.hpp"
#include "common/fault_inject.hpp"
#include "common/usable_cpus.hpp"
#include "memory/fault_dispatch.hpp"
#include "protocol/msg_types.hpp"
#include "stats/stats.hpp"
#include "stats/trace.hpp"
#include "sync/atomic_barrier.hpp"
#include "sync/atomic_lock.hpp"
#include "sync/barrier_service.hpp"
#include "sync/lock_service.hpp"

namespace rdsm {

namespace {
uint32_t *map_zeroed_words(size_t count) {
  void *p = mmap(nullptr, count * 4, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) fatal("cannot reserve %zu bytes for page metadata", count * 4);
  return static_cast<uint32_t *>(p);
}

NoticeSet decode_or_die(const std::vector<uint8_t> &b, const char *what) {
  NoticeSet s;
  if (!s.decode(b.data(), b.size())) fatal("internal error: malformed write notices in %s", what);
  return s;
}
}  // namespace

Hlrc::Hlrc(fabric::Fabric &f, const Options &opt, const ProtocolConfig &cfg)
    : f_(f), opt_(opt), cfg_(cfg), self_(f.rank()), nodes_(f.nodes()), notices_(f.nodes()) {
  if (opt_.threads > 1) {
    // Several compute threads per node: a release must write-protect every
    // page it diffs before diffing it, so that no write of another thread
    // of the node falls between the diff and the protection (it faults and
    // waits for mu_ instead, then opens the next interval).  The axes that
    // leave written pages writable across a release (kept pages, pages
    // written ahead, write detection by a page-table scan) would let such
    // a write slip past the diff and the twin's update, so they are off.
    cfg_.rewrites = RewriteAxis::fault;
    cfg_.write_ahead = WriteAheadAxis::off;
    cfg_.detect = DetectAxis::sync;
  }
  opt_.region_bytes = resolve_region_bytes(opt_);
  pages_ = opt_.region_bytes / kPageBytes;
  setup_race_recording();
  data_seg_ = f_.register_segment(opt_.region_bytes);
  dir_seg_ = f_.register_segment(pages_ * sizeof(uint64_t));
  version_seg_ = f_.register_segment(pages_ * nodes_ * sizeof(uint32_t));
  // One word per page, and after them the count and the log of first
  // copies (first_copy_log.cpp).
  copies_seg_ = f_.register_segment((pages_ + kParkedWord + 1) * sizeof(uint64_t));
  versions_ = reinterpret_cast<uint32_t *>(version_seg_.base);
  required_ = map_zeroed_words(pages_ * nodes_);
  if (cfg_.coherence == CoherenceAxis::hardware) {
    // Every node's application view is node 0's memory.
    fabric::Segment shared;
    if (!f_.peer_segment(0, data_seg_.id, &shared))
      fatal("protocol %s needs a fabric whose nodes share memory (one host, --fabric shm)", cfg_.name.c_str());
    region_ = std::make_unique<SharedRegion>(opt_, shared);
  } else {
    region_ = std::make_unique<SharedRegion>(opt_, data_seg_, cfg_.detect == DetectAxis::scan);
    scan_ = region_->writes_async();
  }
  after_release_.emplace(*region_);
  if (scan_) {
    // No write fault to save, and the home cannot tell when it starts
    // writing a page (presets.hpp).
    cfg_.rewrites = RewriteAxis::fault;
    cfg_.write_ahead = WriteAheadAxis::off;
    cfg_.whole = WholeAxis::off;
  }
  state_.reset(pages_);
  home_.reset(pages_);
  has_twin_.reset(pages_);
  make_twin_memory();
  twin_slot_.reset(pages_);
  if (cfg_.fetch == FetchAxis::one_sided) fetch_scratch_.size_for(nodes_);
  written_.reset(pages_);
  maybe_written_.reset(pages_);
  if (cfg_.rewrites == RewriteAxis::compare) {
    kept_.reset(pages_);
    kept_list_.reset(pages_);
    opened_unwritten_.reset(pages_);
    twin_others_versions_.reset(pages_);
    keep_window_.reset(pages_);
    last_rewrite_.reset(pages_);
  }
  if (cfg_.home == HomeAxis::migrate) {
    history_.reset(pages_);
    withheld_.reset(pages_);
    withhold_missed_.reset(pages_);
    partly_written_.reset(pages_);
    first_copied_.reset(pages_);
    diffed_early_.reset(pages_);
  }
  if (cfg_.prefetch == PrefetchAxis::adaptive) {
    pf_window_.reset(pages_);
    pf_origin_.reset(pages_);
    pf_limit_.reset(pages_);
    if (cfg_.fetch == FetchAxis::one_sided) reread_.reset(pages_);
  }
  if (whole_pages()) {
    copy_gen_.reset(pages_);
    home_writing_.reset(pages_);
  }
  written_list_.reset(pages_);
  untracked_.reset(pages_);
  untracked_list_.reset(pages_);
  copied_.reset(pages_);
  resident_.reset(pages_);
  last_barrier_vc_.assign(nodes_, 0);
  learn_limit_.assign(nodes_, 0);
  forget_floor_.assign(nodes_, 0);

  using fabric::Message;
  for (auto t : {msg::kFetchRequest, msg::kFetchReply, msg::kHomeQuery, msg::kHomeReply, msg::kHomesMoved, msg::kUncount})
    stats().classify(t, HandlerWork::page);
  for (auto t : {msg::kDiff, msg::kDiffAck}) stats().classify(t, HandlerWork::diff);
  f_.set_handler(msg::kFetchRequest, [this](const Message &m) { on_fetch_request(m); });
  f_.set_handler(msg::kFetchReply, [this](const Message &m) { on_fetch_reply(m); });
  f_.set_handler(msg::kDiff, [this](const Message &m) { on_diff(m); });
  f_.set_handler(msg::kDiffAck, [this](const Message &) { diff_acks_pending_.fetch_sub(1); });
  f_.set_handler(msg::kHomeQuery, [this](const Message &m) { on_home_query(m); });
  f_.set_handler(msg::kHomeReply, [this](const Message &m) { on_home_reply(m); });
  f_.set_handler(msg::kHomesMoved, [this](const Message &m) { on_homes_moved(m); });
  f_.set_handler(msg::kUncount, [this](const Message &m) { on_uncounts(m); });
  f_.set_handler(msg::kNoticeQuery, [this](const Message &m) {
    VClock their;
    their.resize(m.len / 4);
    memcpy(their.data(), m.data, their.size() * 4);
    uint32_t after = (size_t)self_ < their.size() ? their[self_] : 0;
    auto reply = notices_.of_writer(self_, after).encode();
    f_.send(m.src, msg::kNoticeReply, reply.data(), reply.size());
  });
  f_.set_handler(msg::kNoticeReply, [this](const Message &m) {
    NoticeSet s;
    if (!s.decode(static_cast<const uint8_t *>(m.data), m.len)) fatal("internal error: malformed notice reply");
    std::lock_guard<std::mutex> g(query_mu_);
    query_replies_.push_back(std::move(s));
  });

  if (cfg_.lock == LockAxis::atomic) {
    locks_ = std::make_unique<sync::AtomicLocks>(f_, opt_.locks,
                                                 nodes_ * sizeof(uint32_t) + sizeof(LockHolder) + race_clock_bytes());
  } else {
    sync::LockHooks lh;
    lh.make_grant = [this](int id, int, const uint8_t *req, size_t len) {
      VClock theirs(len / 4);
      memcpy(theirs.data(), req, theirs.size() * 4);
      sync::Bytes grant = notices_.since(theirs).encode();
      if (races_) race_append_lock_clock(id, grant);
      return grant;
    };
    locks_ = std::make_unique<sync::LockService>(f_, opt_.locks, lh);
  }
  setup_notice_buffers();

  if (cfg_.barrier == BarrierAxis::atomic) {
    barrier_ = std::make_unique<sync::AtomicBarrier>(f_, nodes_ * sizeof(uint32_t));
    return;
  }
  sync::BarrierHooks bh;
  bh.merge = [this](const std::vector<sync::Bytes> &arrivals) {
    NoticeSet all;
    all.vc.assign(nodes_, 0);
    for (const auto &a : arrivals) {
      NoticeSet s = decode_or_die(a, "a barrier arrival");
      vc_merge(all.vc, s.vc);
      for (auto &iv : s.intervals) all.intervals.push_back(std::move(iv));
    }
    return all.encode();
  };
  barrier_ = std::make_unique<sync::BarrierService>(f_, bh);
}

Hlrc::~Hlrc() {
  if (twins_) munmap(twins_, pages_ * kPageBytes);
  if (required_) munmap(required_, pages_ * nodes_ * 4);
}

void Hlrc::start() {
  if (nodes_ == 1 || cfg_.coherence == CoherenceAxis::hardware) {
    // Alone, or on memory the machine keeps coherent, there is nothing to
    // keep coherent: every page is writable and no write needs noticing.
    // The page table is never consulted (no fault reaches the protocol, no
    // notice names a page), so it stays untouched: a large region costs
    // nothing here.
    region_->protect(0, pages_, Prot::read_write);
    return;
  }
  install_fault_dispatch(*region_, [this](size_t page, bool write) { on_fault(page, write); },
                         {&Hlrc::fault_in_signal, this}, opt_.spin);
  // Only where every compute thread of the job on this host has a CPU: on
  // an oversubscribed host a waiting node's CPU belongs to the nodes it
  // waits for (micro_lock, 4 nodes on 2 cores, contended: 19 -> 23 us per
  // acquire with it).
  if (pool_.slots() && host_compute_threads(opt_) <= usable_cpus()) {
    barrier_->set_idle_work([this] { return pool_.warm(); });
    locks_->set_idle_work([this] { return pool_.warm(); });
  }
}

void Hlrc::finish() {
  barrier_impl(false);  // the job's last: moving homes now would only cost
  if (nodes_ > 1 && cfg_.coherence == CoherenceAxis::software && cfg_.notices == NoticeAxis::lazy &&
      cfg_.barrier == BarrierAxis::atomic) {
    // Leaving an atomic barrier, nodes ask the writers for their notices; a
    // writer that polls for messages (no handler thread) answers only while
    // it waits in the protocol, so it waits here until everyone has them.
    barrier_->wait(vc_bytes(), while_waiting());
  }
  if (nodes_ > 1 && cfg_.coherence == CoherenceAxis::software) remove_fault_dispatch();
  if (races_) finish_race_log();
}

bool Hlrc::versions_cover(const uint32_t *have, const uint32_t *need) const {
  for (int w = 0; w < nodes_; ++w)
    if (have[w] < need[w]) return false;
  return true;
}

void Hlrc::note_written(size_t page) {
  if (!written_[page]) {
    written_[page] = 1;
    written_list_[written_count_++] = (uint32_t)page;
  }
}

void Hlrc::make_writable(size_t page) {
  if (home_[page] != self_) {
    twin_from_copy(page, false);
    add(stats().twins);
  } else {
    // The home's copy is the master: no twin; the write is noted so that
    // the interval's notices name the page.
    home_starts_writing(page);
    if (races_) twin_home_page(page);  // except that recording needs its writes
  }
  state_[page] = kWritable;
  note_written(page);
  if (!opened_unwritten_.empty()) opened_unwritten_[page] = 0;  // written after all: worth opening again
  region_->protect(page, 1, Prot::read_write);
}

bool Hlrc::resolve_fault(size_t page, bool write, bool remote, bool can_poll) {
  const uint64_t traced_from = trace::start();
  uint8_t st = state_[page];
  // Another thread got here first; in scan mode a valid page takes writes.
  if (st == kWritable || (st == kReadOnly && (!write || scan_))) {
    // Not a million times in a row, though: that is a page whose mapping
    // lost its state's protection, and the access would fault for ever.
    spurious_faults_ = page == spurious_page_ ? spurious_faults_ + 1 : 1;
    spurious_page_ = page;
    if (spurious_faults_ > 1000000)
      fatal_signal_safe("internal error: a page keeps faulting although its state allows the access (its mapping "
                        "was not changed with its state)");
    return true;
  }
  spurious_faults_ = 0;
  int home = home_[page];
  if (home < 0) {
    if (!remote) return false;
    home = home_of(page);
  }
  size_t opened_after = 0;  // pages fetched after `page` for a write stream, opened with it
  ptrdiff_t stride = 0;     // misses in a constant stride: prefetch along it
  if (st == kPrefetched) {
    // A sentinel: its window was used.  The next window, twice as large,
    // comes now, ahead of the stream (page_fetch.cpp).
    if (!remote) return false;
    size_t window = pf_window_[page];
    add(stats().prefetch_used, window);
    pf_window_[page] = 0;
    state_[page] = kReadOnly;
    // The window was read: its pages a notice had dropped were re-read.
    for (size_t q = page + 1 - window; q <= page; ++q)
      if (state_[q] != kInvalid) note_reread(q, true);
    size_t next = std::min({2 * window, kMaxPrefetchWindow, (size_t)pf_limit_[page]});
    if (next >= 2) {
      size_t n = prefetch_candidates(page, home, next);
      if (n) map_prefetched(page + 1, fetch_pages(page + 1, home, n - 1, false, can_poll), page);
    }
  } else if (home != self_ && st == kInvalid) {
    if (!remote) return false;
    size_t extra = 0;
    // A write miss in a stream of writes brings the next missing pages of
    // the same home along, to be opened for writing with this one.
    size_t stream = write ? write_stream(page) : 0;
    if (stream) {
      while (extra < stream && can_fetch_to_open(page + 1 + extra, home)) ++extra;
    } else if (cfg_.prefetch == PrefetchAxis::adaptive) {
      // A stream starts with two misses in a row: one miss says nothing of
      // the pages after it.
      size_t window = std::min(kFirstPrefetchWindow, (size_t)pf_limit_[page]);
      if (window >= 2 && page == last_miss_ + 1) extra = prefetch_candidates(page, home, window);
      stride = read_run_.observe(page);
      last_miss_ = page;
    }
    const uint64_t fetch_from = trace::start();
    size_t got = fetch_pages(page, home, extra, true, can_poll);
    if (got == 0) return false;
    note_reread(page);
    add(stats().pages_fetched);
    if (trace::on()) trace::record(trace::Kind::fetch, fetch_from, now_ns(), (uint32_t)page, (uint16_t)home, got);
    if (stride) prefetch_strided(page, home, stride, can_poll);
    if (got > 1 && stream) {
      opened_after = got - 1;
      for (size_t q = page + 1; q < page + got; ++q) state_[q] = kReadOnly;  // valid; mapped when opened below
    } else if (got > 1) {
      map_prefetched(page + 1, got - 1, page);
    }
  }
  add(write ? stats().write_faults : stats().read_faults);
  if (trace::on())
    trace::record(write ? trace::Kind::write_fault : trace::Kind::read_fault, traced_from, now_ns(), (uint32_t)page);
  if (!scan_ && !races_ && home == self_ && claim_untracked(page)) {
    // Nobody has a copy: the home may write without noticing (see hlrc.hpp),
    // and so it may the home pages after it that nobody has copied either:
    // one fault and one protection change for a run of them.
    size_t n = 1;
    while (n < kHomeFaultRun && page + n < pages_ && home_[page + n] == self_ && state_[page + n] != kWritable &&
           claim_untracked(page + n))
      ++n;
    write_untracked(page, n);
  } else if (write && !scan_) {
    make_writable(page);
    if (opened_after)
      open_ahead(page + 1, opened_after);
    else
      open_write_window(page);
    open_dense_group(page, home, can_poll);
  } else {
    // Reading needs no notice (nor, in scan mode, writing): home pages after
    // it that were never mapped become readable with it (a home page's copy
    // is always valid).
    size_t n = 1;
    if (home == self_)
      while (n < kHomeFaultRun && page + n < pages_ && home_[page + n] == self_ && state_[page + n] == kInvalid) ++n;
    for (size_t q = page; q < page + n; ++q) state_[q] = kReadOnly;
    region_->protect(page, n, Prot::read);
  }
  if (home == self_ && st == kInvalid && !write) map_home_strided(page);
  return true;
}

// Home pages that claim_untracked took (nobody has a copy): the home writes
// them unnoticed from here on.
void Hlrc::write_untracked(size_t first, size_t count) {
  for (size_t q = first; q < first + count; ++q) {
    home_starts_writing(q);
    state_[q] = kWritable;
  }
  region_->protect(first, count, Prot::read_write);
}

bool Hlrc::fault_in_signal(void *self, size_t page, bool write) {
  Hlrc *h = static_cast<Hlrc *>(self);
  // Remote work is allowed in the signal handler when every operation the
  // fault may need is signal-safe: one-sided fetch and claim need only the
  // one-sided operations; the others send and wait for messages.
  bool one_sided = h->cfg_.fetch == FetchAxis::one_sided && h->cfg_.claim == HomeClaimAxis::cas;
  bool remote = one_sided ? h->f_.one_sided_signal_safe() : h->f_.signal_safe();
  if (remote)
    h->mu_.lock();
  else if (!h->mu_.try_lock())
    return false;
  bool done = h->resolve_fault(page, write, remote, false);
  h->mu_.unlock();
  return done;
}

// Runs on the fault service thread while the faulting thread sleeps.
void Hlrc::on_fault(size_t page, bool write) {
  std::lock_guard<FutexLock> g(mu_);
  resolve_fault(page, write, true, true);
}

// Ends the open interval: write-protects what was written, sends the diffs
// home, bumps the home versions of own pages and records the notices.
void Hlrc::close_interval() {
  // Home pages written without noticing that have been copied since: from
  // now on they are tracked, and this interval names them as written, since
  // the home may have written them after the copy was taken.
  // The fence orders the application's plain stores to those pages before
  // the loads of the copy counters (a store-buffer pattern against the
  // fetcher's increment-then-read): either the home sees the copy, or the
  // copy sees the stores.
  // The count of first copies comes first: a fetcher counts a page's first
  // copy in the page's word before it adds to the count, so if the count is
  // what the last release saw, no untracked page has been copied since
  // (and a copy counted after this load is found at the next release):
  // the release then costs one load, not one per untracked page.
  if (scan_) collect_scanned_writes();
  read_run_.end_chain();  // strided reads of later intervals start new chains of columns
  // The log of first copies names the pages in the usual case; every
  // untracked page is looked at only when it cannot (first_copy_log.cpp).
  bool recheck = false;
  rearm_.clear();
  if (untracked_count_) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    uint64_t firsts = first_copies_here().load(std::memory_order_seq_cst);
    if (firsts != first_copies_seen_) recheck = !track_logged_first_copies(first_copies_seen_, firsts);
    first_copies_seen_ = firsts;
  }
  for (size_t i = 0; recheck && i < untracked_count_;) {
    uint32_t p = untracked_list_[i];
    if (copied_at_home(p))
      track_copied_page(p);  // the list's last page takes its place
    else
      ++i;
  }
  if (!rearm_.empty()) {
    std::sort(rearm_.begin(), rearm_.end());
    region_->rearm(rearm_);
  }
  const bool keep = cfg_.rewrites == RewriteAxis::compare;
  ProtectionBatch batch(*region_);
  if (keep) sweep_kept(batch);
  if (races_) note_harvested_writes();
  released_interval_ = 0;
  if (written_count_ == 0) {
    apply_unkeeping(batch);
    return;
  }
  uint32_t id = open_interval();
  released_interval_ = id;
  std::vector<uint32_t> written(written_list_.data(), written_list_.data() + written_count_);
  written_count_ = 0;
  dense_opened_ = 0;
  std::vector<uint32_t> dirty;
  if (keep) {
    choose_kept(written, batch);
  } else {
    for (uint32_t p : written) {
      if (state_[p] == kWritable) {
        state_[p] = kReadOnly;
        batch.set(p, Prot::read);
      }
    }
  }
  // Protect first: from here on a write by another thread faults and opens
  // the next interval instead of racing with the diff.
  apply_unkeeping(batch);
  home_stops_writing(written.data(), written.size());
  if (races_) record_home_writes(written, keep);
  for (uint32_t &p : written) {
    written_[p] = 0;
    if (home_[p] == self_)
      version(p, self_).store(id, std::memory_order_release);
    else if (has_twin_[p])
      dirty.push_back(p);
    if (maybe_written_[p]) {
      maybe_written_[p] = 0;
      p |= kMaybeWritten;  // from here on `written` is the notice
    }
  }
  if (withhold_at_release_) withhold_likely_moves(dirty, written, id);
  // In scan mode a copy stays valid and write-protected after its release,
  // so its twin is brought up to date as a kept page's is.
  propagate_diffs(dirty, id, keep || scan_);
  if (notes_partial_writes())
    for (uint32_t &entry : written)
      if (partly_written_[notice_page(entry)]) {
        partly_written_[notice_page(entry)] = 0;
        entry |= kPartlyWritten;
      }
  if (keep) keep_written(written);
  publish_interval(id, written);
  notices_.add_own(self_, id, std::move(written));
  if (races_) seal_race_interval(id);
}

void Hlrc::invalidate_copy(size_t page, ProtectionBatch &batch) {
  if (state_[page] == kPrefetched) prefetch_dropped(page);
  if (!kept_.empty()) kept_[page] = 0;  // its list entry goes at the next sweep
  uncount_copy(page);
  state_[page] = kInvalid;
  batch.set(page, Prot::none);
  add(stats().invalidations);
}

// Learns notices; invalidates cached copies they name (never home pages).
void Hlrc::apply_notices(const NoticeSet &s) {
  std::vector<Interval> fresh;
  if (learn_at_barrier_.empty() && !names_withheld_pages(s.intervals)) {
    fresh = notices_.learn(s.intervals);
  } else {
    // Those held back before come first: each writer's intervals are
    // learnt in order (learn_at_barrier_).
    std::vector<Interval> pending = std::move(learn_at_barrier_);
    learn_at_barrier_.clear();
    pending.insert(pending.end(), s.intervals.begin(), s.intervals.end());
    std::vector<uint8_t> held_back(nodes_, 0);
    std::vector<Interval> now;
    for (Interval &iv : pending) {
      if (held_back[iv.writer] || (iv.id > learn_limit_[iv.writer] && names_withheld_pages(iv))) {
        held_back[iv.writer] = 1;
        learn_at_barrier_.push_back(std::move(iv));
      } else {
        now.push_back(std::move(iv));
      }
    }
    fresh = notices_.learn(now);
  }
  notices_.merge_vc(s.vc);
  if (fresh.empty()) return;
  std::lock_guard<FutexLock> g(mu_);
  ProtectionBatch batch(*region_);
  std::vector<uint32_t> own_writes, refresh, withheld_here;
  bool collected = false;  // scan mode: this node's writes so far are noted
  for (const Interval &iv : fresh) {
    if ((int)iv.writer == self_) continue;
    for (uint32_t entry : iv.pages) {
      uint32_t p = notice_page(entry);
      uint32_t &need = required(p)[iv.writer];
      need = std::max(need, iv.id);
      if (home_[p] == self_) {
        if (!kept_.empty() && kept_[p]) kept_home_page_written_elsewhere(p, batch);
        continue;
      }
      if (state_[p] == kInvalid) continue;
      if (scan_ && !collected) {
        collect_scanned_writes();
        collected = true;
      }
      if (refresh_instead(p)) {
        refresh.push_back(p);
        continue;
      }
      if (!reread_.empty()) reread_[p] |= kDropped;
      if (!withheld_.empty() && withheld_[p]) {
        if (keep_withheld_on(p, entry, (int)iv.writer)) continue;
        // Another node wrote it too: it will not move here, and the home
        // must have this node's writes before anyone reads it there.
        withheld_[p] = 0;
        withhold_missed_[p] = 1;
        withheld_here.push_back(p);
      } else if (unreleased_writes(p) && !quiet_since_release_) {
        own_writes.push_back(p);
      } else {
        free_twin(p);  // a clean copy's twin (scan mode, or a kept page at a barrier)
      }
      invalidate_copy(p, batch);  // a kept page's twin goes with the diff below
    }
  }
  drop_bulk_refresh(refresh, batch);
  // The homes hear first that the copies are gone (nothing reads them here
  // meanwhile: the node is inside the acquire), so that a home whose pages
  // no other node copies any more finds them so at the barrier's end
  // (settle_deferred_home_pages) more often.
  send_uncounts();
  apply_unkeeping(batch);
  if (!withheld_here.empty()) {
    add(stats().withheld_unmoved, withheld_here.size());
    propagate_diffs(withheld_here, withheld_interval_, false);
  }
  // A page this node wrote in the open interval must not lose those writes:
  // they go home now, tagged with the open interval (which stays open and
  // still names the page in its notices).
  std::sort(own_writes.begin(), own_writes.end());
  own_writes.erase(std::unique(own_writes.begin(), own_writes.end()), own_writes.end());
  if (!own_writes.empty()) {
    // A kept page may not have been written in the open interval at all;
    // those that were are named in its notices from now on.
    const uint32_t open = open_interval();
    std::vector<uint32_t> changed;
    propagate_diffs(own_writes, open, false, &changed);
    for (uint32_t p : changed) note_written(p);
    if (!diffed_early_.empty())
      for (uint32_t p : own_writes) diffed_early_[p] = open;
  }
  refresh_copies(refresh);
}

}  // namespace rdsm
