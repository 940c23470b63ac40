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
