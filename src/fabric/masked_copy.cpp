// Byte-masked copies (masked_copy.hpp), and the default put_masked of a
// fabric without a masked store: the mask's runs as one gathering write.
#include "fabric/masked_copy.hpp"

#include "common/bits.hpp"
#include "common/simd_isa.hpp"

#include <atomic>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace rdsm::fabric {

namespace {

// One 8-byte word of a chunk, `bytes` its mask: whole, else its whole
// 4-byte halves, else its bytes one by one.
inline void copy_word(uint8_t *d, const uint8_t *s, unsigned bytes) {
  if (bytes == 0xFF) {
    std::memcpy(d, s, 8);
    return;
  }
  for (unsigned half = 0; half < 8; half += 4)
    if (((bytes >> half) & 0xF) == 0xF) {
      std::memcpy(d + half, s + half, 4);
      bytes &= ~(0xFu << half);
    }
  for (; bytes; bytes &= bytes - 1) {
    unsigned b = (unsigned)__builtin_ctz(bytes);
    d[b] = s[b];
  }
}

// Without vector instructions: a 64-byte chunk whole or skipped, else its
// 8-byte words (copy_word).  A diff's mask is mostly whole words (ints,
// doubles), often isolated ones (a scatter), where copying runs would cost
// a call per word.
inline void copy_chunk(uint8_t *d, const uint8_t *s, uint64_t m) {
  if (m == ~0ull) {
    std::memcpy(d, s, 64);
    return;
  }
  for (unsigned w = 0; w < 8; ++w)
    if (unsigned bytes = (unsigned)(m >> (8 * w)) & 0xFF) copy_word(d + 8 * w, s + 8 * w, bytes);
}

void masked_copy_plain(uint8_t *dst, const uint8_t *src, const uint64_t *mask, size_t n) {
  for (size_t c = 0; c < n / 64; ++c)
    if (mask[c]) copy_chunk(dst + c * 64, src + c * 64, mask[c]);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RDSM_HAVE_VECTOR_PATHS 1
__attribute__((target("avx512f,avx512bw"))) void masked_copy_avx512(uint8_t *dst, const uint8_t *src,
                                                                   const uint64_t *mask, size_t n) {
  for (size_t c = 0; c < n / 64; ++c) {
    uint64_t m = mask[c];
    if (!m) continue;
    __m512i v = _mm512_loadu_si512(src + c * 64);
    if (m == ~0ull)
      _mm512_storeu_si512(dst + c * 64, v);
    else
      _mm512_mask_storeu_epi8(dst + c * 64, (__mmask64)m, v);
  }
}

// AVX2 has no byte-masked store that leaves the other bytes alone (a blend
// would write them back, racing with another writer of the same page), but
// it has a 4-byte one: each 32-byte block's whole 4-byte words go in one
// masked store, the bytes of partly masked words one by one.
__attribute__((target("avx2"))) void masked_copy_avx2(uint8_t *dst, const uint8_t *src, const uint64_t *mask,
                                                      size_t n) {
  const __m256i shifts = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28);
  const __m256i nibble = _mm256_set1_epi32(0xF);
  for (size_t b = 0; b < n / 32; ++b) {
    uint32_t m = (uint32_t)(mask[b / 2] >> (32 * (b % 2)));
    if (!m) continue;
    uint8_t *d = dst + b * 32;
    const uint8_t *s = src + b * 32;
    __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s));
    if (m == ~0u) {
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(d), v);
      continue;
    }
    // Bit 4k of `whole` (`any`): word k's four bytes all (some) masked.
    uint32_t whole = m & (m >> 1) & (m >> 2) & (m >> 3) & 0x11111111u;
    uint32_t any = (m | (m >> 1) | (m >> 2) | (m >> 3)) & 0x11111111u;
    if (whole) {
      __m256i lanes = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32((int)m), shifts), nibble);
      _mm256_maskstore_epi32(reinterpret_cast<int *>(d), _mm256_cmpeq_epi32(lanes, nibble), v);
    }
    for (uint32_t part = any & ~whole; part; part &= part - 1) {
      unsigned w = (unsigned)__builtin_ctz(part);
      for (unsigned bytes = (m >> w) & 0xF; bytes; bytes &= bytes - 1) {
        unsigned i = w + (unsigned)__builtin_ctz(bytes);
        d[i] = s[i];
      }
    }
  }
}

// As plain, but in a chunk with many bytes in partly masked 4-byte words,
// a 16-byte quarter with at least kStreamFrom of them goes by SSE2's
// byte-masked store (MASKMOVDQU), whose stores bypass the cache and are
// weakly ordered (hence the sfence at the end).  Radix keys are all such
// words (their high byte never changes).  micro_masked on an AMD EPYC
// (Zen), us per page: radix keys 2.4 (plain 3.4, AVX2's 4-byte masked
// stores 4.0), every other double rewritten 1.4 (plain 1.3, AVX2 1.9: its
// masked store is slow there), half a page 0.5 (0.5, 0.7).
constexpr unsigned kStreamFrom = 8;

__attribute__((target("popcnt"))) void masked_copy_streaming(uint8_t *dst, const uint8_t *src, const uint64_t *mask,
                                                             size_t n) {
  bool streamed = false;
  for (size_t c = 0; c < n / 64; ++c) {
    uint64_t m = mask[c];
    if (!m) continue;
    uint8_t *d = dst + c * 64;
    const uint8_t *s = src + c * 64;
    // Bit 4k of `whole`: word k's four bytes all masked; `partial`: the masked bytes of the other words.
    const uint64_t whole = m & (m >> 1) & (m >> 2) & (m >> 3) & 0x1111111111111111ull;
    const uint64_t partial = m & ~(whole * 0xF);
    if ((unsigned)__builtin_popcountll(partial) < 2 * kStreamFrom) {  // whole, or few partly masked words
      copy_chunk(d, s, m);
      continue;
    }
    for (unsigned q = 0; q < 4; ++q) {
      const uint32_t bits = (uint32_t)(m >> (16 * q)) & 0xFFFF;
      if (!bits) continue;
      if ((unsigned)__builtin_popcountll((partial >> (16 * q)) & 0xFFFF) >= kStreamFrom) {
        const __m128i bit = _mm_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128);
        // Each mask byte in all eight bytes of its half (unsigned: 0xFF times this overflows a signed word).
        const __m128i spread = _mm_set_epi64x((long long)(((bits >> 8) & 0xFFull) * 0x0101010101010101ull),
                                              (long long)((bits & 0xFFull) * 0x0101010101010101ull));
        _mm_maskmoveu_si128(_mm_loadu_si128(reinterpret_cast<const __m128i *>(s + 16 * q)),
                            _mm_cmpeq_epi8(_mm_and_si128(spread, bit), bit), reinterpret_cast<char *>(d + 16 * q));
        streamed = true;
        continue;
      }
      for (unsigned w = 0; w < 2; ++w)
        if (unsigned bytes = (bits >> (8 * w)) & 0xFF) copy_word(d + 16 * q + 8 * w, s + 16 * q + 8 * w, bytes);
    }
  }
  if (streamed) _mm_sfence();  // ordered before whatever this thread stores next, as a plain store would be
}
#endif

}  // namespace

bool masked_way_available(MaskedWay way) {
  switch (way) {
    case MaskedWay::avx512: return simd_isa_available(SimdIsa::avx512);
    case MaskedWay::avx2: return simd_isa_available(SimdIsa::avx2);
#if defined(RDSM_HAVE_VECTOR_PATHS)
    case MaskedWay::streaming:  // SSE2's store (every x86-64), and a count of bits in one instruction
      __builtin_cpu_init();
      return __builtin_cpu_supports("popcnt");
#else
    case MaskedWay::streaming: return false;
#endif
    case MaskedWay::plain: return true;
  }
  return false;
}

MaskedWay best_masked_way() {
  // Found once, by whichever thread asks first; no initialiser guard (this
  // runs in the diff path of a fault).
  static std::atomic<int> best{-1};
  int b = best.load(std::memory_order_relaxed);
  if (b < 0) {
    MaskedWay way = MaskedWay::plain;
    if (masked_way_available(MaskedWay::avx512)) {
      way = MaskedWay::avx512;
    } else {
#if defined(RDSM_HAVE_VECTOR_PATHS)
      __builtin_cpu_init();
      // Where it was measured faster (micro_masked); elsewhere AVX2's masked stores.
      if (__builtin_cpu_is("amd"))
        way = MaskedWay::streaming;
      else
#endif
        if (masked_way_available(MaskedWay::avx2))
        way = MaskedWay::avx2;
    }
    b = (int)way;
    best.store(b, std::memory_order_relaxed);
  }
  return (MaskedWay)b;
}

const char *masked_way_name(MaskedWay way) {
  switch (way) {
    case MaskedWay::avx512: return "avx512";
    case MaskedWay::avx2: return "avx2";
    case MaskedWay::streaming: return "streaming";
    case MaskedWay::plain: return "plain";
  }
  return "?";
}

void masked_copy_with(MaskedWay way, uint8_t *dst, const uint8_t *src, const uint64_t *mask, size_t n) {
#if defined(RDSM_HAVE_VECTOR_PATHS)
  if (way == MaskedWay::avx512) return masked_copy_avx512(dst, src, mask, n);
  if (way == MaskedWay::avx2) return masked_copy_avx2(dst, src, mask, n);
  if (way == MaskedWay::streaming) return masked_copy_streaming(dst, src, mask, n);
#else
  (void)way;
#endif
  masked_copy_plain(dst, src, mask, n);
}

void masked_copy(uint8_t *dst, const uint8_t *src, const uint64_t *mask, size_t n) {
  masked_copy_with(best_masked_way(), dst, src, mask, n);
}

void mask_to_pieces(uint64_t off, const uint8_t *src, const uint64_t *mask, size_t n,
                    std::vector<Fabric::Piece> &out) {
  for_each_bit_run(mask, n / 64, [&](size_t start, size_t len) { out.push_back({off + start, src + start, len}); });
}

void Fabric::put_masked(NodeId dst, SegmentId seg, uint64_t off, const void *src, const uint64_t *mask,
                        size_t n) {
  std::vector<Piece> pieces;
  mask_to_pieces(off, static_cast<const uint8_t *>(src), mask, n, pieces);
  putv(dst, seg, pieces.data(), pieces.size());
}

}  // namespace rdsm::fabric
