// Detect axis, `scan` (presets.hpp): the uffd backend's scan mode lets
// writes to valid pages through without a fault, so a copy is twinned when
// it arrives, and the pages written are found by a page-table scan at
// release, or at an acquire that drops copies.  Home pages nobody has a
// copy of are left writable and untracked, as in fault mode (hlrc.hpp).
#include <atomic>
#include <cstring>

#include "protocol/hlrc.hpp"
#include "stats/stats.hpp"

namespace rdsm {

void Hlrc::twin_fetched(size_t first, size_t count) {
  for (size_t p = first; p < first + count; ++p) {
    if (!has_twin_[p]) {
      take_twin_slot(p);
      has_twin_[p] = 1;
      add(stats().twins);
    }
    memcpy(twin_to_write(p, true), region_->sys_page(p), kPageBytes);
  }
}

// The scan watches again every page it finds; those left writable from now
// on are unwatched here (a few, once each).
void Hlrc::collect_scanned_writes() {
  scanned_.clear();
  unwatch_.clear();
  region_->collect_written(scanned_);
  bool fenced = false;
  for (uint32_t p : scanned_) {
    if (state_[p] == kInvalid || state_[p] == kPrefetched) continue;  // not mapped: cannot be written
    if (home_[p] == self_) {
      if (untracked_[p]) {  // left writable until a copy is counted (close_interval)
        unwatch_.push_back(p);
        continue;
      }
      // A home page nobody has a copy of needs no notice, and is left
      // writable, untracked (hlrc.hpp), by the same fence: either the home
      // sees a copy counted, or the copy holds these writes.
      if (claim_untracked(p, &fenced)) {
        unwatch_.push_back(p);
        continue;
      }
    }
    note_written(p);
  }
  region_->unwatch(unwatch_);
}

}  // namespace rdsm
