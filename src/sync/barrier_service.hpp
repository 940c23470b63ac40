// Barrier through a manager (node 0): every node sends an arrival with a
// payload; when all have arrived the manager merges the payloads (the
// protocol merges write notices there) and sends the result to every node.
#pragma once
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

#include "fabric/fabric.hpp"
#include "sync/locks.hpp"

namespace rdsm::sync {

struct BarrierHooks {
  // At the manager, once all nodes arrived: arrivals[i] is node i's payload.
  std::function<Bytes(const std::vector<Bytes> &arrivals)> merge;
};

class BarrierService final : public Barrier {
 public:
  BarrierService(fabric::Fabric &f, BarrierHooks hooks);
  // Blocks until every node arrived; returns the merged payload.
  Bytes wait(const Bytes &arrival, const std::function<void()> &while_waiting) override;

 private:
  void on_arrive(const fabric::Message &m);
  void on_depart(const fabric::Message &m);

  fabric::Fabric &f_;
  BarrierHooks hooks_;
  std::mutex mu_;
  uint64_t epoch_ = 0;  // barriers this node has completed
  // departure of the current barrier
  bool departed_ = false;
  Bytes departure_;
  // at the manager
  std::vector<Bytes> arrivals_;
  int arrived_ = 0;
};

}  // namespace rdsm::sync
