// Anonymous memory in transparent huge pages where the kernel gives them
// (THP "always" or "madvise"): a buffer that fills on first use then costs
// one fault and one 2 MiB clear per 512 pages instead of 512 faults.
#pragma once
#include <cstddef>

namespace rdsm {

inline constexpr size_t kHugePageBytes = size_t(2) << 20;

// A private read-write anonymous mapping of `bytes` (rounded up to whole
// huge pages), aligned to a huge page and advised MADV_HUGEPAGE; nothing
// is touched.  MAP_FAILED if the kernel refuses the mapping; munmap() it
// with the rounded size.
void *map_huge_aligned(size_t bytes);

}  // namespace rdsm
