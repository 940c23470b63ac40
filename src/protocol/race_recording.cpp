// Recording for the data-race report (`rdsm run --races`, RDSM_RACES=on):
// per interval, the bytes this node changed in each page it wrote, and the
// clock of what it knew by synchronisation when the interval began
// (races/race_recorder.hpp keeps them and writes the node's log).
//
// Exact to the byte, so every write must pass through a twin:
//   - a copy's writes are the diff against its twin, taken when the diff is
//     made (record_diffs, at every propagate_diffs);
//   - a home page gets a twin too when it becomes writable (the home
//     otherwise writes its copy directly, and untracked when nobody holds a
//     copy, which recording turns off), and at release the twin gives the
//     home's own writes, which go nowhere else;
//   - other nodes' diffs land in the home's copy while the home may be
//     writing it, so they must land in its twin as well, or they would be
//     taken for the home's writes.  Only a handler applying the diff can do
//     that, so diffs go by message (diff=message) under recording; the
//     handler holds the page's lock against the home making, dropping,
//     refreshing or comparing the twin (a comparison between the twin's
//     update and the page's would miss the home's writes:
//     Hlrc::differs_from_twin), and bytes the home wrote that the diff
//     overwrites are recorded for the home first (apply_diff_at_home);
//   - writes detected by a page-table scan have no twin at the home before
//     they happen, so detection is by faults (detect=sync).
// The other axes keep their choices: kept pages, pages written ahead and
// home moves all keep twins of what their pages held.
//
// An interval's writes must share one clock: the open interval is closed
// at the start of every acquire (a lock, rdsm_acquire; a barrier begins
// with a release anyway), before anything is learnt.  The clock is the
// recorder's own (what a lock's last release passed on, what a barrier
// gathered), sent with locks beside what the protocol sends: the notices
// the protocol takes in may run ahead of synchronisation.
#include <cstring>

#include "common/error.hpp"
#include "protocol/diff.hpp"
#include "protocol/hlrc.hpp"
#include "races/race_job.hpp"
#include "stats/stats.hpp"

namespace rdsm {

namespace {
constexpr size_t kMaskWords = kPageBytes / 64;
}

void Hlrc::setup_race_recording() {
  if (!opt_.races) return;
  if (cfg_.coherence == CoherenceAxis::hardware)
    fatal("--races (RDSM_RACES=on) needs a protocol that keeps copies coherent in software: under %s the hardware "
          "keeps one memory coherent and no write passes through rdsm; choose another protocol (e.g. rdsm)",
          cfg_.name.c_str());
  if (opt_.fabric == "mpi")
    fatal("--races (RDSM_RACES=on) is not available on the mpi fabric: the nodes' race logs are read from one "
          "host; run on one host with the shm fabric, or leave --races out");
  races::enable(opt_.races_dir);
  // Made now if the launcher gave none, so that a fork-join master's
  // workers, forked before their job starts, inherit it.
  (void)races::log_dir();
  const uint32_t job = races::next_job();
  cfg_.detect = DetectAxis::sync;
  cfg_.diff = DiffAxis::message;
  if (nodes_ < 2) return;  // nobody to race with
  twin_locks_.reset(pages_);
  races::RecorderSetup setup;
  setup.dir = races::log_dir();
  setup.job = job;
  setup.rank = self_;
  setup.nodes = nodes_;
  setup.cap_bytes = opt_.race_log_bytes;
  setup.region_base = opt_.region_base;
  setup.page_bytes = kPageBytes;
  races_ = std::make_unique<races::RaceRecorder>(setup);
}

void Hlrc::twin_home_page(size_t page) {
  races::PageLocks::Hold hold(twin_locks_, page);
  if (has_twin_[page]) return;
  twin_from_copy(page, false);  // a real copy: zero twins are not made under --races
  add(stats().twins);
}

void Hlrc::record_diffs(const std::vector<uint32_t> &pages) {
  uint64_t mask[kMaskWords];
  for (uint32_t p : pages) {
    if (!has_twin_[p]) continue;
    if (diff_change_mask(twin(p), region_->sys_page(p), kPageBytes, mask)) races_->add_mask(p, mask);
  }
}

void Hlrc::note_harvested_writes() {
  std::vector<uint32_t> pages;
  races_->pending_pages(pages);
  for (uint32_t p : pages) note_written(p);
}

void Hlrc::record_home_writes(const std::vector<uint32_t> &written, bool keep) {
  uint64_t mask[kMaskWords];
  for (uint32_t entry : written) {
    uint32_t p = notice_page(entry);
    if (home_[p] != self_ || !has_twin_[p]) continue;
    {
      races::PageLocks::Hold hold(twin_locks_, p);
      if (diff_change_mask(twin(p), region_->sys_page(p), kPageBytes, mask)) races_->add_mask(p, mask);
    }
    // A kept page's twin is brought up to date by keep_written; any other
    // is write-protected now, and its next write faults and twins it again.
    if (!keeps_twin(p, keep)) free_twin(p);
  }
}

void Hlrc::seal_race_interval(uint32_t id) { races_->seal(id); }

bool Hlrc::apply_diff_at_home(uint32_t page, const uint8_t *diff, size_t len) {
  uint8_t *copy = region_->sys_page(page);
  if (!races_) return diff_apply(copy, kPageBytes, diff, len);
  races::PageLocks::Hold hold(twin_locks_, page);
  if (home_[page] == self_ && has_twin_[page]) {
    uint8_t *base = twin_to_write(page, false);
    // Bytes the home changed in its open interval that this diff
    // overwrites: after it page and twin agree on them, so they are
    // recorded for the home now.
    uint64_t mask[kMaskWords] = {};
    bool overwritten = false;
    bool ok = diff_for_each_run(diff, len, kPageBytes, [&](size_t off, const uint8_t *, size_t n) {
      for (size_t i = off; i < off + n; ++i)
        if (copy[i] != base[i]) {
          mask[i / 64] |= 1ull << (i % 64);
          overwritten = true;
        }
    });
    if (!ok || !diff_apply(base, kPageBytes, diff, len)) return false;
    if (overwritten) races_->add_mask(page, mask);
  }
  return diff_apply(copy, kPageBytes, diff, len);
}

void Hlrc::race_acquire_begins() { release_gated(); }

races::Clock Hlrc::race_take_lock_clock(sync::Bytes &got) {
  if (!races_ || got.empty()) return {};
  const size_t n = races_->clock_bytes();
  if (got.size() < n) fatal("internal error: a lock came without its releaser's race clock");
  races::Clock c((size_t)nodes_);
  memcpy(c.data(), got.data() + got.size() - n, n);
  got.resize(got.size() - n);
  return c;
}

void Hlrc::race_learnt(const races::Clock &c) {
  if (!c.empty()) races_->merge(c);
}

void Hlrc::race_lock_released(int id, sync::Bytes &kept) {
  races_->lock_released(id);
  if (cfg_.lock != LockAxis::atomic) return;
  races::Clock c = races_->release_clock();
  size_t at = kept.size();
  kept.resize(at + races_->clock_bytes());
  memcpy(kept.data() + at, c.data(), races_->clock_bytes());
}

void Hlrc::race_append_lock_clock(int id, sync::Bytes &grant) {
  races::Clock c = races_->lock_clock(id);
  size_t at = grant.size();
  grant.resize(at + races_->clock_bytes());
  memcpy(grant.data() + at, c.data(), races_->clock_bytes());
}

void Hlrc::race_barrier_passed(const VClock &target) { races_->barrier_passed(target); }

void Hlrc::race_acquired_all() { races_->merge(notices_.vc()); }

void Hlrc::finish_race_log() { races_->finish(); }

}  // namespace rdsm
