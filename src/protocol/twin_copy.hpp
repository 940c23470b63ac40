// Copying a page into a twin that will not be read for a while.
//
// Two kinds of twin are next read only after the application has gone
// through megabytes of other data: the twins a home brings up to date for
// thousands of kept pages at one release (a 3-D FFT's planes, compared at
// the next release, a phase later), and the twins of pages opened for
// writing ahead of a stream or scatter (compared at the release that ends
// it).  By then a line written now has been evicted anyway.  Plain stores
// first read each line of the twin (to own it) and push the application's
// data out of the cache to make room; streaming stores write the lines to
// memory directly: a third less memory traffic per copy, and the
// application finds more of its data cached.  A small gain, measured side
// by side at 2 nodes: fft3d's parallel time 1.5% lower (median of 20
// alternating pairs); the other apps moved within the machine's noise.
#pragma once
#include <cstddef>
#include <cstdint>

#include "common/simd_isa.hpp"

namespace rdsm {

// A page of zeros, read-only: the twin of every copy twinned while all
// zeros (Hlrc::twin_from_copy), such as an output array's pages at their
// first write.  A write into it is a bug, and faults.
extern const uint8_t kZeroPage[4096];

// Copies n bytes from src to dst, with streaming stores where the CPU has
// them, n is a multiple of 256 and dst is 64-byte aligned (a twin is),
// else with memcpy.  The stores are ordered (sfence) before it returns.
void copy_to_twin(uint8_t *dst, const uint8_t *src, size_t n);

// One implementation by name, for the tests (each copies as copy_to_twin
// does, on a CPU that has its instructions: simd_isa_available; plain is
// memcpy).
void copy_to_twin_with(SimdIsa isa, uint8_t *dst, const uint8_t *src, size_t n);

}  // namespace rdsm
