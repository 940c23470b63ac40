// Byte-masked copies: the building block of Fabric::put_masked.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/simd_isa.hpp"
#include "fabric/fabric.hpp"

namespace rdsm::fabric {

// Copies byte i of src to dst for every i < n whose bit is set in mask
// (bit i % 64 of mask[i / 64]); writes no other byte of dst, so another
// thread or process may write the unmasked bytes at the same time.  n is a
// multiple of 64.  Uses the widest masked stores the CPU has: AVX-512's
// byte-masked ones, else AVX2's 4-byte-masked ones (SSE2's 16-byte
// byte-masked streaming store where words are partly masked), else whole
// 8-byte words and single bytes.
void masked_copy(uint8_t *dst, const uint8_t *src, const uint64_t *mask, size_t n);
// The same with the given instructions (the CPU must have them): for tests.
void masked_copy_with(SimdIsa isa, uint8_t *dst, const uint8_t *src, const uint64_t *mask, size_t n);

// Appends the mask's runs as pieces of a gathering write whose target
// starts at `off` (runs that cross a 64-byte boundary stay one piece).
void mask_to_pieces(uint64_t off, const uint8_t *src, const uint64_t *mask, size_t n,
                    std::vector<Fabric::Piece> &out);

}  // namespace rdsm::fabric
