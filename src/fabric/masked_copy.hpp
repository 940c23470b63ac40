// Byte-masked copies: the building block of Fabric::put_masked.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fabric/fabric.hpp"

namespace rdsm::fabric {

// Copies byte i of src to dst for every i < n whose bit is set in mask
// (bit i % 64 of mask[i / 64]); writes no other byte of dst, so another
// thread or process may write the unmasked bytes at the same time.  n is a
// multiple of 64.  Uses AVX-512 masked stores where the CPU has them (a
// masked-out byte is never written), else copies the mask's runs.
void masked_copy(uint8_t *dst, const uint8_t *src, const uint64_t *mask, size_t n);

// Appends the mask's runs as pieces of a gathering write whose target
// starts at `off` (runs that cross a 64-byte boundary stay one piece).
void mask_to_pieces(uint64_t off, const uint8_t *src, const uint64_t *mask, size_t n,
                    std::vector<Fabric::Piece> &out);

}  // namespace rdsm::fabric
