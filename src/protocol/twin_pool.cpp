// Twin memory (hlrc.hpp, twin_pool.hpp): where a page's twin is kept while it has one.
#include <algorithm>
#include <sys/mman.h>

#include "common/error.hpp"
#include "protocol/hlrc.hpp"
#include "protocol/twin_pool.hpp"

namespace rdsm {

namespace {
// Twin slots, used as a stack (the lowest slots again and again), given
// memory as the deepest slot in use grows, kTwinPoolChunk slots in one
// system call.  Touching all 16 MiB at start-up cost each node ~5 ms there
// and at every fork-join CREATE (a SPLASH FFT -m6 at 2 processes: 20 ms of
// wall time against 7 for threads); a page fault per slot on first use cost
// as much in the parallel phase of programs that make thousands of twins
// (SPLASH RADIX).  So the pool gets memory at neither: a node that waits
// for a lock or a barrier gives the next slots memory while it waits
// (TwinPool::warm), and the fault path a chunk at a time beyond those.
// Not huge pages: on a virtual machine that hands freed
// memory back to its host (free page reporting), a fresh huge page is
// backed anew at its first touch, 0.5-0.7 GB/s against 1.7 for 4 KiB
// pages measured here, and a run that drew cold huge pages took 2-3 times
// as long (SPLASH RADIX -n4194304 at 2 processes, parallel phase, medians
// of 9 alternated: 0.0388 s with huge pages, 0.0325 in chunks, the
// slowest run 0.072 against 0.0375).
constexpr size_t kTwinPoolSlots = 4096;
constexpr size_t kTwinPoolChunk = 64;
// Slots given memory per call of the idle work: 16 pages take the kernel
// about 20 us, what a node that waited too long already may lose in leaving.
constexpr size_t kTwinPoolWarmSlots = 16;
}  // namespace

TwinPool::~TwinPool() {
  if (base_) munmap(base_, slots_ * kPageBytes);
}

void TwinPool::create(size_t slots) {
  slots_ = slots;
  if (slots_) {
    void *pool = mmap(nullptr, slots_ * kPageBytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (pool == MAP_FAILED) fatal("cannot allocate %zu MiB for twins", (slots_ * kPageBytes) >> 20);
    (void)madvise(pool, slots_ * kPageBytes, MADV_NOHUGEPAGE);  // where THP is "always" (above)
    base_ = static_cast<uint8_t *>(pool);
  }
  free_.resize(slots_);
  for (size_t i = 0; i < slots_; ++i) free_[i] = (uint32_t)(slots_ - 1 - i);
  free_count_ = slots_;
}

int32_t TwinPool::take() {
  if (!free_count_) return -1;
  const uint32_t s = free_[--free_count_];
  // Slots come off the stack lowest first: one beyond those with memory is
  // the next one up, and its chunk gets memory now (not a fault per slot).
  while (s >= ready_.load(std::memory_order_acquire))
    give_memory(ready_.load(std::memory_order_acquire), kTwinPoolChunk);
  return (int32_t)s;
}

// Gives memory to `count` slots from `from`, the first without, and moves
// ready_ past them unless somebody else moved it meanwhile (then some
// pages got memory twice: the second time costs a page-table walk).  Only
// speed depends on it: a twin in a slot without memory takes a page fault.
void TwinPool::give_memory(size_t from, size_t count) {
  if (from >= slots_) return;
  const size_t n = std::min(count, slots_ - from);
  SharedRegion::populate_private(base_ + from * kPageBytes, n * kPageBytes);
  ready_.compare_exchange_strong(from, from + n, std::memory_order_acq_rel);
}

// Idle work of the node's locks and barrier (sync/locks.hpp): a node that
// waits for others gives the pool's next slots memory, a few at a time, so
// that its twins of the next phases find memory.  The parallel phase of a
// radix sort at 2 nodes (2.6 million keys) twins 2,500 pages per node in
// 16 ms; the kernel's first-use work on their slots was 8% of that.
// Where nodes outnumber cores, the waiting node takes that work from the
// nodes it waits for instead of leaving them its core: at most the pool's
// 16 MiB, once.
bool TwinPool::warm() {
  const size_t from = ready_.load(std::memory_order_acquire);
  if (from >= slots_) return false;
  give_memory(from, kTwinPoolWarmSlots);
  return true;
}

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
  pool_.create(twins_expected ? std::min(pages_, kTwinPoolSlots) : 0);
}

void Hlrc::take_twin_slot(size_t page) { twin_slot_[page] = pool_.take(); }

void Hlrc::free_twin(size_t page) {
  races::PageLocks::Hold hold(twin_locks_, page);  // --races: a home page's twin, against the diff handler
  if (twin_slot_[page] >= 0) pool_.give_back(twin_slot_[page]);
  twin_slot_[page] = -1;  // a zero twin's too (zero_twins.cpp)
  has_twin_[page] = 0;
}

}  // namespace rdsm
