#include "protocol/page_compare.hpp"

#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace rdsm {
namespace {

// 256 bytes per step, the differences of each step folded into one register
// and tested once: as fast as glibc's vector memcmp on equal pages (which
// is what a kept page mostly is), and an early answer for a written one.
#if defined(__x86_64__)
__attribute__((target("avx512f"))) bool differ_avx512(const uint8_t *a, const uint8_t *b, size_t n) {
  for (size_t i = 0; i < n; i += 256) {
    __m512i x = _mm512_xor_si512(_mm512_loadu_si512(a + i), _mm512_loadu_si512(b + i));
    x = _mm512_or_si512(x, _mm512_xor_si512(_mm512_loadu_si512(a + i + 64), _mm512_loadu_si512(b + i + 64)));
    x = _mm512_or_si512(x, _mm512_xor_si512(_mm512_loadu_si512(a + i + 128), _mm512_loadu_si512(b + i + 128)));
    x = _mm512_or_si512(x, _mm512_xor_si512(_mm512_loadu_si512(a + i + 192), _mm512_loadu_si512(b + i + 192)));
    if (_mm512_test_epi64_mask(x, x)) return true;
  }
  return false;
}

__attribute__((target("avx2"))) bool differ_avx2(const uint8_t *a, const uint8_t *b, size_t n) {
  for (size_t i = 0; i < n; i += 256) {
    __m256i x = _mm256_setzero_si256();
    for (size_t k = 0; k < 256; k += 32)
      x = _mm256_or_si256(x, _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(a + i + k)),
                                              _mm256_loadu_si256(reinterpret_cast<const __m256i *>(b + i + k))));
    if (!_mm256_testz_si256(x, x)) return true;
  }
  return false;
}

#endif

bool differ_plain(const uint8_t *a, const uint8_t *b, size_t n) {
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    uint64_t x = 0;
    for (size_t k = 0; k < 64; k += 8) {
      uint64_t u, v;
      memcpy(&u, a + i + k, 8);
      memcpy(&v, b + i + k, 8);
      x |= u ^ v;
    }
    if (x) return true;
  }
  uint8_t x = 0;
  for (; i < n; ++i) x |= (uint8_t)(a[i] ^ b[i]);
  return x != 0;
}

}  // namespace

bool pages_differ_with(SimdIsa isa, const uint8_t *a, const uint8_t *b, size_t n) {
  if (n % 256 != 0) return differ_plain(a, b, n);  // 64-byte steps, then the tail
#if defined(__x86_64__)
  if (isa == SimdIsa::avx512) return differ_avx512(a, b, n);
  if (isa == SimdIsa::avx2) return differ_avx2(a, b, n);
#endif
  return differ_plain(a, b, n);
}

bool pages_differ(const uint8_t *a, const uint8_t *b, size_t n) {
  return pages_differ_with(best_simd_isa(), a, b, n);
}

}  // namespace rdsm
