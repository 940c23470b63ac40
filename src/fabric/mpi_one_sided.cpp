// Segments and one-sided operations of the mpi fabric: one RMA window per
// segment, locked once for passive-target access; an operation aimed at a
// rank whose copy is mapped here (mpi_host_peers.cpp) is a memory operation
// (mapped_ops.hpp), every other one an MPI RMA call completed by a flush
// before it returns (put: completed locally, so the caller may reuse its
// buffer at once, as with the shm fabric; visible at the target after
// flush()).
#include <cerrno>
#include <climits>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "common/error.hpp"
#include "fabric/mpi_environment.hpp"
#include "fabric/mapped_ops.hpp"
#include "fabric/masked_blend.hpp"
#include "fabric/masked_copy.hpp"
#include "fabric/mpi_fabric.hpp"
#include "stats/stats.hpp"

namespace rdsm::fabric {

using mpi::check;

namespace {
constexpr size_t kPage = 4096;
// MPI counts are ints: larger transfers go in pieces.
constexpr size_t kMaxChunk = 1ull << 30;

size_t page_up(size_t v) { return (v + kPage - 1) / kPage * kPage; }
}  // namespace

Segment MpiFabric::register_segment(size_t bytes) {
  std::lock_guard<std::mutex> g(seg_mu_);
  uint32_t id = nwins_.load(std::memory_order_relaxed);
  if (id >= kMaxSegments) fatal("mpi fabric: more than %u segments registered", kMaxSegments);
  Win &w = wins_[id];
  w.bytes = bytes;
  w.map_len = page_up(std::max<size_t>(bytes, 1));
  // A file of its own, so the memory layer can map the segment twice; sparse,
  // and zero-filled as the interface promises.
  w.fd = memfd_create("rdsm-mpi-segment", MFD_CLOEXEC);
  if (w.fd < 0) fatal("mpi fabric: memfd_create for a segment of %zu bytes: %s", bytes, strerror(errno));
  if (ftruncate(w.fd, (off_t)w.map_len) != 0)
    fatal("mpi fabric: cannot size a segment file to %zu bytes: %s", w.map_len, strerror(errno));
  void *p = mmap(nullptr, w.map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, w.fd, 0);
  if (p == MAP_FAILED) fatal("mpi fabric: cannot map a segment of %zu bytes: %s", w.map_len, strerror(errno));
  w.base = static_cast<uint8_t *>(p);
  check(MPI_Win_create(w.base, (MPI_Aint)w.map_len, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w.win), "MPI_Win_create");
  check(MPI_Win_lock_all(MPI_MODE_NOCHECK, w.win), "MPI_Win_lock_all");
  map_host_segments(w);
  nwins_.store(id + 1, std::memory_order_release);
  Segment seg;
  seg.id = id;
  seg.base = w.base;
  seg.bytes = bytes;
  seg.fd = w.fd;
  seg.fd_offset = 0;
  return seg;
}

const MpiFabric::Win &MpiFabric::window(const char *op, NodeId node, SegmentId seg, uint64_t off, size_t n) const {
  check_node(op, node);
  uint32_t count = nwins_.load(std::memory_order_acquire);
  if (seg >= count) fatal("fabric %s: segment %u is not registered (%u segments)", op, seg, count);
  const Win &w = wins_[seg];
  if (off > w.bytes || n > w.bytes - off)
    fatal("fabric %s: bytes [%llu, %llu) are outside segment %u of %zu bytes (node %d)", op,
          (unsigned long long)off, (unsigned long long)off + n, seg, w.bytes, node);
  add(stats().one_sided_ops);
  return w;
}

// The target word of an atomic, where this node may use the processor's
// atomics on it; null where MPI's must be used.
uint8_t *MpiFabric::word(const char *op, NodeId node, SegmentId seg, uint64_t off, const Win **w) const {
  if (off % 8) fatal("fabric %s: offset %llu in segment %u is not 8-byte aligned", op, (unsigned long long)off, seg);
  *w = &window(op, node, seg, off, 8);
  return (*w)->atomics_mapped ? (*w)->peer[node] + off : nullptr;
}

void MpiFabric::put(NodeId dst, SegmentId seg, uint64_t off, const void *src, size_t n) {
  const Win &w = window("put", dst, seg, off, n);
  if (!n) return;
  if (w.peer && w.peer[dst]) {
    memcpy(w.peer[dst] + off, src, n);
    return;
  }
  const uint8_t *s = static_cast<const uint8_t *>(src);
  for (size_t done = 0; done < n;) {
    int c = (int)std::min(n - done, kMaxChunk);
    check(MPI_Put(s + done, c, MPI_BYTE, dst, (MPI_Aint)(off + done), c, MPI_BYTE, w.win), "MPI_Put");
    done += (size_t)c;
  }
  check(MPI_Win_flush_local(dst, w.win), "MPI_Win_flush_local");
}

void MpiFabric::putv(NodeId dst, SegmentId seg, const Piece *pieces, size_t count) {
  if (count == 0) return;
  if (count == 1) return put(dst, seg, pieces[0].off, pieces[0].src, pieces[0].n);
  const Win &w = window("putv", dst, seg, 0, 0);
  if (w.peer && w.peer[dst]) return mapped::putv(w.peer[dst], w.bytes, seg, dst, pieces, count);
  // The pieces are packed into one buffer (the origin side contiguous) and
  // land at their offsets through an hindexed datatype on the target side.
  std::vector<int> lens;
  std::vector<MPI_Aint> disps;
  lens.reserve(count);
  disps.reserve(count);
  size_t total = 0;
  for (size_t i = 0; i < count; ++i) {
    const Piece &p = pieces[i];
    if (p.off > w.bytes || p.n > w.bytes - p.off)
      fatal("fabric putv: bytes [%llu, %llu) are outside segment %u of %zu bytes (node %d)",
            (unsigned long long)p.off, (unsigned long long)(p.off + p.n), seg, w.bytes, dst);
    if (p.n > kMaxChunk) {  // rare and huge: on its own
      put(dst, seg, p.off, p.src, p.n);
      continue;
    }
    if (!p.n) continue;
    lens.push_back((int)p.n);
    disps.push_back((MPI_Aint)p.off);
    total += p.n;
  }
  if (lens.empty()) return;
  if (total > kMaxChunk) {  // too large for one int count: piece by piece
    for (size_t i = 0; i < count; ++i)
      if (pieces[i].n && pieces[i].n <= kMaxChunk) put(dst, seg, pieces[i].off, pieces[i].src, pieces[i].n);
    return;
  }
  std::vector<uint8_t> packed(total);
  size_t at = 0;
  for (size_t i = 0; i < count; ++i)
    if (pieces[i].n && pieces[i].n <= kMaxChunk) {
      memcpy(packed.data() + at, pieces[i].src, pieces[i].n);
      at += pieces[i].n;
    }
  MPI_Datatype target;
  check(MPI_Type_create_hindexed((int)lens.size(), lens.data(), disps.data(), MPI_BYTE, &target),
        "MPI_Type_create_hindexed");
  check(MPI_Type_commit(&target), "MPI_Type_commit");
  check(MPI_Put(packed.data(), (int)total, MPI_BYTE, dst, 0, 1, target, w.win), "MPI_Put");
  // Completed locally before the packed buffer goes away.
  check(MPI_Win_flush_local(dst, w.win), "MPI_Win_flush_local");
  MPI_Type_free(&target);
}

// On a mapped copy one masked store; elsewhere the default's gathering put.
void MpiFabric::put_masked(NodeId dst, SegmentId seg, uint64_t off, const void *src, const uint64_t *mask,
                           size_t n) {
  if (n % 64) fatal("fabric put_masked: %zu bytes is not a multiple of 64", n);
  if (blends_in_place(dst, seg)) {  // mapped here
    const Win &w = window("put_masked", dst, seg, off, n);
    return masked_copy(w.peer[dst] + off, static_cast<const uint8_t *>(src), mask, n);
  }
  Fabric::put_masked(dst, seg, off, src, mask, n);
}

// The target is mapped here (a peer on this host).
bool MpiFabric::blends_in_place(NodeId dst, SegmentId seg) const {
  uint32_t count = nwins_.load(std::memory_order_acquire);
  return seg < count && wins_[seg].peer && dst >= 0 && dst < nodes_ && wins_[seg].peer[dst];
}

// In place where the target is mapped (a peer on this host), else put_masked.
void MpiFabric::put_masked_alone(NodeId dst, SegmentId seg, uint64_t off, const void *src, const uint64_t *mask,
                                 size_t n) {
  if (n % 64) fatal("fabric put_masked_alone: %zu bytes is not a multiple of 64", n);
  if (!blends_in_place(dst, seg)) return put_masked(dst, seg, off, src, mask, n);
  const Win &w = window("put_masked_alone", dst, seg, off, n);
  masked_blend(w.peer[dst] + off, static_cast<const uint8_t *>(src), mask, n);
}

void MpiFabric::get(NodeId src, SegmentId seg, uint64_t off, void *dst, size_t n) {
  const Win &w = window("get", src, seg, off, n);
  if (!n) return;
  if (w.peer && w.peer[src]) {
    memcpy(dst, w.peer[src] + off, n);
    return;
  }
  uint8_t *d = static_cast<uint8_t *>(dst);
  for (size_t done = 0; done < n;) {
    int c = (int)std::min(n - done, kMaxChunk);
    check(MPI_Get(d + done, c, MPI_BYTE, src, (MPI_Aint)(off + done), c, MPI_BYTE, w.win), "MPI_Get");
    done += (size_t)c;
  }
  // Local completion of a get is the bytes being here.
  check(MPI_Win_flush_local(src, w.win), "MPI_Win_flush_local");
}

void MpiFabric::get_fresh(NodeId src, SegmentId seg, uint64_t off, const Segment &into, uint64_t into_off,
                          size_t n) {
  const Win &w = window("get", src, seg, off, n);
  if (w.peer && w.peer[src]) return mapped::get_fresh(w.peer[src] + off, into, into_off, n);
  get(src, seg, off, into.base + into_off, n);
}

uint64_t MpiFabric::cas(NodeId dst, SegmentId seg, uint64_t off, uint64_t expected, uint64_t desired) {
  const Win *w = nullptr;
  if (uint8_t *p = word("cas", dst, seg, off, &w)) return mapped::cas(p, expected, desired);
  uint64_t old = 0;
  check(MPI_Compare_and_swap(&desired, &expected, &old, MPI_UINT64_T, dst, (MPI_Aint)off, w->win),
        "MPI_Compare_and_swap");
  check(MPI_Win_flush(dst, w->win), "MPI_Win_flush");
  return old;
}

uint64_t MpiFabric::fetch_add(NodeId dst, SegmentId seg, uint64_t off, uint64_t value) {
  const Win *w = nullptr;
  if (uint8_t *p = word("fetch_add", dst, seg, off, &w)) return mapped::fetch_add(p, value);
  uint64_t old = 0;
  check(MPI_Fetch_and_op(&value, &old, MPI_UINT64_T, dst, (MPI_Aint)off, MPI_SUM, w->win), "MPI_Fetch_and_op");
  check(MPI_Win_flush(dst, w->win), "MPI_Win_flush");
  return old;
}

uint64_t MpiFabric::atomic_load(NodeId dst, SegmentId seg, uint64_t off) {
  const Win *w = nullptr;
  if (uint8_t *p = word("atomic_load", dst, seg, off, &w)) return mapped::atomic_load(p);
  uint64_t old = 0;
  check(MPI_Fetch_and_op(nullptr, &old, MPI_UINT64_T, dst, (MPI_Aint)off, MPI_NO_OP, w->win), "MPI_Fetch_and_op");
  check(MPI_Win_flush(dst, w->win), "MPI_Win_flush");
  return old;
}

// Issued one after the other, completed by one flush of each window they
// used: the gets' round trips overlap.  The atomics' do not: osc/ucx of
// Open MPI 4.1 waits for each fetch-and-op's answer before it returns
// (measured across two hosts over TCP: a batch of thousands of adds kept a
// rank spinning for seconds), so the protocol sends large batches of adds
// as a message where it can (copy_counts.cpp).  An add nobody reads still goes as
// MPI_Fetch_and_op, into a scratch word: osc/ucx makes a single-element
// fetch-and-op a network atomic, which the target's processor atomics on
// the same word respect, but an MPI_Accumulate a read-modify-write under
// a lock of its own, which they do not (a copy count lost that way lets
// the home write a page unnoticed while a copy of it is out).
// Operations on mapped copies allocate nothing (a fault's fetch makes them
// in the signal handler, one_sided_signal_safe).
void MpiFabric::batch(NodeId node, BatchOp *ops, size_t count) {
  std::vector<const Win *> used;  // the windows with operations to complete
  std::vector<uint64_t> scratch;  // the answers nobody reads
  for (size_t i = 0; i < count; ++i) {
    BatchOp &o = ops[i];
    if (o.kind == BatchOp::get) {
      const Win &w = window("batch", node, o.seg, o.off, o.n);
      if (!o.n) continue;
      if (w.peer && w.peer[node]) {
        memcpy(o.into, w.peer[node] + o.off, o.n);
        continue;
      }
      if (o.n > kMaxChunk) {  // too large for one int count: on its own
        get(node, o.seg, o.off, o.into, o.n);
        continue;
      }
      check(MPI_Get(o.into, (int)o.n, MPI_BYTE, node, (MPI_Aint)o.off, (int)o.n, MPI_BYTE, w.win), "MPI_Get");
    } else {
      const Win *w = nullptr;
      if (uint8_t *p = word("batch", node, o.seg, o.off, &w)) {
        uint64_t was = mapped::fetch_add(p, o.value);
        if (o.old) *o.old = was;
        continue;
      }
      if (!o.old && scratch.empty()) scratch.resize(count);
      check(MPI_Fetch_and_op(&o.value, o.old ? o.old : &scratch[i], MPI_UINT64_T, node, (MPI_Aint)o.off, MPI_SUM,
                             w->win),
            "MPI_Fetch_and_op");
    }
    if (std::find(used.begin(), used.end(), &wins_[o.seg]) == used.end()) used.push_back(&wins_[o.seg]);
  }
  for (const Win *w : used) check(MPI_Win_flush(node, w->win), "MPI_Win_flush");
}

// A flush is per window: every segment's, since the caller does not say
// which it wrote; a window reached by memory operations has nothing to
// complete but the stores' order.
void MpiFabric::flush(NodeId dst) {
  check_node("flush", dst);
  mapped::flush();
  uint32_t count = nwins_.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < count; ++i)
    if (!wins_[i].peer || !wins_[i].peer[dst]) check(MPI_Win_flush(dst, wins_[i].win), "MPI_Win_flush");
}

void MpiFabric::flush_all() {
  mapped::flush();
  if (all_mapped_.load(std::memory_order_acquire)) return;
  uint32_t count = nwins_.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < count; ++i) check(MPI_Win_flush_all(wins_[i].win), "MPI_Win_flush_all");
}

}  // namespace rdsm::fabric
