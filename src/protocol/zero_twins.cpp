// Zero twins: a copy twinned while all zeros (an output array's pages at
// their first write, a destination the master cleared) shares one
// read-only page of zeros as its twin (kZeroPage) instead of a copy of its
// own.  Checking costs a read of the page, which stops at its first
// non-zero byte; the copy it saves writes the twin's 4 KiB to memory, and
// the release's comparison then reads a twin that stays in the cache
// instead of one streamed out to memory a phase earlier.
//
// Whatever writes into a twin asks for it through twin_to_write, which
// first gives a zero twin memory of its own (zeros, unless the caller
// writes all of it); reading goes through twin(), which never allocates.
// Not under --races or detect=scan, whose twins other threads write or
// which are taken as pages arrive.
#include <cstring>

#include "protocol/hlrc.hpp"
#include "protocol/page_compare.hpp"
#include "protocol/twin_copy.hpp"

namespace rdsm {

static_assert(sizeof kZeroPage == kPageBytes, "the zero twin is one page");

void Hlrc::twin_from_copy(size_t page, bool streaming) {
  const uint8_t *copy = region_->sys_page(page);
  // pages_differ reads each byte once: a byte another node's diff writes
  // during the check (a home page) is seen before or after, as a copy
  // would have seen it.
  if (!races_ && !scan_ && !pages_differ(copy, kZeroPage, kPageBytes)) {
    twin_slot_[page] = kZeroTwin;
    has_twin_[page] = 1;
    return;
  }
  take_twin_slot(page);
  uint8_t *twin = twin_to_write(page, true);
  if (streaming)
    copy_to_twin(twin, copy, kPageBytes);
  else
    memcpy(twin, copy, kPageBytes);
  has_twin_[page] = 1;
}

uint8_t *Hlrc::twin_to_write(size_t page, bool whole) {
  const bool zero = twin_slot_[page] == kZeroTwin;
  if (zero) take_twin_slot(page);
  // The pool's or the arena's memory now, which is the twin's own.
  uint8_t *t = const_cast<uint8_t *>(twin(page));
  if (zero && !whole) memset(t, 0, kPageBytes);
  return t;
}

}  // namespace rdsm
