#include "protocol/twin_copy.hpp"

#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace rdsm {
namespace {

#if defined(__x86_64__)
__attribute__((target("avx512f"))) void stream_avx512(uint8_t *dst, const uint8_t *src, size_t n) {
  for (size_t i = 0; i < n; i += 256) {
    __m512i a = _mm512_loadu_si512(src + i), b = _mm512_loadu_si512(src + i + 64);
    __m512i c = _mm512_loadu_si512(src + i + 128), d = _mm512_loadu_si512(src + i + 192);
    _mm512_stream_si512(reinterpret_cast<__m512i *>(dst + i), a);
    _mm512_stream_si512(reinterpret_cast<__m512i *>(dst + i + 64), b);
    _mm512_stream_si512(reinterpret_cast<__m512i *>(dst + i + 128), c);
    _mm512_stream_si512(reinterpret_cast<__m512i *>(dst + i + 192), d);
  }
  _mm_sfence();
}

__attribute__((target("avx2"))) void stream_avx2(uint8_t *dst, const uint8_t *src, size_t n) {
  for (size_t i = 0; i < n; i += 64) {
    __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i));
    __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i + 32));
    _mm256_stream_si256(reinterpret_cast<__m256i *>(dst + i), a);
    _mm256_stream_si256(reinterpret_cast<__m256i *>(dst + i + 32), b);
  }
  _mm_sfence();
}
#endif

}  // namespace

void copy_to_twin_with(SimdIsa isa, uint8_t *dst, const uint8_t *src, size_t n) {
  if (n % 256 != 0 || (reinterpret_cast<uintptr_t>(dst) & 63) != 0) isa = SimdIsa::plain;
#if defined(__x86_64__)
  if (isa == SimdIsa::avx512) return stream_avx512(dst, src, n);
  if (isa == SimdIsa::avx2) return stream_avx2(dst, src, n);
#endif
  memcpy(dst, src, n);
}

void copy_to_twin(uint8_t *dst, const uint8_t *src, size_t n) { copy_to_twin_with(best_simd_isa(), dst, src, n); }

alignas(4096) const uint8_t kZeroPage[4096] = {};

}  // namespace rdsm
