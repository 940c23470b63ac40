// Per-node control words of the shm fabric, at the start of the fabric's
// area of the node's memory file (shm_fabric.hpp has the layout).  Every
// word starts as zero.
#pragma once
#include <atomic>
#include <cstdint>

#include "fabric/doorbell.hpp"
#include "fabric/ring.hpp"

namespace rdsm::fabric::shm {

struct NodeCtl {
  Doorbell doorbell;  // rung after every published fragment
  // The barrier words are used in node 0's copy only.
  alignas(kCacheLine) std::atomic<uint32_t> barrier_count;
  alignas(kCacheLine) std::atomic<uint32_t> barrier_gen;
  // Signal mode (shm_signal.cpp): the process a sender signals after it has
  // published a fragment (0: the node takes no signals), and whether a
  // signal is on its way already (set by the sender that sends it, cleared
  // by the receiver's handler before it looks at the rings).
  alignas(kCacheLine) std::atomic<int32_t> signal_pid;
  std::atomic<uint32_t> signal_sent;
};
static_assert(sizeof(NodeCtl) <= 4096);
static_assert(std::atomic<int32_t>::is_always_lock_free, "signal words need address-free atomics");

}  // namespace rdsm::fabric::shm
