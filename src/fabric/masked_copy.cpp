// Byte-masked copies (masked_copy.hpp), and the default put_masked of a
// fabric without a masked store: the mask's runs as one gathering write.
#include "fabric/masked_copy.hpp"

#include "common/bits.hpp"
#include "common/simd_isa.hpp"

#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace rdsm::fabric {

namespace {

// Without vector instructions: a 64-byte chunk whole or skipped, else its
// 8-byte words whole or skipped, else their whole 4-byte halves, else
// their bytes one by one.  A diff's
// mask is mostly whole words (ints, doubles), often isolated ones (a
// scatter), where copying runs would cost a call per word.
void masked_copy_plain(uint8_t *dst, const uint8_t *src, const uint64_t *mask, size_t n) {
  for (size_t c = 0; c < n / 64; ++c) {
    uint64_t m = mask[c];
    if (!m) continue;
    uint8_t *d = dst + c * 64;
    const uint8_t *s = src + c * 64;
    if (m == ~0ull) {
      std::memcpy(d, s, 64);
      continue;
    }
    for (unsigned w = 0; w < 8; ++w) {
      unsigned bytes = (unsigned)(m >> (8 * w)) & 0xFF;
      if (bytes == 0xFF) {
        std::memcpy(d + 8 * w, s + 8 * w, 8);
      } else {
        for (unsigned half = 0; half < 8; half += 4)
          if (((bytes >> half) & 0xF) == 0xF) {
            std::memcpy(d + 8 * w + half, s + 8 * w + half, 4);
            bytes &= ~(0xFu << half);
          }
        for (; bytes; bytes &= bytes - 1) {
          unsigned b = 8 * w + (unsigned)__builtin_ctz(bytes);
          d[b] = s[b];
        }
      }
    }
  }
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
// it has a 4-byte one for a 32-byte block's whole 4-byte words, and SSE2
// has a 16-byte byte-masked one (MASKMOVDQU) for blocks with partly masked
// words.  Radix keys are all such words (their high byte never changes): a
// page of them took 4 us as single bytes, 2.1 as MASKMOVDQU, whose stores
// bypass the cache and are weakly ordered (hence the sfence at the end).
__attribute__((target("avx2"))) inline __m128i byte_mask_of(uint32_t bits16) {
  const __m128i bit = _mm_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128);
  __m128i spread = _mm_set_epi64x((long long)((bits16 >> 8) & 0xFF) * 0x0101010101010101ll,
                                  (long long)(bits16 & 0xFF) * 0x0101010101010101ll);
  return _mm_cmpeq_epi8(_mm_and_si128(spread, bit), bit);
}

__attribute__((target("avx2"))) void masked_copy_avx2(uint8_t *dst, const uint8_t *src, const uint64_t *mask,
                                                      size_t n) {
  const __m256i shifts = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28);
  const __m256i nibble = _mm256_set1_epi32(0xF);
  bool streamed = false;
  for (size_t b = 0; b < n / 32; ++b) {
    uint32_t m = (uint32_t)(mask[b / 2] >> (32 * (b % 2)));
    if (!m) continue;
    uint8_t *d = dst + b * 32;
    const uint8_t *s = src + b * 32;
    if (m == ~0u) {
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(d), _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s)));
      continue;
    }
    // Bit 4k of `whole` (`any`): word k's four bytes all (some) masked.
    uint32_t whole = m & (m >> 1) & (m >> 2) & (m >> 3) & 0x11111111u;
    uint32_t any = (m | (m >> 1) | (m >> 2) | (m >> 3)) & 0x11111111u;
    if (whole == any) {
      __m256i lanes = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32((int)m), shifts), nibble);
      _mm256_maskstore_epi32(reinterpret_cast<int *>(d), _mm256_cmpeq_epi32(lanes, nibble),
                             _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s)));
      continue;
    }
    streamed = true;
    for (unsigned half = 0; half < 2; ++half) {
      uint32_t bits = (m >> (16 * half)) & 0xFFFF;
      if (bits)
        _mm_maskmoveu_si128(_mm_loadu_si128(reinterpret_cast<const __m128i *>(s + 16 * half)), byte_mask_of(bits),
                            reinterpret_cast<char *>(d + 16 * half));
    }
  }
  if (streamed) _mm_sfence();  // ordered before whatever this thread stores next, as a plain store would be
}
#endif

}  // namespace

void masked_copy_with(SimdIsa isa, uint8_t *dst, const uint8_t *src, const uint64_t *mask, size_t n) {
#if defined(RDSM_HAVE_VECTOR_PATHS)
  if (isa == SimdIsa::avx512) return masked_copy_avx512(dst, src, mask, n);
  if (isa == SimdIsa::avx2) return masked_copy_avx2(dst, src, mask, n);
#else
  (void)isa;
#endif
  masked_copy_plain(dst, src, mask, n);
}

void masked_copy(uint8_t *dst, const uint8_t *src, const uint64_t *mask, size_t n) {
  masked_copy_with(best_simd_isa(), dst, src, mask, n);
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
