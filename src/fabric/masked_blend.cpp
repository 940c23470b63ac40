// Exclusive byte-masked copies (masked_blend.hpp).
#include "fabric/masked_blend.hpp"

#include <cstring>

#include "common/simd_isa.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace rdsm::fabric {

namespace {

// Eight bytes at a time: each mask byte widened to a byte mask of the word.
void masked_blend_plain(uint8_t *dst, const uint8_t *src, const uint64_t *mask, size_t n) {
  for (size_t c = 0; c < n / 64; ++c) {
    const uint64_t m = mask[c];
    if (!m) continue;
    uint8_t *d = dst + c * 64;
    const uint8_t *s = src + c * 64;
    if (m == ~0ull) {
      std::memcpy(d, s, 64);
      continue;
    }
    for (unsigned w = 0; w < 8; ++w) {
      const unsigned bits = (unsigned)(m >> (8 * w)) & 0xFF;
      if (!bits) continue;
      uint64_t select = 0;
      for (unsigned b = 0; b < 8; ++b)
        if (bits & (1u << b)) select |= 0xFFull << (8 * b);
      uint64_t old, now;
      std::memcpy(&old, d + 8 * w, 8);
      std::memcpy(&now, s + 8 * w, 8);
      old = (old & ~select) | (now & select);
      std::memcpy(d + 8 * w, &old, 8);
    }
  }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RDSM_HAVE_BLEND_AVX2 1
// Each 32-bit half of a chunk's mask spread to one byte per bit: the
// mask's bytes copied to eight bytes each (a shuffle), each byte then
// tested against its own bit.
__attribute__((target("avx2"))) void masked_blend_avx2(uint8_t *dst, const uint8_t *src, const uint64_t *mask,
                                                       size_t n) {
  const __m256i bit = _mm256_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16,
                                       32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128);
  const __m256i spread = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3,
                                          3, 3, 3, 3, 3, 3, 3);
  for (size_t c = 0; c < n / 64; ++c) {
    const uint64_t m = mask[c];
    if (!m) continue;
    for (unsigned h = 0; h < 2; ++h) {
      const uint32_t bits = (uint32_t)(m >> (32 * h));
      if (!bits) continue;
      uint8_t *d = dst + c * 64 + 32 * h;
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + c * 64 + 32 * h));
      if (bits == ~0u) {
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(d), v);
        continue;
      }
      const __m256i bytes = _mm256_shuffle_epi8(_mm256_set1_epi32((int)bits), spread);
      const __m256i select = _mm256_cmpeq_epi8(_mm256_and_si256(bytes, bit), bit);
      const __m256i old = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(d));
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(d), _mm256_blendv_epi8(old, v, select));
    }
  }
}
#endif

}  // namespace

void masked_blend_with(SimdIsa isa, uint8_t *dst, const uint8_t *src, const uint64_t *mask, size_t n) {
#if defined(RDSM_HAVE_BLEND_AVX2)
  // A CPU with AVX-512 has AVX2: 32 bytes at a time is what memory allows.
  if (isa != SimdIsa::plain && simd_isa_available(SimdIsa::avx2)) return masked_blend_avx2(dst, src, mask, n);
#else
  (void)isa;
#endif
  masked_blend_plain(dst, src, mask, n);
}

void masked_blend(uint8_t *dst, const uint8_t *src, const uint64_t *mask, size_t n) {
  masked_blend_with(best_simd_isa(), dst, src, mask, n);
}

}  // namespace rdsm::fabric
