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
// How each step is carried out is one axis of ProtocolConfig, implemented
// in one place each:
//   home claim   home_directory.cpp   message to the directory node / remote CAS
//   page fetch   page_fetch.cpp       request to the home's handler / one-sided read
//   diffs        diff_propagation.cpp packed message to the home / one-sided writes
//   locks        sync/lock_service (manager: notices travel in the grant) /
//                sync/atomic_lock  (remote atomics: the releaser's timestamp
//                is kept with the lock)
//   barrier      sync/barrier_service (manager merges notices) /
//                sync/atomic_barrier  (remote atomics: timestamps only)
//   notices      notice_propagation.cpp  lazy (grants, barriers, pulled from
//                the writers) / pushed at release into every node's buffer
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "common/futex.hpp"
#include "common/options.hpp"
#include "fabric/fabric.hpp"
#include "memory/protection_batch.hpp"
#include "memory/region.hpp"
#include "protocol/notices.hpp"
#include "protocol/presets.hpp"
#include "rdsm.h"
#include "sync/locks.hpp"

namespace rdsm {

class Hlrc {
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
  void lock(int id);
  void unlock(int id);
  int lock_count() const { return locks_->lock_count(); }
  void barrier();
  void release();
  void acquire();

  // Records the homes of pages [first, first+count) chosen by a placement
  // policy, before any node touches them.
  void place(size_t first, size_t count, rdsm_placement placement);

  // After finish(): copies into this node's memory every page of the first
  // `pages` whose home is another node, so that this node's memory alone
  // holds the whole shared state (fork-join jobs end with the master
  // holding it, then start the next job from it).
  void gather_homes(size_t pages);
  const fabric::Segment &data_segment() const { return data_seg_; }

 private:
  enum PageState : uint8_t { kInvalid = 0, kReadOnly = 1, kWritable = 2 };

  // ---- faults and intervals (hlrc.cpp)
  // Makes the faulting access possible; mu_ held.  `remote` allows home
  // claims and fetches.  Returns false (changing nothing) when it needs
  // what it may not do.
  bool resolve_fault(size_t page, bool write, bool remote);
  // On the fault service thread: may do anything.
  void on_fault(size_t page, bool write);
  // In the signal handler: only async-signal-safe work (the futex lock mu_,
  // preallocated tables, the twin arena, memcpy, mprotect, and — when the fabric
  // says its operations are signal-safe — sends, waits and one-sided reads
  // with buffers on the stack).  Returns false to hand the fault over.
  static bool fault_in_signal(void *self, size_t page, bool write);
  // Makes an accessible page writable (twin if not home); mu_ held.
  void make_writable(size_t page);
  void note_written(size_t page);
  uint8_t *twin(size_t page) {
    int32_t slot = twin_slot_[page];
    return slot >= 0 ? twin_pool_ + (size_t)slot * kPageBytes : twins_ + page * kPageBytes;
  }
  // Picks the twin's memory for a page about to be twinned; mu_ held.
  void take_twin_slot(size_t page);
  void close_interval();  // with mu_ held
  void apply_notices(const NoticeSet &s);
  uint32_t open_interval() const { return notices_.vc_of(self_) + 1; }
  uint32_t *required(size_t page) { return required_ + page * nodes_; }
  std::atomic_ref<uint32_t> version(size_t page, int writer) {
    return std::atomic_ref<uint32_t>(versions_[page * nodes_ + writer]);
  }
  bool versions_cover(const uint32_t *have, const uint32_t *need) const;
  void free_twin(size_t page);

  // ---- home claim axis (home_directory.cpp)
  int home_of(size_t page);
  int claim_home(size_t page);
  void on_home_query(const fabric::Message &m);
  void on_home_reply(const fabric::Message &m);

  // ---- page fetch axis (page_fetch.cpp)
  void fetch(size_t page, int home);
  void on_fetch_request(const fabric::Message &m);
  void on_fetch_reply(const fabric::Message &m);
  void serve_fetch(int requester, size_t page);
  void serve_deferred_fetches(size_t page);

  // ---- notice axis (notice_propagation.cpp)
  // Called at the end of close_interval: eager mode pushes the notices.
  void publish_interval(uint32_t id, const std::vector<uint32_t> &pages);
  // Eager mode: moves what writers pushed into pending_ (not applied yet).
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

  // ---- diff axis (diff_propagation.cpp)
  // Diffs the given dirty pages against their twins (freeing the twins) and
  // makes every diff visible at its home before returning.
  void propagate_diffs(const std::vector<uint32_t> &pages, uint32_t interval);
  void on_diff(const fabric::Message &m);

  fabric::Fabric &f_;
  Options opt_;
  ProtocolConfig cfg_;
  int self_, nodes_;

  // Home pages nobody has copied need no write notices: a later fetch gets
  // the home's copy as it is.  So the home leaves such pages writable
  // ("untracked") and skips their write faults; every fetch first counts
  // itself in the home's `copies` word (remote fetch-and-add, or the home's
  // handler), and at each release the home starts tracking the pages that
  // were copied meanwhile, naming them in that interval's notices.
  fabric::Segment data_seg_, dir_seg_, version_seg_, copies_seg_;
  bool copied_at_home(size_t page) {
    return std::atomic_ref<uint64_t>(reinterpret_cast<uint64_t *>(copies_seg_.base)[page])
               .load(std::memory_order_acquire) != 0;
  }
  std::vector<uint8_t> untracked_;
  std::vector<uint32_t> untracked_list_;
  size_t untracked_count_ = 0;
  std::vector<uint8_t> copied_;  // this node has counted itself at the page's home
  std::unique_ptr<SharedRegion> region_;
  uint32_t *versions_ = nullptr;  // this node's home versions: [page][writer]
  uint32_t *required_ = nullptr;  // what this node's notices require: [page][writer]
  size_t pages_ = 0;

  // Local page table, guarded by mu_ (a FutexLock: the signal handler's
  // fast path takes it too).  None of these vectors grows after
  // construction.
  FutexLock mu_;
  std::vector<uint8_t> state_;
  std::vector<int16_t> home_;
  std::vector<uint8_t> has_twin_;
  uint8_t *twins_ = nullptr;  // twin arena: one slot per page
  // Twins come from a pool of memory touched at start-up while it lasts,
  // so that making a twin in a fault costs a copy, not a page allocation
  // by the kernel; past that, from the page's slot in the arena.
  uint8_t *twin_pool_ = nullptr;
  size_t twin_pool_slots_ = 0;
  std::vector<uint32_t> pool_free_;  // free pool slots, a stack; capacity fixed
  size_t pool_free_count_ = 0;
  std::vector<int32_t> twin_slot_;   // pool slot of each twinned page, or -1
  std::vector<uint8_t> written_;        // written in the open interval
  std::vector<uint32_t> written_list_;  // the same pages, in order; capacity = pages
  size_t written_count_ = 0;

  NoticeStore notices_;
  VClock last_barrier_vc_;    // merged clock of the latest barrier
  VClock forget_floor_;       // of the one before: every node has caught up to it
  std::unique_ptr<sync::Locks> locks_;
  std::unique_ptr<sync::Barrier> barrier_;

  // Eager notices: per writer a ring in every reader's memory.
  fabric::Segment notice_seg_;
  size_t ring_bytes_ = 0;
  std::vector<uint64_t> push_head_;  // per reader: how far this node has written
  std::mutex pending_mu_;
  std::vector<Interval> pending_;

  // Replies awaited by the fault service thread or the application thread.
  std::atomic<int64_t> fetched_page_{-1};
  std::atomic<int64_t> home_reply_page_{-1};
  std::atomic<int> home_reply_value_{-1};
  std::atomic<int> diff_acks_pending_{0};
  std::mutex query_mu_;
  std::vector<NoticeSet> query_replies_;

  // Home side, touched only by handlers (serialised by the fabric).
  struct DeferredFetch {
    int requester;
    std::vector<uint32_t> need;
  };
  std::unordered_map<uint32_t, std::vector<DeferredFetch>> deferred_;
};

}  // namespace rdsm
