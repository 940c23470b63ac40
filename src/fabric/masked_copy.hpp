// Byte-masked copies: the building block of Fabric::put_masked.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/simd_isa.hpp"
#include "fabric/fabric.hpp"

namespace rdsm::fabric {

// The ways of a byte-masked copy: AVX-512's byte-masked stores; AVX2's
// 4-byte-masked stores (the bytes of partly masked words one by one);
// plain whole chunks, 8- and 4-byte words and bytes; streaming: as plain,
// but 16 bytes with many bytes in partly masked words by SSE2's byte-masked
// streaming store (x86-64).
enum class MaskedWay : uint8_t { avx512, avx2, streaming, plain };
bool masked_way_available(MaskedWay way);
// The way masked_copy takes, found once: AVX-512 where the CPU has it, else
// streaming on AMD's CPUs (measured faster there by micro_masked), else
// AVX2 where the CPU has it, else plain.
MaskedWay best_masked_way();
const char *masked_way_name(MaskedWay way);

// Copies byte i of src to dst for every i < n whose bit is set in mask
// (bit i % 64 of mask[i / 64]); writes no other byte of dst, so another
// thread or process may write the unmasked bytes at the same time.  n is a
// multiple of 64.  Its stores are visible before any later store of the
// calling thread, as plain stores are.
void masked_copy(uint8_t *dst, const uint8_t *src, const uint64_t *mask, size_t n);
// The same the given way (masked_way_available): for tests and micro_masked.
void masked_copy_with(MaskedWay way, uint8_t *dst, const uint8_t *src, const uint64_t *mask, size_t n);

// Appends the mask's runs as pieces of a gathering write whose target
// starts at `off` (runs that cross a 64-byte boundary stay one piece).
void mask_to_pieces(uint64_t off, const uint8_t *src, const uint64_t *mask, size_t n,
                    std::vector<Fabric::Piece> &out);

}  // namespace rdsm::fabric
