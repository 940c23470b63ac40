#include "sync/atomic_barrier.hpp"

#include <atomic>

#include "common/error.hpp"

namespace rdsm::sync {

namespace {
constexpr int kHost = 0;
// kCount is used at node 0 only, kGeneration at every node (its own).
constexpr uint64_t kCount = 0, kGeneration = 64, kSlots = 128;
}  // namespace

AtomicBarrier::AtomicBarrier(fabric::Fabric &f, size_t slot_bytes) : f_(f), slot_bytes_(slot_bytes) {
  slot_stride_ = (slot_bytes + 63) / 64 * 64;
  // Two sets of slots, used by alternate generations: a node that has left
  // and already arrived at the next barrier must not overwrite a slot that
  // a slower node has yet to read.
  seg_ = f_.register_segment(kSlots + 2 * slot_stride_ * f.nodes());
}

Bytes AtomicBarrier::wait(const Bytes &arrival, const std::function<void()> &while_waiting) {
  if (arrival.size() != slot_bytes_) fatal("internal error: barrier arrival of %zu bytes, not %zu", arrival.size(), slot_bytes_);
  const int n = f_.nodes(), self = f_.rank();
  // Every node's word counts the barriers it has left: the same everywhere
  // between two barriers.  Read in this node's own memory, with no fabric
  // operation: the fabric's atomics of other nodes only ever add to it (as
  // a home's words of its pages are read where they are), and so a poll
  // costs no round trip and disturbs nobody (on an mpi fabric without
  // hardware atomics, an operation even on itself goes through MPI).
  std::atomic_ref<uint64_t> mine(*reinterpret_cast<uint64_t *>(seg_.base + kGeneration));
  const uint64_t gen = mine.load(std::memory_order_acquire);
  uint64_t slots = kSlots + (gen & 1) * slot_stride_ * n;
  if (slot_bytes_) f_.put(kHost, seg_.id, slots + slot_stride_ * self, arrival.data(), slot_bytes_);
  f_.flush(kHost);  // the slot is written before the arrival counts
  if (f_.fetch_add(kHost, seg_.id, kCount, 1) == (uint64_t)n - 1) {
    f_.fetch_add(kHost, seg_.id, kCount, (uint64_t)-(int64_t)n);  // reset before anyone can arrive again
    // Then let everybody go: nobody can arrive at the next barrier before
    // its word has moved, and by then the counter is back at zero.
    for (int i = 1; i < n; ++i) f_.fetch_add((self + i) % n, seg_.id, kGeneration, 1);
    mine.fetch_add(1, std::memory_order_acq_rel);  // nobody else adds to it now: all are waiting
  } else {
    backoff_until([&] { return mine.load(std::memory_order_acquire) != gen; }, while_waiting, idle_work_);
  }
  Bytes all(slot_bytes_ * n);
  if (!slot_bytes_) return all;
  reads_.resize((size_t)n);
  for (int i = 0; i < n; ++i)
    reads_[i] = fabric::Fabric::BatchOp::read(seg_.id, slots + slot_stride_ * i, all.data() + slot_bytes_ * i,
                                              slot_bytes_);
  f_.batch(kHost, reads_.data(), reads_.size());
  return all;
}

}  // namespace rdsm::sync
