// A barrier by remote atomics: no handler runs.  Node 0's memory holds an
// arrival counter and one fixed-size slot per node; every node's own memory
// holds a generation word.  Each node writes its arrival into its slot and
// takes a fetch-and-add on the counter; the last to arrive resets the
// counter and adds one to every other node's generation word, which each
// of them polls in its own memory.  The departure is every node's slot.
//
// Waiting on its own memory costs a node nothing on the network: a poll of
// a word at node 0 is a round trip each time, and where one-sided
// operations need the target's CPU (MPI over TCP) every poll also wakes
// node 0's progress thread (a barrier across two emulated hosts took 7.2 ms
// polling, 3.4 ms so).  The last node pays one add per other node.
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
