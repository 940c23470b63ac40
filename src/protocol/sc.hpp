// Sequential consistency with one writer per page: the protocol of the
// Multiview DSM of Liss, Birk and Schuster (preset sc), at page granularity.
//
// Every page has an owner, which holds a valid copy, and a manager, node
// page mod nodes (statically distributed, round robin), which knows the
// owner and the other nodes holding read-only copies (the readers) and
// orders the requests for the page: it starts the next one only once the
// requestor of the last has acknowledged it.  The three roles of the paper,
// one file each:
//   requestor  sc_requestor.cpp  a fault asks the manager, waits for every
//                                answer, installs the copy and acknowledges
//   manager    sc_manager.cpp    decides who sends what for each request
//   server     sc_server.cpp     sends its copy, keeps it read-only or drops it
// A read miss makes the requestor a reader: the owner sends its copy and
// keeps it read-only.  A write fault makes the requestor the owner: the old
// owner drops its copy and sends it (unless the requestor has a valid one),
// every reader drops its copy and tells the requestor, which waits for all
// of them.  A page nobody has touched goes writable to the first node that
// touches it; a placed page starts with its placement's node as owner.
//
// Any program sees sequentially consistent memory: a page is writable at
// one node at a time, and only while no other node can read it.  So there
// are no twins, diffs, intervals or notices; locks and barriers (sync/)
// carry nothing, and release and acquire have nothing to do.
//
// Concurrency: message handlers (one at a time, the fabric's guarantee),
// the fault service thread and the application threads share the page
// state under mu_; what a step sends is sent after mu_ is released
// (sc_messages.hpp), and a message to this node is handled on the spot, so
// that a manager that is also the requestor or the owner costs no message.
// The signal handler only reads a page's access.  A fault's acknowledgement
// waits until the faulting thread has retried its access
// (memory/fault_dispatch.hpp): until then the manager gives the page to
// nobody else, so two nodes writing one page cannot take it from each
// other for ever.
//
// Minipages (RDSM_MINIPAGES, memory/minipage_views.hpp): the coherence
// unit is the application view's virtual page, so a minipage, which has a
// virtual page of its own in one of the views of the minipage area, has its
// own owner, readers, manager (virtual page mod nodes) and protection
// exactly as a page does; the code below says "page" for either.  What
// differs is the data: a minipage's extent (its bytes within the data page
// behind its view) is set when it is allocated, in an extent word at its
// manager beside the owner word, and orders and replies carry the extent,
// so only those bytes move.  An unallocated minipage has an empty extent.
//
// Adaptive minipages (RDSM_MINIPAGES=adaptive, sc_adaptive.cpp): minipages
// always accessed together are fetched together.  The requestor learns,
// for each minipage, the minipage it faults on next in the same
// synchronisation epoch; once that pair has been seen twice in a row, a
// fault on the first also asks for the second.  Coherence stays per
// minipage (each of the two is a request of its own at its own manager),
// so nothing needs agreeing between nodes and a wrong guess costs one
// transfer, never correctness.  The second request is a "follower": the
// faulting thread does not wait for it, and its answer is taken and
// acknowledged at once (it has no access to retry), so it never holds its
// manager back and two nodes asking for the same pair cannot wait for
// each other.
//
// Data by one-sided operations (fetch=one-sided, the papers' RDMA
// options): where the owner's copy is read-only, a read miss needs nothing
// of the owner, so the manager answers with the owner's name and the
// requestor reads the copy from the owner's memory itself (RDMA-R: the
// owner is not disturbed, and a requestor that manages the page sends no
// message at all); where the owner must act (give up write access, or the
// page), it writes the contents straight into the requestor's copy and its
// reply only says so.  The copy read stays as it is until the requestor's
// acknowledgement: the owner cannot write it (read-only), and the manager
// lets nobody take the page before then.  The manager knows the owner is
// read-only from its own decisions (kOwnerReadOnly in the owner word): set
// when it orders the owner to serve a read, cleared when it grants write
// access or the page is placed; an owner also sets and clears it itself,
// where nobody else can hold a copy (below).
//
// One-sided read misses (fetch=one-sided, sc_fast_read.cpp): a read miss
// on a page whose owner is read-only needs no decision of the manager's
// that the owner word does not already hold, so the faulting thread serves
// it itself, in the signal handler, with no message and no other thread:
// it claims the owner word at the manager by compare-and-swap (the owner
// read-only, no request in progress, nobody else reading so), names itself
// a reader in the word, reads the copy from the owner's memory, maps it
// read-only here and lets the word go.  The manager marks every request
// in the word while it is in progress (kInRequest, from its start to the
// acknowledgement), waits for a one-sided reader to finish before it
// starts one, and takes the readers the word names into its reader set
// then.  So a one-sided read never overlaps a request of the page: the
// owner's copy cannot change while it is read (the owner may write only
// after a request), and no order about the page can reach the reader
// before it has mapped its copy (it is a reader the next request
// invalidates, like any other).
//
// Read-shared pages downgraded at barriers (fetch=one-sided,
// sc_downgrade.cpp): a page its owner writes and other nodes read after
// the next barrier (a boundary row, a producer's output) costs each reader
// a request that interrupts the owner to make it read-only.  An owner that
// has served a read of a page before gives up write access to it by itself
// when it arrives at a barrier (one protection change for all such pages)
// and marks itself read-only in the owner word (kVoluntary beside
// kOwnerReadOnly), so that the readers after the barrier read it
// one-sidedly.  Its own next write, if no node has read the page since,
// takes write access back in the signal handler with one compare-and-swap
// of the word from exactly that state: no request, no reader, so nobody
// else holds a copy and the manager has nothing to decide.  The manager
// drops kVoluntary whenever it starts a request, and a one-sided reader
// leaves its bit in the word, so the swap fails (and the fault asks the
// manager as before) whenever anyone may hold a copy.
//
// Read misses on a writable owner's page (fetch=one-sided, nodes on one
// host with uffd memory, sc_peer_downgrade.cpp): the faulting thread
// claims the word as for a read-only owner, write-protects the owner's copy
// itself through the owner's userfaultfd (duplicated into its process) and
// reads it; the owner, bounded to read access, asks the manager when it
// next writes.  No thread of the owner's is woken.
#pragma once
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "common/page_array.hpp"
#include "memory/backend.hpp"
#include "memory/minipage_views.hpp"
#include "protocol/protocol.hpp"
#include "protocol/sc_messages.hpp"
#include "sync/locks.hpp"

namespace rdsm {

class Sc final : public Protocol {
 public:
  // Collective: registers the protocol's segments and message handlers.
  Sc(fabric::Fabric &f, const Options &opt, const ProtocolConfig &cfg);
  ~Sc() override;
  void start() override;
  void finish() override;

  SharedRegion &region() override { return *region_; }
  const ProtocolConfig &config() const override { return cfg_; }

  void lock(int id) override;
  bool try_lock(int id) override;
  void unlock(int id) override;
  int lock_count() const override { return locks_->lock_count(); }
  void barrier() override;
  // Every write is visible to every later read already: nothing to do but
  // serve peers (poll handler mode).
  void release() override { f_.poll(); }
  void acquire() override { f_.poll(); }

  void place(size_t first, size_t count, rdsm_placement placement) override;
  void place_minipage(size_t page, size_t offset, size_t bytes) override;
  // The managers know every owner; a node learns a page's when it faults.
  void learn_homes(size_t, size_t) override {}
  void populate_copies(size_t first, size_t count) override;
  // Copies every run: minipage views map this node's file too, so a run
  // mapped from another node's file would show only in the main view.
  void gather_homes(size_t pages, const AdoptRun &) override;
  const fabric::Segment &data_segment() const override { return data_seg_; }

 private:
  // ---- the node's page state (sc.cpp), under mu_
  sc::Access access(size_t page) const {
    // Written under mu_, read without it (the signal handler, the fault
    // service thread's first look).  A peer that write-protected the page
    // here (sc_peer_downgrade.cpp) left its bound: read access, until the
    // next set_access.
    const auto a =
        sc::Access(std::atomic_ref<uint8_t>(const_cast<uint8_t &>(access_[page])).load(std::memory_order_acquire));
    if (a == sc::kWrite && bounds_ && peer_bound::bounded(&bounds_[page])) return sc::kRead;
    return a;
  }
  void set_access(size_t page, sc::Access a);
  bool allows(size_t page, bool write) const { return access(page) >= (write ? sc::kWrite : sc::kRead); }
  int manager_of(size_t page) const { return (int)(page % nodes_); }

  // Runs one step of the protocol under mu_: `body` posts messages, those
  // to this node are handled at once (and may post more), the others are
  // sent once mu_ is released.
  void step(const std::function<void(sc::Outbox &)> &body);
  // A message, from another node or this one; mu_ held.
  void handle(int src, fabric::MsgType type, const void *data, size_t len, sc::Outbox &out);
  void run_local(sc::Outbox &out);  // mu_ held
  void send_remote(sc::Outbox &out);

  // ---- requestor (sc_requestor.cpp)
  // On the fault service thread: asks for the access and waits for it.
  void on_fault(size_t page, bool write);
  // In the signal handler: only whether the access is already allowed.
  static bool fault_in_signal(void *self, size_t page, bool write);
  // In the signal handler: a read miss served one-sidedly (sc.hpp); false
  // when the page's state does not allow it (the service thread asks then).
  bool read_one_sided(size_t page);

  // ---- read misses on a writable owner's page (sc_peer_downgrade.cpp)
  // Constructor, collective: the bounds segment, and this node's part.
  void setup_peer_downgrades();
  // Whether this node can write-protect `owner`'s pages itself (the same
  // host, both on uffd memory, its userfaultfd duplicated here).
  bool can_downgrade(int owner);
  // In the signal handler, the owner word claimed: bounds the owner's
  // copy of `page` to read and write-protects it; false, having changed
  // nothing, where the owner is mapping it writable right now.
  bool downgrade_owner(int owner, size_t page);
  // This node makes `page` writable outside a request: no peer may bound
  // it from hold_off_peers to let_peers_in.  False where one has (then it
  // is not to be made writable).
  bool hold_off_peers(size_t page);
  void let_peers_in(size_t page);
  // This node's access to `page` changed (mu_): a peer's bound on it ends.
  void lift_bound(size_t page);
  fabric::Segment bounds_seg_;
  uint64_t *bounds_ = nullptr;  // this node's bounds (backend.hpp), where peers may set them
  uint64_t pid_ns_ = 0;         // this process's pid namespace
  std::unique_ptr<std::atomic<int>[]> peer_fds_;  // peers' userfaultfds, duplicated here
  // In the signal handler (signal_reads_, while the fabric's sends and
  // waits are signal-safe): a read miss asked for by the faulting thread
  // itself, without the hand-off to the service thread and back.
  bool read_in_signal(size_t page);
  // mu_ held: this node's one request is now for `page`; its message.
  sc::RequestMsg open_request(size_t page, bool write);
  bool signal_reads_ = false;  // one application thread, no adaptive minipages
  // On the fault service thread, once the faulting thread retried: the
  // acknowledgement lets the manager go on with the page.
  void on_retried();
  void take_reply(const sc::ReplyMsg &r, const uint8_t *data, sc::Outbox &out);
  // An answer's contents into this node's copy: from the message, read
  // from the owner's copy (read_from), or nothing to do (placed, or none).
  void install_data(const sc::ReplyMsg &r, const uint8_t *data);
  // The application is about to synchronise: the acknowledgement of its
  // last fault has gone (it has retried, so that is a matter of moments).
  void settle_ack();

  // ---- adaptive minipages (sc_adaptive.cpp); the service thread's, but
  // for the follower's answers (mu_)
  // Notes that this node faults on `page` now (the pair it makes with the
  // fault before it).
  void learn_pair(size_t page, bool write);
  // In the fault's step: asks for the follower of `page` too, if learnt.
  void ask_follower(size_t page, sc::Outbox &out);
  // An answer for the follower: true if `r` was one (taken, acknowledged
  // once complete).
  bool take_follower_reply(const sc::ReplyMsg &r, const uint8_t *data, sc::Outbox &out);
  // Waits until no follower request is open (before a fault on it, before a barrier).
  void settle_follower();
  // Synchronisation starts a new epoch: pairs do not span it.
  void new_epoch() { epoch_.fetch_add(1, std::memory_order_relaxed); }

  // ---- manager (sc_manager.cpp); pages with page % nodes == self
  void on_request(int requestor, const sc::RequestMsg &r, sc::Outbox &out);
  void on_ack(int requestor, const sc::AckMsg &a, sc::Outbox &out);
  // Starts a request: orders the servers, or answers at once.
  void start_request(int requestor, uint32_t page, bool write, sc::Outbox &out);
  // The owner word lives in this segment at the page's manager, so that
  // placement (any node) and gathering (fork-join) reach it one-sided:
  // owner + 1 in the low half, 0 while nobody owns the page, and
  // kOwnerReadOnly once the owner was ordered to serve a read and before it
  // is granted write access again (fetch=one-sided reads its copy then).
  // Placement writes owner + 1 alone: a placed page's owner may write it.
  // The word also says whether a request of the page is in progress
  // (kInRequest) or a one-sided read (kReadingOneSided), whether the owner
  // made itself read-only at a barrier and nobody has asked for the page
  // since (kVoluntary, with kOwnerReadOnly; sc_downgrade.cpp), and names the
  // nodes that have read the page one-sidedly since the manager last
  // looked (a bit each from kOneSidedReaders on; one-sided reads need
  // nodes <= kMaxOneSidedNodes).  The manager changes the word only
  // through the fabric's atomics, as the one-sided readers and the owner do.
  static constexpr uint64_t kOwnerReadOnly = uint64_t(1) << 32;
  static constexpr uint64_t kInRequest = uint64_t(1) << 33;
  static constexpr uint64_t kReadingOneSided = uint64_t(1) << 34;
  static constexpr uint64_t kVoluntary = uint64_t(1) << 35;
  static constexpr int kOneSidedReaders = 36;
  static constexpr int kMaxOneSidedNodes = 64 - kOneSidedReaders;
  static constexpr uint64_t kOwnerField = 0xffffffffu;
  static int owner_in(uint64_t word) { return (int)(word & kOwnerField) - 1; }
  static uint64_t one_sided_reader(int node) { return uint64_t(1) << (kOneSidedReaders + node); }
  uint64_t owner_offset(size_t page) const { return (page / nodes_) * sizeof(uint64_t); }
  // Manager: marks the page's request in progress, once no one-sided read
  // is, and returns the word as it was (its one-sided readers now in the
  // page's reader set and out of the word).
  uint64_t claim_owner_word(uint32_t page);
  // Manager, during the page's request: the new owner, read-only or not.
  void set_owner(uint32_t page, int node, bool read_only);
  // Manager, at the request's end.
  void release_owner_word(uint32_t page);
  // Whether this node's faulting threads read one-sidedly (sc.hpp).
  bool fast_reads_ = false;
  uint64_t *readers(size_t page) { return readers_.data() + (page / nodes_) * reader_words_; }
  // A minipage's extent word, at its manager: offset << 16 | bytes, 0 while
  // it is not allocated.  Indexed from the first minipage's row.
  size_t extent_index(size_t page) const { return page / nodes_ - views().phys_pages / nodes_; }
  sc::Extent extent(size_t page);  // manager; the whole page for a data page

  const ViewLayout &views() const { return region_->views(); }
  // Where those bytes are in every node's data segment.
  uint64_t data_offset(size_t page, const sc::Extent &e) const {
    return (uint64_t)views().phys_of(page) * kPageBytes + e.offset;
  }
  // The bytes of `page` an extent names, in the system view.
  uint8_t *sys_bytes(size_t page, const sc::Extent &e) const {
    return region_->sys_page(views().phys_of(page)) + e.offset;
  }

  // ---- server (sc_server.cpp)
  void on_order(const sc::OrderMsg &o, sc::Outbox &out);

  // ---- read-shared pages downgraded at barriers (sc_downgrade.cpp)
  // Owner, mu_ held: the page was read from this node (a served read).
  void note_served_read(uint32_t page);
  // At a barrier's arrival: the read-shared pages this node still writes
  // become read-only here and at their managers.
  void downgrade_shared_pages();
  // In the signal handler: write access back to a page downgraded so,
  // if nobody has asked for it since; false: the service thread asks.
  bool upgrade_one_sided(size_t page);
  // voluntary_[page], written under mu_ and read in the signal handler.
  bool voluntary(size_t page) const {
    return std::atomic_ref<uint8_t>(const_cast<uint8_t &>(voluntary_[page])).load(std::memory_order_relaxed);
  }
  void set_voluntary(size_t page, bool on) {
    std::atomic_ref<uint8_t>(voluntary_[page]).store(on, std::memory_order_relaxed);
  }

  fabric::Fabric &f_;
  Options opt_;
  ProtocolConfig cfg_;
  int self_, nodes_;
  size_t pages_ = 0;
  bool adaptive_ = false;  // RDSM_MINIPAGES=adaptive, with more than one node
  bool one_sided_ = false;  // fetch=one-sided: data by one-sided reads and writes
  fabric::Segment data_seg_, owner_seg_, extent_seg_;
  std::unique_ptr<SharedRegion> region_;
  std::unique_ptr<sync::Locks> locks_;
  std::unique_ptr<sync::Barrier> barrier_;

  std::mutex mu_;
  PageArray<uint8_t> access_;  // this node's access to each page (sc::Access)
  // Read-shared pages (fast_reads_ only; mu_): served_reads_[p] once this
  // node served a read of p as its owner, those pages in shared_list_, and
  // voluntary_[p] while this node made itself read-only for p at a barrier
  // (and no order or answer about p has come since).
  PageArray<uint8_t> served_reads_, voluntary_;
  std::vector<uint32_t> shared_list_;

  // Requestor: the one request of this node in progress (faults are served
  // one at a time).
  uint32_t asked_ = 0;    // its page; mu_
  uint32_t replies_ = 0;  // answers received so far; mu_
  std::atomic<bool> granted_{false};
  std::atomic<bool> ack_owed_{false};  // granted, acknowledgement not sent yet

  // Adaptive minipages: each minipage's learnt follower (the page faulted
  // on next, whether that was a write, how many times in a row; service
  // thread only), the last fault and its epoch, and the follower request
  // open, if any (page, answers; mu_).
  struct Follower {
    uint32_t page = 0;
    bool write = false;
    uint8_t seen = 0;
  };
  static constexpr uint32_t kNoPage = UINT32_MAX;
  std::unordered_map<uint32_t, Follower> followers_;
  uint32_t last_fault_ = kNoPage, before_last_ = kNoPage;
  uint64_t last_epoch_ = 0;
  std::atomic<uint64_t> epoch_{0};
  uint32_t follower_asked_ = kNoPage, follower_replies_ = 0;
  std::atomic<bool> follower_open_{false};

  // Manager, indexed by page / nodes: the readers (a bit per node, owner
  // not included), whether a request is in progress, and the requests
  // waiting for it, in order of arrival.
  size_t reader_words_ = 1;
  PageArray<uint64_t> readers_;
  PageArray<uint8_t> busy_;
  struct Waiting {
    int requestor;
    bool write;
  };
  std::unordered_map<uint32_t, std::deque<Waiting>> waiting_;
};

}  // namespace rdsm
