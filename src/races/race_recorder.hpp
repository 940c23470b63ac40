// What one node of a job records for the race report (`rdsm run --races`):
// per interval it closes, the bytes it changed in each page and the vector
// clock of what it knew by synchronisation when the interval began; and the
// node's log of them on disk (race_log_format.hpp).
//
// The clock is this node's own, kept apart from the protocol's notices:
// notices may run ahead of synchronisation (pushed notices are taken in at
// any acquire), and an interval known that way is not ordered by the
// program.  Entry w is the newest interval of node w ordered before this
// point by locks, barriers and rdsm_acquire; a release passes it on (with
// this node's own newest interval), an acquire merges what its release
// passed on, a barrier merges everyone's.  Node X's interval a is then
// ordered before node Y's interval b exactly when the clock b began with
// has an entry for X of at least a.
//
// Memory stays bounded: records are appended to the log file as they
// fill a buffer, and the log stops at a cap (RDSM_RACE_LOG), saying where,
// so that the report can say what it does not cover.
#pragma once
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace rdsm::races {

using Clock = std::vector<uint32_t>;

struct RecorderSetup {
  std::string dir;   // where the log goes
  uint32_t job = 0;  // race_job.hpp
  int rank = 0, nodes = 1;
  uint64_t cap_bytes = 0;  // the log's cap
  uint64_t region_base = 0;
  size_t page_bytes = 4096;
};

class RaceRecorder {
 public:
  explicit RaceRecorder(const RecorderSetup &setup);
  ~RaceRecorder();
  RaceRecorder(const RaceRecorder &) = delete;
  RaceRecorder &operator=(const RaceRecorder &) = delete;

  // ---- the open interval's writes (any thread of the node)
  // ORs a page's changed-byte mask (bit i: byte i; page_bytes / 64 words).
  void add_mask(uint32_t page, const uint64_t *mask);
  void add_bytes(uint32_t page, uint32_t offset, uint32_t length);
  // The pages written so far in the open interval.
  void pending_pages(std::vector<uint32_t> &out);
  // The open interval closed as interval `id` of this node: its writes are
  // recorded with the clock it began with.
  void seal(uint32_t id);

  // ---- the clock (the application's side, one synchronisation at a time)
  // What a release of this node passes on.
  Clock release_clock();
  // An acquire learnt `c`: what some release passed on.
  void merge(const Clock &c);
  // After a barrier: every interval up to `target` is ordered before what
  // follows, which is the next epoch.
  void barrier_passed(const Clock &target);
  // This node released lock `id` (a manager lock: the clock is handed on
  // with the grant, which may be built later).
  void lock_released(int id);
  // What this node's last release of lock `id` passed on, zeros if none
  // (any thread: a grant may be built by a handler).
  Clock lock_clock(int id);
  size_t clock_bytes() const { return (size_t)nodes_ * sizeof(uint32_t); }

  // The node leaves the job: the log gets what is left, the process's
  // allocations and its end mark.
  void finish();

 private:
  void append_interval(uint32_t id);
  void flush();
  void give_up(const char *why, int err);

  const RecorderSetup setup_;
  const int nodes_;
  const size_t mask_words_;
  std::mutex mu_;  // the open interval's pages and the lock clocks (handlers add to them)
  std::unordered_map<uint32_t, size_t> slot_of_;  // page -> its mask in masks_
  std::vector<uint32_t> pages_;
  std::vector<uint64_t> masks_;
  std::unordered_map<int, Clock> lock_clocks_;

  Clock clock_;
  uint32_t epoch_ = 0;
  uint32_t last_sealed_ = 0;

  std::vector<uint8_t> rec_;  // scratch: the interval being encoded
  // The masks the interval being encoded logged whole, by their hash: the
  // accumulator's slot holding it and its number k in the interval.
  struct LoggedMask {
    size_t slot;
    uint32_t k;
  };
  std::unordered_multimap<uint64_t, LoggedMask> logged_masks_;
  std::vector<uint8_t> buf_;  // not yet in the file
  uint64_t logged_ = 0;       // bytes in the file and buf_
  bool stopped_ = false;      // the cap was reached, or the file could not be written
  bool failed_ = false;       // the file could not be written: it is left incomplete (no end mark)
  int fd_ = -1;
};

}  // namespace rdsm::races
