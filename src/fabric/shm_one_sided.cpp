// One-sided operations of the shared-memory fabric: every node's segments
// are mapped here, so a remote write, read or atomic is a plain memory
// operation on the target's mapping, checked against the segment's bounds.
#include <atomic>
#include <cstring>
#include <unistd.h>

#include "common/bits.hpp"
#include "common/error.hpp"
#include "fabric/mapped_ops.hpp"
#include "fabric/masked_blend.hpp"
#include "fabric/masked_copy.hpp"
#include "fabric/shm_fabric.hpp"
#include "stats/stats.hpp"
#include "stats/trace.hpp"

namespace rdsm::fabric {

namespace {
// What rdsm sim charges a network for (stats/trace.hpp): operations on
// other nodes only, with the bytes that would travel.
void traced(NodeId self, NodeId peer, trace::OpClass k, uint64_t bytes) {
  if (peer != self) trace::count_op(peer, k, bytes);
}
}  // namespace

void ShmFabric::check_node(const char *op, NodeId node) const {
  if (node < 0 || node >= nodes_) fatal("fabric %s: node %d is not in the job (nodes 0..%d)", op, node, nodes_ - 1);
}

uint8_t *ShmFabric::target(const char *op, NodeId node, SegmentId seg, uint64_t off, size_t n, bool counted) {
  check_node(op, node);
  uint32_t count = nsegs_.load(std::memory_order_acquire);
  if (seg >= count) fatal("fabric %s: segment %u is not registered (%u segments)", op, seg, count);
  const SegInfo &s = segs_[seg];
  if (off > s.bytes || n > s.bytes - off)
    fatal("fabric %s: bytes [%llu, %llu) are outside segment %u of %zu bytes (node %d)", op,
          (unsigned long long)off, (unsigned long long)off + n, seg, s.bytes, node);
  if (counted) add(stats().one_sided_ops);
  return s.base[node] + off;
}

uint64_t *ShmFabric::target_word(const char *op, NodeId node, SegmentId seg, uint64_t off, bool counted) {
  if (off % 8) fatal("fabric %s: offset %llu in segment %u is not 8-byte aligned", op, (unsigned long long)off, seg);
  return reinterpret_cast<uint64_t *>(target(op, node, seg, off, 8, counted));
}

void ShmFabric::put(NodeId dst, SegmentId seg, uint64_t off, const void *src, size_t n) {
  uint8_t *p = target("put", dst, seg, off, n);
  traced(rank_, dst, trace::OpClass::put, n);
  if (n) memcpy(p, src, n);
}

void ShmFabric::putv(NodeId dst, SegmentId seg, const Piece *pieces, size_t count) {
  if (count == 0) return;
  // One operation: the target is checked piece by piece, counted once.
  uint8_t *base = target("putv", dst, seg, 0, 0);
  if (trace::on()) {
    uint64_t bytes = 0;
    for (size_t i = 0; i < count; ++i) bytes += pieces[i].n;
    traced(rank_, dst, trace::OpClass::put, bytes);
  }
  mapped::putv(base, segs_[seg].bytes, seg, dst, pieces, count);
}

// The target of a masked write, checked, and traced with the bytes the
// mask selects (only those travel).
uint8_t *ShmFabric::masked_target(const char *op, NodeId dst, SegmentId seg, uint64_t off, const uint64_t *mask,
                                  size_t n) {
  if (n % 64) fatal("fabric %s: %zu bytes is not a multiple of 64", op, n);
  uint8_t *p = target(op, dst, seg, off, n);
  if (trace::on()) {
    uint64_t bytes = 0;
    for (size_t i = 0; i < n / 64; ++i) bytes += count_bits(mask[i]);
    traced(rank_, dst, trace::OpClass::put, bytes);
  }
  return p;
}

void ShmFabric::put_masked(NodeId dst, SegmentId seg, uint64_t off, const void *src, const uint64_t *mask,
                           size_t n) {
  masked_copy(masked_target("put_masked", dst, seg, off, mask, n), static_cast<const uint8_t *>(src), mask, n);
}

void ShmFabric::put_masked_alone(NodeId dst, SegmentId seg, uint64_t off, const void *src, const uint64_t *mask,
                                 size_t n) {
  masked_blend(masked_target("put_masked_alone", dst, seg, off, mask, n), static_cast<const uint8_t *>(src), mask,
               n);
}

void ShmFabric::get(NodeId src, SegmentId seg, uint64_t off, void *dst, size_t n) {
  const uint8_t *p = target("get", src, seg, off, n);
  traced(rank_, src, trace::OpClass::get, n);
  if (n) memcpy(dst, p, n);
}

void ShmFabric::get_fresh(NodeId src, SegmentId seg, uint64_t off, const Segment &into, uint64_t into_off, size_t n) {
  traced(rank_, src, trace::OpClass::get, n);
  mapped::get_fresh(target("get", src, seg, off, n), into, into_off, n);
}

uint64_t ShmFabric::cas(NodeId dst, SegmentId seg, uint64_t off, uint64_t expected, uint64_t desired) {
  traced(rank_, dst, trace::OpClass::atomic, 8);
  return mapped::cas(target_word("cas", dst, seg, off), expected, desired);
}

uint64_t ShmFabric::fetch_add(NodeId dst, SegmentId seg, uint64_t off, uint64_t value) {
  traced(rank_, dst, trace::OpClass::atomic, 8);
  return mapped::fetch_add(target_word("fetch_add", dst, seg, off), value);
}

uint64_t ShmFabric::atomic_load(NodeId dst, SegmentId seg, uint64_t off) {
  traced(rank_, dst, trace::OpClass::atomic, 8);
  return mapped::atomic_load(target_word("atomic_load", dst, seg, off));
}

void ShmFabric::batch(NodeId node, BatchOp *ops, size_t count) {
  // The operations counted together: an atomic add per operation, between
  // page copies, waits for the copy's stores to drain (SPLASH FFT's time in
  // read faults was 2-7% longer with it, in alternated runs).
  uint64_t bytes = 0;
  for (size_t i = 0; i < count; ++i) {
    BatchOp &o = ops[i];
    if (o.kind == BatchOp::get) {
      const uint8_t *p = target("batch", node, o.seg, o.off, o.n, false);
      if (o.n) memcpy(o.into, p, o.n);
      bytes += o.n;
    } else {
      uint64_t was = mapped::fetch_add(target_word("batch", node, o.seg, o.off, false), o.value);
      if (o.old) *o.old = was, bytes += sizeof was;
    }
  }
  if (count) add(stats().one_sided_ops, count);
  if (node != rank_ && count) trace::count_batch(node, (uint32_t)count, bytes);
}

void ShmFabric::flush(NodeId dst) {
  check_node("flush", dst);
  mapped::flush();
}

void ShmFabric::flush_all() { mapped::flush(); }

}  // namespace rdsm::fabric
