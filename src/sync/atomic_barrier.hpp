// A barrier by remote atomics: no handler runs.  Node 0's memory holds an
// arrival counter, a generation word and one fixed-size slot per node;
// each node writes its arrival into its slot, takes a fetch-and-add on the
// counter, and the last to arrive resets the counter and advances the
// generation the others are polling.  The departure is every node's slot.
#pragma once
#include <vector>

#include "fabric/fabric.hpp"
#include "sync/locks.hpp"

namespace rdsm::sync {

class AtomicBarrier final : public Barrier {
 public:
  // Collective.  Every arrival has exactly `slot_bytes` bytes.
  AtomicBarrier(fabric::Fabric &f, size_t slot_bytes);
  // Returns the arrivals of all nodes, node 0 first.
  Bytes wait(const Bytes &arrival, const std::function<void()> &while_waiting) override;

 private:
  fabric::Fabric &f_;
  size_t slot_bytes_, slot_stride_;
  fabric::Segment seg_;
  std::vector<fabric::Fabric::BatchOp> reads_;  // the departure: every slot, read in one batch
};

}  // namespace rdsm::sync
