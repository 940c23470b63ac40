#include "fabric/mapped_ops.hpp"

#include <cstring>
#include <unistd.h>

#include "common/error.hpp"

namespace rdsm::fabric::mapped {

void putv(uint8_t *base, size_t bytes, SegmentId seg, NodeId dst, const Fabric::Piece *pieces, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    const Fabric::Piece &p = pieces[i];
    if (p.off > bytes || p.n > bytes - p.off)
      fatal("fabric putv: bytes [%llu, %llu) are outside segment %u of %zu bytes (node %d)",
            (unsigned long long)p.off, (unsigned long long)(p.off + p.n), seg, bytes, dst);
    if (p.n) memcpy(base + p.off, p.src, p.n);
  }
}

// A first store to a page of a memory file costs a page fault and the
// zeroing of the new page; pwrite into the file allocates it and copies
// the bytes in without either.  On pages already there a memcpy is cheaper,
// hence the caller's hint.  pwrite is async-signal-safe, as the fault path
// needs.
void get_fresh(const uint8_t *src, const Segment &into, uint64_t into_off, size_t n) {
  if (into.fd < 0 || into_off > into.bytes || n > into.bytes - into_off) {
    memcpy(into.base + into_off, src, n);
    return;
  }
  size_t done = 0;
  while (done < n) {
    ssize_t w = pwrite(into.fd, src + done, n - done, (off_t)(into.fd_offset + into_off + done));
    if (w <= 0) {  // the file refuses (no memory: let the store fault say so)
      memcpy(into.base + into_off + done, src + done, n - done);
      return;
    }
    done += (size_t)w;
  }
}

}  // namespace rdsm::fabric::mapped
