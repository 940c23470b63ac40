// The home's word of a page (one 64-bit word per page in the home's
// `copies` segment), read and changed by remote atomics from any node and
// by local atomics at the home.  It packs what the home must know of the
// page's readers and writers:
//   copies  (bits 0..18)  live copies counted at the home (hlrc.hpp: a home
//                         page nobody copied needs no write notices);
//   untracked (bit 19)    the home writes the page untracked: a fetcher
//                         must announce its copy (first_copy_log.cpp);
//   writers (bits 20..35) nodes writing diff runs into the home's copy now;
//   whole   (bit 36)      a node is writing the whole page now;
//   home    (bit 37)      the home's application may be writing its copy
//                         (the page is writable there);
//   gen     (bits 38..63) how many of those writes have completed (wraps).
// Only `copies` and `untracked` are used unless whole-page writes are on
// (presets.hpp WholeAxis); whole_page_writes.cpp says how the rest is
// used.  Counting a copy out adds -1 to the whole word: the count is at
// least one then, so no borrow reaches the other fields.
#pragma once
#include <cstdint>

namespace rdsm::page_word {

constexpr uint64_t kCopy = 1;
constexpr uint64_t kCopiesMask = (1ull << 19) - 1;
constexpr uint64_t kUntracked = 1ull << 19;
constexpr uint64_t kWriter = 1ull << 20;
constexpr uint64_t kWritersMask = ((1ull << 16) - 1) << 20;
constexpr uint64_t kWhole = 1ull << 36;
constexpr uint64_t kHome = 1ull << 37;
constexpr unsigned kGenShift = 38;
constexpr uint64_t kGen = 1ull << kGenShift;

// The home's parked word (after the first-copy log, whole-page writes on):
// the home is in a barrier, from before its release (whole_page_writes.cpp),
// with the barrier's epoch stamp (hlrc.hpp, epoch_stamp_) in bits 48..55;
// the bits below count the nodes holding it there.
constexpr uint64_t kParked = 1ull << 63;
constexpr unsigned kParkedEpochShift = 48;
constexpr uint64_t kParkedHolders = (1ull << kParkedEpochShift) - 1;

// A generation no word has: "this copy's base is unknown".
constexpr uint32_t kNoGen = 0xFFFFFFFFu;

inline uint64_t copies(uint64_t w) { return w & kCopiesMask; }
inline uint64_t writers(uint64_t w) { return (w & kWritersMask) >> 20; }
inline uint32_t gen(uint64_t w) { return (uint32_t)(w >> kGenShift); }
// Nobody is changing the home's copy.
inline bool quiet(uint64_t w) { return (w & (kWritersMask | kWhole | kHome)) == 0; }

}  // namespace rdsm::page_word
