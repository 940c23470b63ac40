// Home-based lazy release consistency, the engine behind every HLRC preset
// (async, ardmar, draw, newgen, genima).  With hardware coherence (preset hw)
// every node maps node 0's memory and only the locks and barriers remain.
//
// Each page has a home whose copy is the master.  A node caches copies of
// other pages; a write to a cached page makes a twin first, and at release
// the page is diffed against the twin and the runs reach the home before
// the release completes.  Intervals, vector timestamps and write notices
// (notices.hpp) tell an acquirer which cached pages to invalidate.  The home
// keeps per page the newest interval of each writer it has applied
// (`versions`); a fetch returns a copy at least as new as the fetcher's
// notices require.
//
// The synchronisation points (lock, unlock, barrier, acquire) are in sync_points.cpp;
// several compute threads of a node share this object (--threads,
// api/node_threads.hpp): see sync_mu_ and the constructor.  How each step is carried
// out is one axis of ProtocolConfig, in one place each: README.md here maps them.
//
// Under --races (race_recording.cpp) the engine also records, per interval,
// the bytes this node wrote and the clock it began with.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "common/futex.hpp"
#include "common/page_array.hpp"
#include "common/options.hpp"
#include "fabric/fabric.hpp"
#include "memory/protection_batch.hpp"
#include "memory/region.hpp"
#include "protocol/diff.hpp"
#include "protocol/fetch_runs.hpp"
#include "protocol/move_history.hpp"
#include "protocol/notice_rings.hpp"
#include "protocol/notices.hpp"
#include "protocol/page_word.hpp"
#include "protocol/presets.hpp"
#include "protocol/protocol.hpp"
#include "protocol/runs_flush.hpp"
#include "protocol/twin_pool.hpp"
#include "protocol/stride_run.hpp"
#include "protocol/twin_copy.hpp"
#include "races/page_locks.hpp"
#include "races/race_recorder.hpp"
#include "rdsm.h"
#include "sync/locks.hpp"

namespace rdsm {

class Hlrc final : public Protocol {
 public:
  // Collective: registers the protocol's segments and message handlers.
  Hlrc(fabric::Fabric &f, const Options &opt, const ProtocolConfig &cfg);
  ~Hlrc();
  // Installs the fault handler; call after the fabric has started.
  void start();
  // Final barrier, then stops taking faults.
  void finish();

  SharedRegion &region() { return *region_; }
  const ProtocolConfig &config() const { return cfg_; }

  // Synchronisation (application threads).
  void lock(int id) { take_lock(id, false); }
  // lock() if the lock is free (no node holds it or waits for it); false, at once, if not.
  bool try_lock(int id) { return take_lock(id, true); }
  void unlock(int id);
  int lock_count() const { return locks_->lock_count(); }
  void barrier() { barrier_impl(true); }
  void release();
  void acquire();

  // Records the homes a placement policy gives pages [first, first+count), before any touch.
  void place(size_t first, size_t count, rdsm_placement placement);
  // Reads from the directory the homes of pages [first, first+count) that another node placed (a
  // collective allocation), so that this node knows them before its first fault there, as the placer does.
  void learn_homes(size_t first, size_t count);
  // Pages [first, first+count) were just allocated (by any node): gives them memory in this node's memory
  // file now, while the program sets up, so that fetching them later is a copy into memory the file already
  // has (region_populate.cpp).  Up to RDSM_PREPOPULATE bytes in all, within the memory budget there.  Where
  // this node's view is node 0's memory (hw), the view's own page-table entries for them instead.
  void populate_copies(size_t first, size_t count);

  // After finish(): copies into this node's memory every page of the first `pages`
  // homed elsewhere but the runs `adopt` takes: it holds the whole state (protocol.hpp).
  void gather_homes(size_t pages, const AdoptRun &adopt);
  const fabric::Segment &data_segment() const { return data_seg_; }

 private:
  // kPrefetched: a valid copy brought by prefetch, left inaccessible so that
  // the first access says the prefetch window was used (page_fetch.cpp).
  enum PageState : uint8_t { kInvalid = 0, kReadOnly = 1, kWritable = 2, kPrefetched = 3 };
  static constexpr size_t kFirstPrefetchWindow = 4;  // GeNIMA's N
  static constexpr size_t kMaxPrefetchWindow = 64;   // pages per fault, at most

  bool take_lock(int id, bool try_only);
  void release_gated();  // release() with sync_mu_ held

  // The gate of the node's synchronisation (--threads > 1): the steps of
  // releases, acquires, lock grants and barriers that read or change the
  // notices and the page table run one thread of the node at a time.  So an
  // acquire that learns intervals has invalidated their pages before any
  // other thread of the node can count on having learnt them, and a
  // release's interval is closed as a whole.  Waiting for a lock is done
  // outside it.  Held before mu_, never inside it.  Uncontended (one
  // thread) it costs one atomic pair per synchronisation.
  std::mutex sync_mu_;
  // Set while a barrier learns what others wrote, after this node's own
  // release: every thread of the node is inside the barrier (NodeThreads
  // lets the last one in make it), so no page has been written here since
  // that release, and every kept page still equals its twin.  The
  // barrier's catch-up then needs no comparison with the twins.
  bool quiet_since_release_ = false;

  // ---- faults and intervals (hlrc.cpp)
  // Makes the faulting access possible; mu_ held.  `remote` allows home
  // claims and fetches; `can_poll` allows running this node's message
  // handlers while a fetch waits (not in the signal handler).  Returns false
  // (changing nothing) when it needs what it may not do.
  bool resolve_fault(size_t page, bool write, bool remote, bool can_poll);
  // On the fault service thread: may do anything.
  void on_fault(size_t page, bool write);
  // In the signal handler: only async-signal-safe work (the futex lock mu_,
  // preallocated tables, the twin arena, memcpy, mprotect, and — when the fabric
  // says its operations are signal-safe — sends, waits and one-sided reads
  // with buffers on the stack).  Returns false to hand the fault over.
  static bool fault_in_signal(void *self, size_t page, bool write);
  // Makes an accessible page writable (twin if not home); mu_ held.
  void make_writable(size_t page);
  // Scan mode (DetectAxis::scan): writes to valid pages go through, so copies are twinned as they arrive
  // (twin_fetched), and a scan at release, or at an acquire that drops copies, finds the written pages
  // (collect_scanned_writes: noted written and watched again; a home page nobody copied goes unwatched).
  bool scan_ = false;
  void twin_fetched(size_t first, size_t count);
  void collect_scanned_writes();
  std::vector<uint32_t> scanned_, unwatch_, rearm_;
  // The page holds this node's writes not yet sent home (a non-home copy).
  bool unreleased_writes(size_t page) const { return scan_ ? written_[page] && has_twin_[page] : has_twin_[page]; }
  void note_written(size_t page);
  // This node's copy is gone: counted out later, a batch per home (send_uncounts, copy_counts.cpp).
  void uncount_copy(size_t page);
  void invalidate_copy(size_t page, ProtectionBatch &batch);  // a notice's copy gone, owing home nothing now
  void send_uncounts();
  void on_uncounts(const fabric::Message &m);  // fetch=message, homes not mapped here: the home counts out
  std::vector<std::pair<int, uint32_t>> uncounts_;  // (home, page) to count out
  static constexpr size_t kHomeFaultRun = 64;  // home pages a fault may map at once with the faulting one
  // A twin to read (kZeroTwin: kZeroPage); one to write comes from twin_to_write (zero_twins.cpp).
  const uint8_t *twin(size_t page) const {
    int32_t s = twin_slot_[page];
    return s >= 0 ? pool_.slot(s) : s == kZeroTwin ? kZeroPage : twins_ + page * kPageBytes;
  }
  uint8_t *twin_to_write(size_t page, bool whole);  // mu_ held; `whole`: all of it is written
  void twin_from_copy(size_t page, bool streaming);  // gives a copy its twin, as it is now; mu_ held
  static constexpr int32_t kZeroTwin = -2;          // twin_slot_: an all-zero twin, no memory of its own
  void make_twin_memory();  // the arena and the pool (twin_pool.cpp)
  void take_twin_slot(size_t page);  // picks the memory of a page's twin (pool slot, or arena); mu_ held
  void close_interval();  // with mu_ held
  void apply_notices(const NoticeSet &s);
  uint32_t open_interval() const { return notices_.vc_of(self_) + 1; }
  uint32_t *required(size_t page) { return required_ + page * nodes_; }
  std::atomic_ref<uint32_t> version(size_t page, int writer) {
    return std::atomic_ref<uint32_t>(versions_[page * nodes_ + writer]);
  }
  bool versions_cover(const uint32_t *have, const uint32_t *need) const;
  // At the home: its copy of the page holds every interval `need` names.
  bool home_copy_covers(size_t page, const uint32_t *need);
  void free_twin(size_t page);

  // `migrate`: whether this barrier may move homes (not the job's last).
  void barrier_impl(bool migrate);

  // ---- home axis (home_migration.cpp)
  // At a barrier, once every interval up to `target` is known here: moves
  // the home of each page written by one node alone since the previous
  // barrier to that node.  Every node decides the same from the same
  // notices, so no message is needed.
  void migrate_homes(const VClock &since, const VClock &target);
  // Withheld diffs (home_migration.cpp): at the release of a barrier that may move
  // homes, the diffs of written pages this node will likely become the home of are
  // not sent; the barrier sends those of pages that did not move here
  // (settle_withheld), and the moves make the rest needless (notices: kWithheld).
  bool may_withhold() const;
  void withhold_likely_moves(std::vector<uint32_t> &dirty, std::vector<uint32_t> &written, uint32_t id);
  void settle_withheld();
  // At a home, after the moves: waits until the withheld diffs of pages
  // that stayed here have landed, so that this node reads none stale.
  void await_withheld_diffs(const VClock &since, const VClock &target);
  bool withhold_at_release_ = false;  // the release in progress is such a barrier's
  PageArray<uint8_t> withheld_;       // the page's diff is withheld (kWithheldMerge: see keep_withheld_on)
  PageArray<uint8_t> withhold_missed_;  // withheld once for a move that did not happen: not withheld again
  PageArray<uint8_t> partly_written_;   // this release's copies changed in part (kPartlyWritten), till named so
  void note_partial_write(size_t page, const uint64_t *mask, const DiffRun *runs, size_t count);
  bool notes_partial_writes() const { return !partly_written_.empty() && !history_.stopped; }  // moves may come
  bool keep_withheld_on(size_t page, uint32_t entry, int writer);  // a notice of the home's alone
  void take_unwritten_bytes(size_t page, int old_home);            // at its move here
  std::vector<uint32_t> withheld_list_;
  uint32_t withheld_interval_ = 0;    // the interval whose diffs they are
  // The epoch (epoch_stamp_: barriers, 1..255) of a first copy taken here that its home names maybe written.
  PageArray<uint8_t> first_copied_;
  uint8_t epoch_stamp_ = 1;
  bool guesses_first_copies() const;  // note_first_copies(fetch_scratch_'s n firsts, the home's parked word)
  void note_first_copies(size_t n, uint64_t parked);
  // The open interval whose writes to the page went home early, at an acquire that dropped the
  // copy (apply_notices): that diff raised the page's version of this node at the home to the
  // interval's id, so a diff of it withheld later would look arrived to its readers: never.
  PageArray<uint32_t> diffed_early_;
  // Intervals with withheld pages arrive (pushed at the release) before
  // the barrier that closed them is passed here; their pages may not have
  // reached their homes yet, and nobody this node can be ordered after
  // needs them before that barrier (a barrier's release is ordered before
  // no lock release of its epoch).  They, and their writers' later
  // intervals, are learnt once a barrier's clock covers them
  // (learn_limit_: the last barrier's, set as soon as it is passed).
  // Learnt early, a lock released meanwhile would carry them in its clock
  // to an acquirer that then waits for pages still withheld.
  std::vector<Interval> learn_at_barrier_;
  VClock learn_limit_;
  // Applies one move of page p's home to node w; mu_ held.
  void move_home(size_t page, int to, const VClock &target, ProtectionBatch &batch,
                 std::vector<uint32_t> &became_home);
  void on_homes_moved(const fabric::Message &m);

  // ---- home claim axis (home_directory.cpp)
  int home_of(size_t page);
  int claim_home(size_t page);
  void on_home_query(const fabric::Message &m);
  void on_home_reply(const fabric::Message &m);

  // ---- page fetch axis (page_fetch.cpp)
  // Brings `page` from `home` (when `demand`, waiting until the home's copy
  // is new enough) and up to `extra` pages after it that this node lacks,
  // of the same home and already new enough there.  Returns how many pages
  // were fetched: 1 + the extras when `demand`, else 0..extra+1; 0 also
  // when a demanded page is long in coming and `can_poll` is false (the
  // caller hands the fault to a thread that can poll).
  size_t fetch_pages(size_t page, int home, size_t extra, bool demand, bool can_poll);
  // Strided streams (columns of a matrix read across rows, a transpose's
  // blocks): a run of misses at a constant stride (stride_run.hpp) brings
  // pages along the stride, of the same home, that this node lacks: at
  // least kStrideWindow, more as the run goes on (page_fetch.cpp).
  static constexpr size_t kStrideWindow = 16;
  StrideRun read_run_;
  void prefetch_strided(size_t page, int home, ptrdiff_t stride, bool can_poll);
  StrideRun home_read_run_;             // read faults on home pages never mapped here
  void map_home_strided(size_t page);  // maps such pages along its stride; mu_ held
  void write_untracked(size_t first, size_t count);  // claimed home pages made writable; mu_ held
  // Fetches rows from `home`, not waiting for them to be new enough there
  // (one-sided: all counts and version reads in one batch, the rows in a
  // second); sets each row's `got` and maps those pages readable.  mu_ held.
  void fetch_runs(int home, FetchRun *runs, size_t count, bool can_poll);
  void fetch_runs_one_sided(int home, FetchRun *runs, size_t count);
  FetchRunsScratch fetch_scratch_;
  // Into the scratch from ops[nops]: a count of each copy in [first, first + n) not counted yet,
  void queue_copy_counts(size_t first, size_t n, size_t &nops, size_t &counted);
  void queue_uncounts(size_t first, size_t n, size_t &nops);  // or taken back for each counted one
  void note_copy_counts(int home, size_t counted);  // after the batch: counted (and announced)
  // The page's home if this node knows it or the directory names one (read
  // with a one-sided load, claiming nothing); -1 if nobody has claimed it.
  int home_without_claim(size_t page);
  // Page q (maybe out of range) is one this node lacks, of home `home`:
  // a fetch may bring it along; held_here: one it holds, of that home.
  bool can_prefetch(ptrdiff_t q, int home);
  bool held_here(ptrdiff_t q, int home);
  // The pages after `page` that a fetch may bring along, at most `limit`.
  size_t prefetch_candidates(size_t page, int home, size_t limit);
  // Maps a run fetched ahead of use: all readable but the last, which is
  // left inaccessible as the window's sentinel; `origin` started the window.
  void map_prefetched(size_t first, size_t count, size_t origin);
  // A sentinel dropped untouched: its window was wasted; its origin
  // prefetches less (not at all, eventually) next time.
  void prefetch_dropped(size_t page);
  void fetch_by_message(size_t page, int home, size_t count);
  void on_fetch_request(const fabric::Message &m);
  void on_fetch_reply(const fabric::Message &m);
  void serve_fetch(int requester, size_t page, size_t count, const uint32_t *need);
  void serve_deferred_fetches(size_t page);

  // ---- notice axis (notice_propagation.cpp)
  // Called at the end of close_interval: eager mode pushes the notices.
  void publish_interval(uint32_t id, const std::vector<uint32_t> &pages);
  // Eager mode: moves what writers pushed into rings_.pending (not applied yet).
  void drain_notices();
  // Eager mode: drains and applies everything pushed so far.
  void apply_pushed_notices();
  // Applies notices until this node knows every interval up to `target`
  // (eager: from its buffers; lazy: asked from the writers).
  void catch_up(const VClock &target);
  // Lazy mode: asks each writer for its intervals this node lacks.
  void pull_notices(const std::vector<int> &writers);
  void setup_notice_buffers();
  std::function<void()> while_waiting();
  sync::Bytes vc_bytes() const;

  // ---- rewrite axis (rewrite_detection.cpp)
  // At release: kept pages written again are noted; the others are write-protected (into `batch`), twins freed.
  void sweep_kept(ProtectionBatch &batch);
  // A kept page at this node with no copy left elsewhere becomes untracked (true); `fenced`: the fence was made.
  bool untrack_uncopied_home_page(size_t page, bool &fenced);
  std::vector<uint32_t> unkept_;  // kept home pages write-protected, until the batch is applied
  // Applies it (at a barrier's release: after the invalidations, protect_after_release); then the
  // home pages it protected stop being written.
  void apply_unkeeping(ProtectionBatch &batch);
  std::optional<ProtectionBatch> after_release_;
  void protect_after_release();
  // ---- write-ahead axis (write_ahead.cpp)
  // How many pages a write fault on `page` may open after it: twice the stream of writable pages
  // before it, at least kMinWriteWindow, at most kMaxWriteWindow (0: not a stream, or the axis is off).
  size_t write_stream(size_t page) const;
  // A write fault made `page` writable; in a stream of writes, the valid
  // pages after it are opened as kept pages too, and in a run of write
  // faults at a constant stride, the valid pages along the stride; mu_ held.
  void open_write_window(size_t page);
  void open_strided_window(size_t page);  // open_write_window's strided case: pages along the run's stride
  // The dense case (WriteAheadAxis::dense): a write fault on a page of `home` among enough pages written in
  // this interval opens its group, or a larger block once the interval has opened several; mu_ held.
  void open_dense_group(size_t page, int home, bool can_poll);
  static constexpr size_t kDenseGroup = 16, kDenseTrigger = 3, kDenseFactor = 4, kDenseGrowth = 2;
  size_t dense_opened_ = 0;  // groups open_dense_group opened in the open interval
  bool can_open_ahead(ptrdiff_t q) const;  // page q (maybe out of range): a valid copy open_ahead may open
  bool can_fetch_to_open(size_t q, int home);  // q is missing, and open_ahead would take it once fetched
  StrideRun write_run_;  // the run of write faults at a constant stride
  // Opens [first, first + count), valid copies (read-only, or fetched, unmapped), as kept pages written ahead; mu_ held.
  void open_ahead(size_t first, size_t count);
  static constexpr size_t kMaxWriteWindow = 64, kMinWriteWindow = 8, kOpenedUnwrittenLimit = 2;
  PageArray<uint8_t> opened_unwritten_;  // times in a row opened ahead and not written; at the limit, not opened
  size_t spurious_page_ = SIZE_MAX, spurious_faults_ = 0;  // faults in a row on a page already accessible
  // ---- lock-ahead axis (lock_ahead.cpp)
  // What a releaser keeps with an atomic lock after its timestamp: its rank
  // and the interval its release closed (0: it wrote nothing).
  struct LockHolder { uint32_t rank, interval; };
  sync::Bytes lock_release_bytes() const;
  // Acquired with `kept` from the last holder: opens the pages it wrote
  // under the lock (at most kLockAheadPages); sync_mu_ held, not mu_.
  void open_lock_pages(const sync::Bytes &kept);
  static constexpr size_t kLockAheadPages = 8;
  uint32_t released_interval_ = 0;  // the interval the last release closed, 0 if none
  static constexpr uint8_t kKeptAhead = 2;  // kept_: opened ahead, not yet found written
  // kept_: found unwritten at n releases in a row is kKeptIdle + n - 1; a
  // page stays kept while n is at most its window (rewrite_detection.cpp).
  static constexpr uint8_t kKeptIdle = 3;
  // The window: kMinKeepWindow releases, or longer for a page written again
  // and again a few releases apart, up to kMaxKeepWindow.
  static constexpr uint8_t kMinKeepWindow = 2, kMaxKeepWindow = 96, kReopenedWindow = 0xFF;  // note_rewrite
  // The page was just found written (by a fault or a comparison) at release
  // number releases_: its window follows the longest gap between such
  // releases since it last went longer than kMaxKeepWindow unwritten.
  void note_rewrite(size_t page, bool opened_ahead = false);
  uint32_t releases_ = 0;  // this node's releases, counted by sweep_kept
  PageArray<uint8_t> keep_window_;    // 0: not written twice within kMaxKeepWindow releases (choose_kept)
  PageArray<uint32_t> last_rewrite_;  // releases_ when last found written, 0: never
  // At release, before the diffs: which written pages stay writable
  // ("kept", with twins) and which are write-protected (into `batch`).
  void choose_kept(const std::vector<uint32_t> &written, ProtectionBatch &batch);
  // After the diffs: the twins of the kept home pages are brought up to date;
  // at a barrier, new ones once its notices are learnt (settle_deferred_home_pages).
  void keep_written(const std::vector<uint32_t> &written);
  void give_twins(const std::vector<uint32_t> &pages);  // slots, or arena pages populated in runs
  void settle_deferred_home_pages();
  std::vector<uint32_t> deferred_home_pages_;
  bool barrier_release_ = false;  // the release in progress is a barrier's
  // A diff of `page` leaves its twin up to date (kept) or frees it.
  bool keeps_twin(size_t page, bool keep) const { return keep && (kept_.empty() || kept_[page] != 0); }
  void unkeep(size_t page);
  // A kept page stops being kept: write-protected (into `batch`); its twin
  // is the caller's to free.
  void protect_unkept(size_t page, ProtectionBatch &batch);
  // An acquire learnt that another node wrote this kept home page.
  void kept_home_page_written_elsewhere(size_t page, ProtectionBatch &batch);
  // Whether a kept page differs from its twin (any write, or a diff landed).
  bool differs_from_twin(size_t page);
  // A kept home page differs from its twin: named written, and "maybe
  // written" if other nodes' diffs landed since the twin was taken.
  void note_kept_home_change(size_t page);
  // Brings a kept home page's twin up to date, with the versions it holds.
  void refresh_home_twin(size_t page, bool streaming = false);
  // The sum of the other nodes' version entries of a home page: it moves
  // whenever another node's diff lands (the diff comes before its version).
  uint32_t others_versions(size_t page);
  PageArray<uint8_t> kept_;
  PageArray<uint32_t> twin_others_versions_;  // kept home pages: others_versions() when the twin was taken
  PageArray<uint32_t> kept_list_;  // may hold pages dropped since; capacity = pages
  size_t kept_count_ = 0;

  // ---- diff axis (diff_propagation.cpp)
  // Diffs the given dirty pages against their twins and makes every diff
  // visible at its home before returning.  The twins are freed, or, with
  // `keep`, brought up to date (the pages stay writable).  Pages whose diff
  // was not empty are added to `changed` when given.
  void propagate_diffs(const std::vector<uint32_t> &pages, uint32_t interval, bool keep = false,
                       std::vector<uint32_t> *changed = nullptr);
  void propagate_diffs_one_sided(const std::vector<uint32_t> &pages, uint32_t interval, bool keep,
                                 std::vector<uint32_t> *changed);
  std::vector<DiffRun> runs_buf_;  // scratch of propagate_diffs_one_sided
  std::vector<uint64_t> mask_buf_;  // ... and its changed-byte mask of a page (pieces=masked)
  std::vector<fabric::Fabric::Piece> pieces_, version_pieces_;
  void on_diff(const fabric::Message &m);

  fabric::Fabric &f_;
  Options opt_;
  ProtocolConfig cfg_;
  int self_, nodes_;

  // Home pages nobody has a copy of need no write notices: a later fetch
  // gets the home's copy as it is.  So the home leaves such pages writable
  // ("untracked") and skips their write faults; every fetch first counts
  // itself in the home's `copies` word (remote fetch-and-add, or the home's
  // handler), and at each release the home starts tracking the pages that
  // were copied meanwhile, naming them in that interval's notices.  A node
  // whose copy is invalidated counts itself out again, so that a page goes
  // back to untracked at the home's next write fault once no copy is left
  // (the word counts live copies; `copied_` says this node's is counted).
  fabric::Segment data_seg_, dir_seg_, version_seg_, copies_seg_;
  // This node's copies word of a page (meaningful while it is the home).
  // The word packs more than the count when whole-page writes are on
  // (page_word.hpp).
  std::atomic_ref<uint64_t> copies_here(size_t page) {
    return std::atomic_ref<uint64_t>(reinterpret_cast<uint64_t *>(copies_seg_.base)[page]);
  }
  bool copied_at_home(size_t page) {
    return (copies_here(page).load(std::memory_order_acquire) & page_word::kCopiesMask) != 0;
  }
  // The word after the pages' words counts first copies, and the words after it log which pages they were
  // (first_copy_log.cpp): the home's release reads one word to learn whether any untracked page was copied
  // since its last release, and the log to learn which (close_interval); the parked word follows (whole_page_writes.cpp).
  static constexpr uint64_t kFirstCopyLog = 256, kParkedWord = 1 + kFirstCopyLog;
  std::atomic_ref<uint64_t> first_copies_here() { return copies_here(pages_); }
  // Copies of pages the home writes untracked (their words had the bit) are
  // counted among its first copies and logged: one just counted here
  // (`before`: its word), or the scratch's `firsts` counted at `home`.
  void count_first_copy(size_t page, uint64_t before);
  void announce_first_copies(int home, size_t n);
  // The pages logged as first copies from `from` to `to` that this home was
  // writing untracked become tracked; false if the log cannot say them all.
  bool track_logged_first_copies(uint64_t from, uint64_t to);
  // A page this home wrote untracked has been copied: tracked from now on.
  void track_copied_page(uint32_t page);
  uint64_t first_copies_seen_ = 0;  // the first-copy count the last release read
  PageArray<uint32_t> untracked_;  // an untracked page's index in untracked_list_ plus one; 0: tracked
  PageArray<uint32_t> untracked_list_;
  size_t untracked_count_ = 0;
  // Makes this home page untracked if nobody's copy is counted at it:
  // marks its word in the same atomic step as it sees the count at zero
  // (first_copy_log.cpp) and lists it; false, changing nothing, if a copy
  // is counted.  After one fence per release (`fenced`, if given): the
  // fence orders the application's plain stores before the load of the
  // count, so either the home sees a copy or the copy holds those stores
  // (close_interval).
  bool claim_untracked(size_t page, bool *fenced = nullptr);
  void unlist_untracked(size_t page);  // tracked from now on: off the list at once (first_copy_log.cpp)
  PageArray<uint8_t> copied_;  // this node has counted itself at the page's home
  // This node fetched the page before, or populated it (populate_copies):
  // it has memory in this node's memory file.
  PageArray<uint8_t> resident_;
  std::unique_ptr<SharedRegion> region_;
  uint32_t *versions_ = nullptr;  // this node's home versions: [page][writer]
  uint32_t *required_ = nullptr;  // what this node's notices require: [page][writer]
  size_t pages_ = 0;

  // Local page table, guarded by mu_ (a FutexLock: the signal handler's
  // fast path takes it too).  Sized once, at construction.
  FutexLock mu_;
  PageArray<uint8_t> state_;
  PageArray<Biased<int16_t, -1>> home_;  // -1: not known yet
  PageArray<uint8_t> has_twin_;
  uint8_t *twins_ = nullptr;  // twin arena: one slot per page
  // Twins come from a pool while it lasts, past that from the page's slot
  // in the arena (twin_pool.cpp).
  TwinPool pool_;
  PageArray<Biased<int32_t, -1>> twin_slot_;  // pool slot of each twinned page, or -1
  PageArray<uint8_t> written_;        // written in the open interval
  PageArray<uint8_t> maybe_written_;  // ... only as far as the untracked home knows
  PageArray<uint32_t> written_list_;  // the same pages, in order; capacity = pages
  size_t written_count_ = 0;

  NoticeStore notices_;
  VClock last_barrier_vc_;    // merged clock of the latest barrier
  VClock forget_floor_;       // of the one before: every node has caught up to it
  std::unique_ptr<sync::Locks> locks_;
  std::unique_ptr<sync::Barrier> barrier_;

  NoticeRings rings_;  // eager notices

  // Replies awaited by the fault service thread or the application thread.
  std::atomic<int64_t> fetched_page_{-1};
  std::atomic<uint32_t> fetched_count_{0};
  std::atomic<int64_t> home_reply_page_{-1};
  std::atomic<int> home_reply_value_{-1};
  std::atomic<int> diff_acks_pending_{0};
  std::mutex query_mu_;
  std::vector<NoticeSet> query_replies_;

  // Home side, touched only by handlers (serialised by the fabric).
  struct DeferredFetch {
    int requester;
    uint32_t count;              // pages asked for: the page and the ones after it
    std::vector<uint32_t> need;  // count x nodes
  };
  std::unordered_map<uint32_t, std::vector<DeferredFetch>> deferred_;

  // Home migration (home_migration.cpp): the same at every node, from the same notices.
  MoveHistory history_;

  // Whole-page writes (whole_page_writes.cpp).
  bool whole_pages() const { return cfg_.whole == WholeAxis::exclusive && cfg_.diff == DiffAxis::one_sided; }
  // A fetch counted itself at the home, which answered `word`: the copy's base.
  void note_copy_base(size_t page, uint64_t word) {
    if (whole_pages()) copy_gen_[page] = page_word::quiet(word) ? page_word::gen(word) : page_word::kNoGen;
  }
  // The home's application is about to write its copy of `page`; mu_ held.
  void home_starts_writing(size_t page);
  // After protection changes: those of `pages` (notice entries) that are no
  // longer writable home pages say so in their words; mu_ held.
  void home_stops_writing(const uint32_t *pages, size_t count);
  // Claims `page` at `home` from its word `w` (else `w` is what it was), writes it and releases it.
  bool claimed_write(int home, uint32_t page, uint64_t &w, const uint64_t *mask, uint64_t *released);
  // Tries to claim `page` at `home`; if it can, writes the whole page there
  // and releases the claim.
  bool write_whole(int home, uint32_t page);
  // As write_whole whatever the copy's base, writing the bytes `mask` selects (runs_.parked).
  bool write_masked_alone(int home, uint32_t page, const uint64_t *mask);
  bool home_is_parked(int home);  // takes runs_.parked once; let_go_of_parked gives it back
  void let_go_of_parked(int home);
  void park();    // this node's application threads are all in a barrier, before its release, until unpark
  void unpark();
  // Registers this node as a runs writer of runs_.held[from, end)'s pages in one batch; words
  // with kWhole: a whole-page write was in progress (write again).
  void register_runs(int home, size_t from);
  // After the runs are at `home`: writes again those a whole-page write
  // (of another node) may have covered.
  void rewrite_covered_runs(int home);
  // After the versions: ends the runs writes, and learns which copies are
  // still the home's copy.
  void end_runs_writes(int home);
  PageArray<Biased<uint32_t, page_word::kNoGen>> copy_gen_;  // per page: the generation this copy is based on
  PageArray<uint8_t> home_writing_;  // per home page: its word says the home writes it
  RunsFlush runs_;

  // Refresh of pages re-read after every invalidation (copy_refresh.cpp).
  // Each page's byte: this flag, the grant level and the rounds left.
  static constexpr uint8_t kDropped = 0x80;  // invalidated by a notice since it was last fetched
  static constexpr uint8_t kLevelMask = 0x30, kRoundsMask = 0x0F;
  // A miss fetched `page`, or a prefetch its reads asked for; mu_ held.
  void note_reread(size_t page, bool prefetched = false);
  // An acquire's notice names `page`: refresh the copy instead of dropping it; mu_ held.
  bool refresh_instead(size_t page);
  // A kept copy with nothing to send: writable, equal to its twin.
  bool clean_kept_copy(size_t page);
  // Too many refresh_instead pages for one acquire: all dropped instead; mu_ held.
  void drop_bulk_refresh(std::vector<uint32_t> &pages, ProtectionBatch &batch);
  void refresh_copies(std::vector<uint32_t> &pages);  // reads those left anew from their homes (or drops them)
  PageArray<uint8_t> reread_;

  // Adaptive prefetch (page_fetch.cpp), per page.
  PageArray<uint8_t> pf_window_;   // a sentinel: the size of the window it ends
  PageArray<uint32_t> pf_origin_;  // a sentinel: the page whose fault started its window
  PageArray<Biased<uint8_t, uint8_t(kMaxPrefetchWindow)>> pf_limit_;  // the largest window a fault on this page may start
  size_t last_miss_ = SIZE_MAX - 1;  // the page of the latest miss that fetched

  // ---- data-race recording, --races only (race_recording.cpp)
  // Forces the axes recording needs and makes the recorder (constructor).
  void setup_race_recording();
  size_t race_clock_bytes() const { return races_ ? races_->clock_bytes() : 0; }
  // A home page becomes writable: it gets a twin like any copy.
  void twin_home_page(size_t page);
  // Pages about to be diffed against their twins: their changed bytes.
  void record_diffs(const std::vector<uint32_t> &pages);
  // close_interval: pages only the diff handler found written are noted.
  void note_harvested_writes();
  // close_interval: the written home pages' changed bytes; twins freed unless `keep`.
  void record_home_writes(const std::vector<uint32_t> &written, bool keep);
  void seal_race_interval(uint32_t id);
  // on_diff: applies another node's diff to a home page (and its twin).
  bool apply_diff_at_home(uint32_t page, const uint8_t *diff, size_t len);
  // At an acquire: the open interval ends first (an interval's writes share one clock).
  void race_acquire_begins();
  // Takes the releaser's clock off what came with a lock (empty: none).
  races::Clock race_take_lock_clock(sync::Bytes &got);
  void race_learnt(const races::Clock &c);
  // `kept` is what goes with an atomic lock: the clock is added to it.
  void race_lock_released(int id, sync::Bytes &kept);
  void race_append_lock_clock(int id, sync::Bytes &grant);
  void race_barrier_passed(const VClock &target);
  void race_acquired_all();
  void finish_race_log();
  std::unique_ptr<races::RaceRecorder> races_;
  races::PageLocks twin_locks_;  // a home page's twin against the diff handler
};

}  // namespace rdsm
