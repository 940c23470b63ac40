// Byte-masked copies (masked_copy.hpp), and the default put_masked of a
// fabric without a masked store: the mask's runs as one gathering write.
#include "fabric/masked_copy.hpp"

#include "common/bits.hpp"

#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace rdsm::fabric {

namespace {

void masked_copy_runs(uint8_t *dst, const uint8_t *src, const uint64_t *mask, size_t n) {
  for_each_bit_run(mask, n / 64, [&](size_t start, size_t len) { std::memcpy(dst + start, src + start, len); });
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RDSM_HAVE_AVX512_PATH 1
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

bool cpu_has_avx512bw() {
  static const bool has = __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512f");
  return has;
}
#endif

}  // namespace

void masked_copy(uint8_t *dst, const uint8_t *src, const uint64_t *mask, size_t n) {
#if defined(RDSM_HAVE_AVX512_PATH)
  if (cpu_has_avx512bw()) {
    masked_copy_avx512(dst, src, mask, n);
    return;
  }
#endif
  masked_copy_runs(dst, src, mask, n);
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
