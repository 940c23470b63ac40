// A byte-masked copy for a writer that holds the target alone: it may
// rewrite the unmasked bytes with the values they hold, so each 32 bytes
// are read, blended and stored whole.  A diff whose every word is only
// partly changed (radix keys keep their zero high byte) costs a
// byte-masked store a partial line each, 2.3-3.8 us a page on an AMD EPYC,
// where the blend costs about what a plain copy of the page does (0.6
// us), and every other double rewritten 2.4-2.7 us against 0.6:
// micro_masked measures both.
#pragma once
#include <cstddef>
#include <cstdint>

#include "common/simd_isa.hpp"

namespace rdsm::fabric {

// dst[i] = src[i] for every i < n whose bit is set in mask (bit i % 64 of
// mask[i / 64]); every other byte of dst is read and written back
// unchanged, so nobody else may write dst's n bytes meanwhile.  n is a
// multiple of 64.  Its stores are visible before any later store of the
// calling thread.
void masked_blend(uint8_t *dst, const uint8_t *src, const uint64_t *mask, size_t n);
// The same with the given instructions (plain, or AVX2 for the others
// where the CPU has it): for tests and micro_masked.
void masked_blend_with(SimdIsa isa, uint8_t *dst, const uint8_t *src, const uint64_t *mask, size_t n);

}  // namespace rdsm::fabric
