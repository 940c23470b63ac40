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
//
// With fetch=message the home's handler counts each copy in as it serves
// the page (serve_fetch), with its processor's atomics.  Where the fabric
// maps the home's memory here (peer_segment: the shm fabric) the count goes
// out the same way, a processor atomic on the shared word.  Elsewhere
// (the mpi fabric, whose atomics go through MPI) the copies are counted
// out by the home too: one message per home listing the pages, applied by
// its handler.  A network's atomics need not be atomic with the home's
// processor's, and over a network without RDMA a batch of thousands of
// them costs a round trip each through the home's progress thread
// (seconds after a barrier that drops many copies), where this is one
// message.  A message from this node reaches the home before any later
// request of this node's, so a copy fetched again is counted in after it
// was counted out.
#include <algorithm>
#include <cstring>

#include "common/error.hpp"
#include "protocol/hlrc.hpp"
#include "protocol/msg_types.hpp"

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
  std::vector<uint32_t> pages;
  for (size_t i = 0; i < uncounts_.size();) {
    const int home = uncounts_[i].first;
    fabric::Segment mapped;
    if (cfg_.fetch == FetchAxis::message && !f_.peer_segment(home, copies_seg_.id, &mapped)) {
      pages.clear();
      for (; i < uncounts_.size() && uncounts_[i].first == home; ++i) pages.push_back(uncounts_[i].second);
      f_.send(home, msg::kUncount, pages.data(), pages.size() * sizeof(uint32_t));
      continue;
    }
    ops.clear();
    for (; i < uncounts_.size() && uncounts_[i].first == home; ++i)
      ops.push_back(fabric::Fabric::BatchOp::add(copies_seg_.id, uncounts_[i].second * sizeof(uint64_t), (uint64_t)-1));
    f_.batch(home, ops.data(), ops.size());
  }
  uncounts_.clear();
}

void Hlrc::on_uncounts(const fabric::Message &m) {
  if (m.len % sizeof(uint32_t)) fatal("internal error: count-out message of %zu bytes from node %d", m.len, m.src);
  for (size_t i = 0; i < m.len / sizeof(uint32_t); ++i) {
    uint32_t p;
    memcpy(&p, static_cast<const uint8_t *>(m.data) + i * sizeof p, sizeof p);
    if (p >= pages_) fatal("internal error: node %d counts out a copy of page %u, beyond the region", m.src, p);
    copies_here(p).fetch_sub(page_word::kCopy, std::memory_order_seq_cst);
  }
}

}  // namespace rdsm
