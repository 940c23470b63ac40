#include "common/huge_mapping.hpp"

#include <cstdint>
#include <sys/mman.h>

namespace rdsm {

void *map_huge_aligned(size_t bytes) {
  bytes = (bytes + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  // One huge page more than asked for, so that an aligned start fits; the
  // slack on either side goes back.
  void *raw = mmap(nullptr, bytes + kHugePageBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return raw;
  const uintptr_t start = (uintptr_t)raw;
  const uintptr_t aligned = (start + kHugePageBytes - 1) & ~(uintptr_t)(kHugePageBytes - 1);
  if (aligned > start) munmap(raw, aligned - start);
  if (const size_t tail = start + kHugePageBytes - aligned) munmap((void *)(aligned + bytes), tail);
  (void)madvise((void *)aligned, bytes, MADV_HUGEPAGE);  // best effort: 4 KiB pages otherwise
  return (void *)aligned;
}

}  // namespace rdsm
