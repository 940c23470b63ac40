// Twin memory (hlrc.hpp): where a page's twin is kept while it has one.
#include <algorithm>
#include <sys/mman.h>

#include "common/error.hpp"
#include "protocol/hlrc.hpp"

namespace rdsm {

namespace {
// Twin slots, used as a stack (the lowest slots again and again), given
// memory as the deepest slot in use grows, kTwinPoolChunk slots in one
// system call.  Touching all 16 MiB at start-up cost each node ~5 ms there
// and at every fork-join CREATE (a SPLASH FFT -m6 at 2 processes: 20 ms of
// wall time against 7 for threads); a page fault per slot on first use cost
// as much in the parallel phase of programs that make thousands of twins
// (SPLASH RADIX).  Not huge pages: on a virtual machine that hands freed
// memory back to its host (free page reporting), a fresh huge page is
// backed anew at its first touch, 0.5-0.7 GB/s against 1.7 for 4 KiB
// pages measured here, and a run that drew cold huge pages took 2-3 times
// as long (SPLASH RADIX -n4194304 at 2 processes, parallel phase, medians
// of 9 alternated: 0.0388 s with huge pages, 0.0325 in chunks, the
// slowest run 0.072 against 0.0375).
constexpr size_t kTwinPoolSlots = 4096;
constexpr size_t kTwinPoolChunk = 64;
}  // namespace

void Hlrc::make_twin_memory() {
  // Each page has its own twin slot in a sparse arena: memory is used only
  // for pages that get twins, and making a twin never allocates, so it can
  // happen in the signal handler.
  void *arena = mmap(nullptr, opt_.region_bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (arena == MAP_FAILED) fatal("cannot reserve %zu MiB of address space for twins", opt_.region_bytes >> 20);
  twins_ = static_cast<uint8_t *>(arena);
  // A node alone, or one whose memory the machine keeps coherent (hw),
  // makes no twins (or, under --races, few): those come from the arena.
  const bool twins_expected = nodes_ > 1 && cfg_.coherence != CoherenceAxis::hardware;
  twin_pool_slots_ = twins_expected ? std::min(pages_, kTwinPoolSlots) : 0;
  if (twin_pool_slots_) {
    void *pool = mmap(nullptr, twin_pool_slots_ * kPageBytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (pool == MAP_FAILED) fatal("cannot allocate %zu MiB for twins", (twin_pool_slots_ * kPageBytes) >> 20);
    (void)madvise(pool, twin_pool_slots_ * kPageBytes, MADV_NOHUGEPAGE);  // where THP is "always" (above)
    twin_pool_ = static_cast<uint8_t *>(pool);
  }
  pool_free_.resize(twin_pool_slots_);
  for (size_t i = 0; i < twin_pool_slots_; ++i) pool_free_[i] = (uint32_t)(twin_pool_slots_ - 1 - i);
  pool_free_count_ = twin_pool_slots_;
}

void Hlrc::take_twin_slot(size_t page) {
  twin_slot_[page] = pool_free_count_ ? (int32_t)pool_free_[--pool_free_count_] : -1;
  // Slots come off the stack lowest first: one beyond those with memory is
  // the next one up, and its chunk gets memory now (not a fault per slot).
  while (twin_slot_[page] >= 0 && (size_t)twin_slot_[page] >= pool_ready_) {
    const size_t n = std::min(kTwinPoolChunk, twin_pool_slots_ - pool_ready_);
    SharedRegion::populate_private(twin_pool_ + pool_ready_ * kPageBytes, n * kPageBytes);
    pool_ready_ += n;
  }
}

void Hlrc::free_twin(size_t page) {
  races::PageLocks::Hold hold(twin_locks_, page);  // --races: a home page's twin, against the diff handler
  if (twin_slot_[page] >= 0) pool_free_[pool_free_count_++] = (uint32_t)twin_slot_[page];
  twin_slot_[page] = -1;  // a zero twin's too (zero_twins.cpp)
  has_twin_[page] = 0;
}

}  // namespace rdsm
