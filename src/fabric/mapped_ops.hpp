// One-sided operations on a segment mapped into this process: what a
// remote write, read or atomic is when the target's memory is shared with
// the initiator (every node of the shm fabric; ranks of the mpi fabric on
// one host).  The callers check the node, segment and bounds and count the
// operation; these do the memory work.  All async-signal-safe.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "fabric/fabric.hpp"

namespace rdsm::fabric::mapped {

// The pieces of a putv into a mapping of `bytes` bytes at `base`; a piece
// outside it ends the process naming `seg` and `dst`.
void putv(uint8_t *base, size_t bytes, SegmentId seg, NodeId dst, const Fabric::Piece *pieces, size_t count);

// get_fresh from mapped memory at `src` into this node's segment `into`
// (Fabric::get_fresh says why a file write beats a copy there).
void get_fresh(const uint8_t *src, const Segment &into, uint64_t into_off, size_t n);

// 64-bit atomics on an 8-byte aligned word; return the value before.
inline uint64_t cas(void *word, uint64_t expected, uint64_t desired) {
  std::atomic_ref<uint64_t> w(*static_cast<uint64_t *>(word));
  w.compare_exchange_strong(expected, desired, std::memory_order_seq_cst);
  return expected;  // on failure updated to the current value, on success unchanged
}
inline uint64_t fetch_add(void *word, uint64_t value) {
  std::atomic_ref<uint64_t> w(*static_cast<uint64_t *>(word));
  return w.fetch_add(value, std::memory_order_seq_cst);
}
inline uint64_t atomic_load(void *word) {
  std::atomic_ref<uint64_t> w(*static_cast<uint64_t *>(word));
  return w.load(std::memory_order_seq_cst);
}

// Stores reach the shared page at once; the fence orders them before
// whatever this thread does next (a flag, a message).
inline void flush() { std::atomic_thread_fence(std::memory_order_seq_cst); }

}  // namespace rdsm::fabric::mapped
