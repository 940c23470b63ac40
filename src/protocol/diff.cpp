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
// Pages of whole 64-byte chunks (every real page) are not scanned so: their
// runs are found from the change mask (diff_change_mask, one bit per byte,
// 64 bytes per vector compare), about 3 ns per run, five times faster on a
// page of many small runs.
#include "protocol/diff.hpp"

#include "common/bits.hpp"

#include <cstdlib>
#include <cstring>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__SSE2__)
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



// The change masks of a page (diff_change_mask), one implementation per
// instruction set.  A radix sort's page is changed in a thousand runs, and
// its mask, runs and changed bytes are what its release costs in the
// processor: AVX-512 compares 64 bytes into a mask in one instruction, and
// counts with popcnt (the default x86-64 target has neither).
struct ChangeCount {
  size_t runs = 0, bytes = 0;
};

// The bits of word m where a run starts, the previous word's last bit
// being `carry`.
inline uint64_t run_starts(uint64_t m, uint64_t carry) { return m & ~((m << 1) | carry); }

ChangeCount change_mask_plain(const uint8_t *twin, const uint8_t *page, size_t page_bytes, uint64_t *mask) {
  ChangeCount n;
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
    n.runs += count_bits(run_starts(m, carry));
    n.bytes += count_bits(m);
    carry = m >> 63;
  }
  return n;
}

#if defined(__x86_64__)
__attribute__((target("avx512f,avx512bw,popcnt"))) ChangeCount change_mask_avx512(const uint8_t *twin,
                                                                                  const uint8_t *page,
                                                                                  size_t page_bytes, uint64_t *mask) {
  ChangeCount n;
  uint64_t carry = 0;
  for (size_t i = 0, c = 0; i < page_bytes; i += 64, ++c) {
    uint64_t m = _mm512_cmpneq_epu8_mask(_mm512_loadu_si512(page + i), _mm512_loadu_si512(twin + i));
    mask[c] = m;
    n.runs += (size_t)__builtin_popcountll(run_starts(m, carry));
    n.bytes += (size_t)__builtin_popcountll(m);
    carry = m >> 63;
  }
  return n;
}

__attribute__((target("avx2,popcnt"))) ChangeCount change_mask_avx2(const uint8_t *twin, const uint8_t *page,
                                                                    size_t page_bytes, uint64_t *mask) {
  ChangeCount n;
  uint64_t carry = 0;
  for (size_t i = 0, c = 0; i < page_bytes; i += 64, ++c) {
    __m256i lo = _mm256_cmpeq_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(page + i)),
                                   _mm256_loadu_si256(reinterpret_cast<const __m256i *>(twin + i)));
    __m256i hi = _mm256_cmpeq_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(page + i + 32)),
                                   _mm256_loadu_si256(reinterpret_cast<const __m256i *>(twin + i + 32)));
    uint64_t m = ~((uint64_t)(uint32_t)_mm256_movemask_epi8(lo) | (uint64_t)(uint32_t)_mm256_movemask_epi8(hi) << 32);
    mask[c] = m;
    n.runs += (size_t)__builtin_popcountll(run_starts(m, carry));
    n.bytes += (size_t)__builtin_popcountll(m);
    carry = m >> 63;
  }
  return n;
}
#endif

}  // namespace

size_t diff_find_runs(const uint8_t *twin, const uint8_t *page, size_t page_bytes, DiffRun *runs) {
  if (page_bytes % 64 == 0 && page_bytes <= kMaxPageBytes) {
    // Pages of whole 64-byte chunks (every real page): the runs' edges are
    // the change mask's 0/1 transitions (common/bits.hpp), a few
    // instructions per run instead of two mispredicted scans per run.
    uint64_t mask[kMaxPageBytes / 64];
    diff_change_mask(twin, page, page_bytes, mask);
    size_t count = 0;
    for_each_bit_run(mask, page_bytes / 64,
                     [&](size_t start, size_t len) { runs[count++] = DiffRun{(uint32_t)start, (uint32_t)len}; });
    return count;
  }
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

size_t diff_change_mask_with(SimdIsa isa, const uint8_t *twin, const uint8_t *page, size_t page_bytes, uint64_t *mask,
                             size_t *changed_bytes) {
  ChangeCount n{};
#if defined(__x86_64__)
  if (isa == SimdIsa::avx512)
    n = change_mask_avx512(twin, page, page_bytes, mask);
  else if (isa == SimdIsa::avx2)
    n = change_mask_avx2(twin, page, page_bytes, mask);
  else
#endif
    n = change_mask_plain(twin, page, page_bytes, mask);
  if (changed_bytes) *changed_bytes = n.bytes;
  return n.runs;
}

size_t diff_change_mask(const uint8_t *twin, const uint8_t *page, size_t page_bytes, uint64_t *mask,
                        size_t *changed_bytes) {
  return diff_change_mask_with(best_simd_isa(), twin, page, page_bytes, mask, changed_bytes);
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
