// The pool of twin slots a node's twins come from while it lasts
// (twin_pool.cpp says why a pool, and when its slots get memory).  Slots
// are a stack, the lowest used again and again; taking and giving back
// slots happens under the protocol's lock (mu_), warming may happen on any
// thread that waits (a lock or barrier's idle work).
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "memory/region.hpp"

namespace rdsm {

class TwinPool {
 public:
  TwinPool() = default;
  TwinPool(const TwinPool &) = delete;
  TwinPool &operator=(const TwinPool &) = delete;
  ~TwinPool();
  // Reserves `slots` page-sized slots (none: an empty pool).
  void create(size_t slots);
  size_t slots() const { return slots_; }
  // A free slot, with memory, or -1 if none is left.
  int32_t take();
  void give_back(int32_t slot) { free_[free_count_++] = (uint32_t)slot; }
  uint8_t *slot(int32_t s) const { return base_ + (size_t)s * kPageBytes; }
  // Idle work: gives the next few slots memory; false once all have it.
  bool warm();

 private:
  void give_memory(size_t from, size_t count);
  uint8_t *base_ = nullptr;
  size_t slots_ = 0;
  std::atomic<size_t> ready_{0};  // the slots below have memory (raised by take and by warm)
  std::vector<uint32_t> free_;    // free slots, a stack; capacity fixed
  size_t free_count_ = 0;
};

}  // namespace rdsm
