// Single-producer / single-consumer byte ring in memory shared between
// processes, used by the shm fabric for messages.
//
// Positions are monotonic 64-bit byte counters (never reset), so "used" is
// tail - head without wrap-around ambiguity; the capacity is a power of two
// and the byte at position p lives at data[p & (capacity - 1)].  A record is
// an 8-byte FragHeader followed by the payload padded to 8 bytes; records
// start at multiples of 8, so a header never straddles the end of the ring
// but a payload may (it is then copied in two parts).
//
// The control words live in the receiver's memory file.  All of them start as
// zero (the file is fresh), so nobody has to initialise a ring and a producer
// may use it before the consumer exists.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace rdsm::fabric::shm {

constexpr size_t kCacheLine = 64;

// Shared control words of one ring, one page in front of its data.  head and
// tail are on separate cache lines so that producer and consumer do not
// invalidate each other's line on every record.
struct RingCtl {
  alignas(kCacheLine) std::atomic<uint64_t> head;  // written by the consumer only
  alignas(kCacheLine) std::atomic<uint64_t> tail;  // written by the producer only
  // Futex word the consumer bumps after freeing space while a producer waits.
  alignas(kCacheLine) std::atomic<uint32_t> space;
  std::atomic<uint32_t> space_waiters;
};
static_assert(std::atomic<uint64_t>::is_always_lock_free && std::atomic<uint32_t>::is_always_lock_free,
              "the rings need address-free atomics");
static_assert(sizeof(RingCtl) <= 4096);

struct FragHeader {
  uint32_t len;    // payload bytes of this fragment
  uint16_t type;   // message type (the same in every fragment of a message)
  uint16_t flags;  // kFragMore: more fragments of the same message follow
};
static_assert(sizeof(FragHeader) == 8);
constexpr uint16_t kFragMore = 1;

constexpr size_t record_bytes(size_t payload) { return sizeof(FragHeader) + ((payload + 7) & ~size_t(7)); }

// One side's view of a ring.
struct RingView {
  RingCtl *ctl = nullptr;
  uint8_t *data = nullptr;
  uint64_t cap = 0;  // power of two

  // Copies n bytes to/from ring position pos, in two parts across the end.
  void copy_in(uint64_t pos, const void *src, size_t n) const {
    size_t at = (size_t)(pos & (cap - 1));
    size_t first = n < cap - at ? n : (size_t)(cap - at);
    memcpy(data + at, src, first);
    if (n > first) memcpy(data, static_cast<const uint8_t *>(src) + first, n - first);
  }
  void copy_out(uint64_t pos, void *dst, size_t n) const {
    size_t at = (size_t)(pos & (cap - 1));
    size_t first = n < cap - at ? n : (size_t)(cap - at);
    memcpy(dst, data + at, first);
    if (n > first) memcpy(static_cast<uint8_t *>(dst) + first, data, n - first);
  }
  // The two contiguous pieces of [pos, pos + n): lets the consumer append
  // straight from the ring without an intermediate copy.
  template <class F>
  void pieces(uint64_t pos, size_t n, F &&f) const {
    size_t at = (size_t)(pos & (cap - 1));
    size_t first = n < cap - at ? n : (size_t)(cap - at);
    f(data + at, first);
    if (n > first) f(data, n - first);
  }
};

}  // namespace rdsm::fabric::shm
