// Run-length diffs of a page against its twin.
//
// Encoding: a sequence of runs, each [u16 offset][u16 length][length bytes],
// little endian, offsets increasing, runs not overlapping.  Runs are exact
// to the byte: a byte equal in page and twin is never inside a run, so two
// nodes that wrote different bytes of one word in the same interval both
// keep their writes when their diffs are applied at the home (byte-level
// false sharing is data-race free).
#pragma once
#include <cstddef>
#include <cstdint>

#include "common/simd_isa.hpp"

namespace rdsm {

// Upper bound of the encoded size for a page of `page_bytes`
// (every other byte changed: one 5-byte run per 2 bytes).
constexpr size_t diff_max_bytes(size_t page_bytes) { return (page_bytes / 2 + 1) * 5; }

// A run of changed bytes: [off, off + len), maximal (the bytes on either
// side are unchanged or outside the page).
struct DiffRun {
  uint32_t off, len;
};
// Upper bound of the number of runs of a page (every other byte changed).
constexpr size_t diff_max_runs(size_t page_bytes) { return page_bytes / 2 + 1; }

// Finds the runs of page against twin into `runs` (capacity
// diff_max_runs(page_bytes)), in increasing order; returns their number.
// What diff_encode encodes and what one-sided diffs write, byte-exact.
size_t diff_find_runs(const uint8_t *twin, const uint8_t *page, size_t page_bytes, DiffRun *runs);

// The changed bytes of page against twin as a bit mask: bit i % 64 of
// mask[i / 64] is set iff page[i] != twin[i] (page_bytes a multiple of 64,
// mask holding page_bytes / 64 words).  Returns the number of runs, as
// diff_find_runs would, and sets *changed_bytes (if given) to the number of
// changed bytes.  What a byte-masked write (fabric put_masked) sends.
size_t diff_change_mask(const uint8_t *twin, const uint8_t *page, size_t page_bytes, uint64_t *mask,
                        size_t *changed_bytes = nullptr);

// One implementation by name, for the tests (each answers as
// diff_change_mask does, on a CPU that has its instructions:
// simd_isa_available).
size_t diff_change_mask_with(SimdIsa isa, const uint8_t *twin, const uint8_t *page, size_t page_bytes, uint64_t *mask,
                             size_t *changed_bytes = nullptr);

// Encodes page against twin into out (capacity diff_max_bytes(page_bytes)).
// Returns the encoded length; 0 means the page is unchanged.
size_t diff_encode(const uint8_t *twin, const uint8_t *page, size_t page_bytes, uint8_t *out);

// Applies a diff to page.  Returns false (changing nothing) if the diff is
// malformed or reaches past page_bytes.
bool diff_apply(uint8_t *page, size_t page_bytes, const uint8_t *diff, size_t len);

// Calls f(offset, bytes, length) for each run, in order; for protocols that
// write each run to the home directly.  Returns false if malformed.
template <class F>
bool diff_for_each_run(const uint8_t *diff, size_t len, size_t page_bytes, F &&f) {
  size_t i = 0;
  while (i < len) {
    if (len - i < 4) return false;
    uint16_t off = (uint16_t)(diff[i] | (diff[i + 1] << 8));
    uint16_t n = (uint16_t)(diff[i + 2] | (diff[i + 3] << 8));
    i += 4;
    if (n == 0 || (size_t)off + n > page_bytes || len - i < n) return false;
    f((size_t)off, diff + i, (size_t)n);
    i += n;
  }
  return true;
}

}  // namespace rdsm
