#include "sync/atomic_barrier.hpp"

#include "common/error.hpp"

namespace rdsm::sync {

namespace {
constexpr int kHost = 0;
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
  int n = f_.nodes();
  uint64_t gen = f_.atomic_load(kHost, seg_.id, kGeneration);
  uint64_t slots = kSlots + (gen & 1) * slot_stride_ * n;
  if (slot_bytes_) f_.put(kHost, seg_.id, slots + slot_stride_ * f_.rank(), arrival.data(), slot_bytes_);
  f_.flush(kHost);  // the slot is written before the arrival counts
  if (f_.fetch_add(kHost, seg_.id, kCount, 1) == (uint64_t)n - 1) {
    f_.fetch_add(kHost, seg_.id, kCount, (uint64_t)-(int64_t)n);  // reset before anyone can arrive again
    f_.fetch_add(kHost, seg_.id, kGeneration, 1);
  } else {
    backoff_until([&] { return f_.atomic_load(kHost, seg_.id, kGeneration) != gen; }, while_waiting);
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
