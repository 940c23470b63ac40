// Run-length diffs of a page against its twin (see diff.hpp for the format).
//
// The encoder is on the release path of every written page, so it must be
// cheap when little changed (the common case: skip equal memory as fast as
// memcmp would) and still exact to the byte when much changed.  It works on
// 64-bit words loaded as little-endian values, so that byte k of a word is
// bits 8k..8k+7 and "the lowest set bit" means "the lowest address":
//  - equal stretches are skipped 32 bytes, then 8 bytes, at a time;
//  - inside a differing word the first changed byte is ctz(page ^ twin) / 8;
//  - the end of a run is the first zero byte of page ^ twin, found with the
//    classic "has a zero byte" bit trick, again one word at a time.
// Only the bytes at the edges of a run are ever looked at one by one, and
// only in the last (page_bytes % 8) bytes of a page of odd size.
// With SSE2 and pages of whole 64-byte chunks (every real page), runs are
// found from one "changed" bit mask per chunk instead (find_runs_by_masks):
// about 3 ns per run, five times faster on a page of many small runs.
#include "protocol/diff.hpp"

#include "common/bits.hpp"

#include <cstdlib>
#include <cstring>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace rdsm {
namespace {

// Offsets and lengths are u16: a run can start anywhere in a page of at most
// 64 KiB; longer runs (only possible on such pages) are split.
constexpr size_t kMaxPageBytes = 65536;
constexpr size_t kMaxRunBytes = 0xFFFF;

constexpr uint64_t kOnes = 0x0101010101010101ull;
constexpr uint64_t kHighs = 0x8080808080808080ull;

inline uint64_t load_le(const uint8_t *p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);  // unaligned-safe; a single load on x86/arm64
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

inline uint64_t xor_at(const uint8_t *a, const uint8_t *b, size_t i) {
  return load_le(a + i) ^ load_le(b + i);
}

// Non-zero iff x has a zero byte; the lowest set bit marks exactly the lowest
// zero byte (the borrow can only add false marks above a true zero byte).
inline uint64_t zero_byte_marks(uint64_t x) { return (x - kOnes) & ~x & kHighs; }

inline unsigned byte_index(uint64_t marks) { return (unsigned)__builtin_ctzll(marks) >> 3; }

inline void put_u16(uint8_t *p, size_t v) {
  p[0] = (uint8_t)(v & 0xFF);
  p[1] = (uint8_t)(v >> 8);
}

inline size_t get_u16(const uint8_t *p) { return (size_t)p[0] | ((size_t)p[1] << 8); }

#if defined(__SSE2__)
// Bit k set iff page[i + k] == twin[i + k], k < 16.
inline unsigned eq_mask16(const uint8_t *twin, const uint8_t *page, size_t i) {
  __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i *>(page + i));
  __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i *>(twin + i));
  return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(a, b));
}
#endif

// First index >= i where page and twin differ, or n if none.
inline size_t find_change(const uint8_t *twin, const uint8_t *page, size_t i, size_t n) {
#if defined(__SSE2__)
  // 64 bytes per step, one branch: as fast as memcmp for the common
  // "nothing changed here" stretch.
  while (i + 64 <= n) {
    unsigned m0 = eq_mask16(twin, page, i), m1 = eq_mask16(twin, page, i + 16);
    unsigned m2 = eq_mask16(twin, page, i + 32), m3 = eq_mask16(twin, page, i + 48);
    if ((m0 & m1 & m2 & m3) != 0xFFFF) {
      uint64_t diff = ~((uint64_t)m0 | (uint64_t)m1 << 16 | (uint64_t)m2 << 32 | (uint64_t)m3 << 48);
      return i + (size_t)__builtin_ctzll(diff);
    }
    i += 64;
  }
  while (i + 16 <= n) {
    unsigned m = eq_mask16(twin, page, i);
    if (m != 0xFFFF) return i + (size_t)__builtin_ctz(~m);
    i += 16;
  }
#else
  // 32 bytes per step: four independent loads and one branch.
  while (i + 32 <= n) {
    uint64_t x0 = xor_at(page, twin, i), x1 = xor_at(page, twin, i + 8);
    uint64_t x2 = xor_at(page, twin, i + 16), x3 = xor_at(page, twin, i + 24);
    if ((x0 | x1 | x2 | x3) != 0) {
      if (x0) return i + byte_index(x0);
      if (x1) return i + 8 + byte_index(x1);
      if (x2) return i + 16 + byte_index(x2);
      return i + 24 + byte_index(x3);
    }
    i += 32;
  }
#endif
  while (i + 8 <= n) {
    uint64_t x = xor_at(page, twin, i);
    if (x) return i + byte_index(x);
    i += 8;
  }
  while (i < n && page[i] == twin[i]) ++i;
  return i;
}

// First index > start where page and twin are equal, or n if none; page and
// twin differ at start.
inline size_t find_same(const uint8_t *twin, const uint8_t *page, size_t start, size_t n) {
  size_t i = start + 1;
#if defined(__SSE2__)
  while (i + 32 <= n) {
    unsigned m = eq_mask16(twin, page, i) | eq_mask16(twin, page, i + 16) << 16;
    if (m) return i + (size_t)__builtin_ctz(m);
    i += 32;  // all 32 bytes changed: the run goes on
  }
#endif
  while (i + 8 <= n) {
    uint64_t marks = zero_byte_marks(xor_at(page, twin, i));
    if (marks) return i + byte_index(marks);
    i += 8;  // all eight bytes changed: the run goes on
  }
  while (i < n && page[i] != twin[i]) ++i;
  return i;
}


#if defined(__SSE2__)
// Pages of whole 64-byte chunks: one 64-bit "changed" mask per chunk, and the
// runs' edges are the mask's 0/1 transitions (common/bits.hpp).
// A page changed in many small runs (keys whose high bytes keep their value,
// floating-point rows) then costs a few instructions per run instead of two
// mispredicted scans per run.
size_t find_runs_by_masks(const uint8_t *twin, const uint8_t *page, size_t page_bytes, DiffRun *runs) {
  size_t count = 0;
  auto run = [&](size_t start, size_t len) { runs[count++] = DiffRun{(uint32_t)start, (uint32_t)len}; };
  BitRunWalker walker;
  for (size_t i = 0; i < page_bytes; i += 64) {
    uint64_t eq = (uint64_t)eq_mask16(twin, page, i) | (uint64_t)eq_mask16(twin, page, i + 16) << 16 |
                  (uint64_t)eq_mask16(twin, page, i + 32) << 32 | (uint64_t)eq_mask16(twin, page, i + 48) << 48;
    walker.word(i, ~eq, run);
  }
  walker.end(page_bytes, run);
  return count;
}
#endif

}  // namespace

size_t diff_find_runs(const uint8_t *twin, const uint8_t *page, size_t page_bytes, DiffRun *runs) {
#if defined(__SSE2__)
  if (page_bytes % 64 == 0) return find_runs_by_masks(twin, page, page_bytes, runs);
#endif
  size_t count = 0, i = 0;
  for (;;) {
    size_t start = find_change(twin, page, i, page_bytes);
    if (start >= page_bytes) break;
    size_t end = find_same(twin, page, start, page_bytes);
    runs[count++] = DiffRun{(uint32_t)start, (uint32_t)(end - start)};
    // page[end] equals twin[end] (or end is the page end): resume after it.
    i = end + 1;
  }
  return count;
}

size_t diff_change_mask(const uint8_t *twin, const uint8_t *page, size_t page_bytes, uint64_t *mask) {
  size_t runs = 0;
  uint64_t carry = 0;  // the previous chunk's last byte changed
  for (size_t i = 0, c = 0; i < page_bytes; i += 64, ++c) {
#if defined(__SSE2__)
    uint64_t eq = (uint64_t)eq_mask16(twin, page, i) | (uint64_t)eq_mask16(twin, page, i + 16) << 16 |
                  (uint64_t)eq_mask16(twin, page, i + 32) << 32 | (uint64_t)eq_mask16(twin, page, i + 48) << 48;
    uint64_t m = ~eq;
#else
    uint64_t m = 0;
    for (unsigned b = 0; b < 64; b += 8) {
      uint64_t x = xor_at(page, twin, i + b);
      // one bit per byte: the byte is non-zero
      uint64_t nz = ((x & ~kHighs) + ~kHighs | x) & kHighs;
      for (unsigned k = 0; k < 8; ++k)
        if (nz & (0x80ull << (8 * k))) m |= 1ull << (b + k);
    }
#endif
    mask[c] = m;
    runs += count_bits(m & ~((m << 1) | carry));
    carry = m >> 63;
  }
  return runs;
}

size_t diff_encode(const uint8_t *twin, const uint8_t *page, size_t page_bytes, uint8_t *out) {
  // Offsets would not fit the format; this is a caller's bug, not bad data.
  if (page_bytes > kMaxPageBytes) std::abort();
  // Grown once per thread to the largest page seen: no allocation per page.
  thread_local std::vector<DiffRun> runs;
  if (runs.size() < diff_max_runs(page_bytes)) runs.resize(diff_max_runs(page_bytes));
  size_t count = diff_find_runs(twin, page, page_bytes, runs.data());
  uint8_t *o = out;
  for (size_t r = 0; r < count; ++r) {
    // Split only if a run is longer than a u16 can say (pages > 64 KiB - 1).
    for (size_t s = runs[r].off, end = s + runs[r].len; s < end;) {
      size_t len = end - s < kMaxRunBytes ? end - s : kMaxRunBytes;
      put_u16(o, s);
      put_u16(o + 2, len);
      std::memcpy(o + 4, page + s, len);
      o += 4 + len;
      s += len;
    }
  }
  return (size_t)(o - out);
}

bool diff_apply(uint8_t *page, size_t page_bytes, const uint8_t *diff, size_t len) {
  // Pass 1: check the whole diff, so that a bad one changes nothing.
  // Runs must be in increasing order and must not overlap: the encoder never
  // makes anything else, so anything else is corruption.
  size_t i = 0, prev_end = 0;
  while (i < len) {
    if (len - i < 4) return false;  // truncated header
    size_t off = get_u16(diff + i);
    size_t n = get_u16(diff + i + 2);
    i += 4;
    if (n == 0) return false;
    if (off < prev_end) return false;  // decreasing or overlapping
    if (off + n > page_bytes) return false;
    if (len - i < n) return false;  // truncated data
    prev_end = off + n;
    i += n;
  }
  // Pass 2: write.
  i = 0;
  while (i < len) {
    size_t off = get_u16(diff + i);
    size_t n = get_u16(diff + i + 2);
    std::memcpy(page + off, diff + i + 4, n);
    i += 4 + n;
  }
  return true;
}

}  // namespace rdsm
