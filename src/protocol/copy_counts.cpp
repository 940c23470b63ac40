// Counting a dropped copy out at its home (hlrc.hpp, copied_): the home's
// word of the page counts the copies out there, and the home writes a page
// unnoticed only while it counts none (first_copy_log.cpp).  A fetch
// counts its copy before it reads the page, always at once.  Dropping one
// needs no such order: a count left high for a while only makes the home
// notice writes nobody needs to hear of.  So the copies an acquire, a
// barrier's home moves or its withheld pages drop are counted out together
// at the end, a batch of atomics per home (one round trip on a network,
// where one each cost an acquire that dropped a thousand copies a thousand
// round trips); the fetch paths, which may run in a signal handler and
// allocate nothing, count out the pages they did not fetch after all in
// batches of their own, from the fetch scratch (queue_uncounts).
#include <algorithm>

#include "protocol/hlrc.hpp"

namespace rdsm {

void Hlrc::uncount_copy(size_t page) {
  if (!copied_[page]) return;
  copied_[page] = 0;
  uncounts_.push_back({home_[page], (uint32_t)page});
}

void Hlrc::send_uncounts() {
  if (uncounts_.empty()) return;
  std::sort(uncounts_.begin(), uncounts_.end());
  std::vector<fabric::Fabric::BatchOp> ops;
  for (size_t i = 0; i < uncounts_.size();) {
    const int home = uncounts_[i].first;
    ops.clear();
    for (; i < uncounts_.size() && uncounts_[i].first == home; ++i)
      ops.push_back(fabric::Fabric::BatchOp::add(copies_seg_.id, uncounts_[i].second * sizeof(uint64_t), (uint64_t)-1));
    f_.batch(home, ops.data(), ops.size());
  }
  uncounts_.clear();
}

}  // namespace rdsm
