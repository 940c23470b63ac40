// Whether a page differs from its twin, decided from one read of each byte.
//
// memcmp is not enough where another writer may change the page during the
// comparison (a home's kept page, whose bytes other nodes' one-sided diffs
// write at any time): glibc's memcmp finds the first differing chunk, then
// reads the first differing byte again to compute its result, and answers
// "equal" if that byte changed back in between, even when the caller's own
// writes further on differ.  Here every byte is read once and the answer is
// made from those reads: a byte changing under the comparison can only add
// a difference, never hide one of the caller's.
#pragma once
#include <cstddef>
#include <cstdint>

#include "common/simd_isa.hpp"

namespace rdsm {

// True iff a[0, n) and b[0, n) differ.
bool pages_differ(const uint8_t *a, const uint8_t *b, size_t n);

// One implementation by name, for the tests (each answers as pages_differ
// does, on a CPU that has its instructions: simd_isa_available).
bool pages_differ_with(SimdIsa isa, const uint8_t *a, const uint8_t *b, size_t n);

}  // namespace rdsm
