// A shared region over a private memfd for unit tests, at a base address of
// the test's own (so that tests of different backends never collide).
#pragma once
#include <gtest/gtest.h>

#include <csetjmp>
#include <csignal>
#include <memory>
#include <sys/mman.h>
#include <unistd.h>

#include "memory/region.hpp"

namespace rdsm {

struct TestRegion {
  fabric::Segment seg;
  Options opt;
  std::unique_ptr<SharedRegion> region;
  TestRegion(size_t pages, const char *memory, uintptr_t base, bool scan = false, const ViewLayout &views = {}) {
    seg.bytes = pages * kPageBytes;
    seg.fd = memfd_create("rdsm-test", 0);
    EXPECT_EQ(ftruncate(seg.fd, (off_t)seg.bytes), 0);
    seg.base = static_cast<uint8_t *>(mmap(nullptr, seg.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, seg.fd, 0));
    opt.region_bytes = seg.bytes;
    opt.region_base = base;
    opt.memory = memory;
    region = std::make_unique<SharedRegion>(opt, seg, scan, views);
  }
  ~TestRegion() {
    region.reset();
    munmap(seg.base, seg.bytes);
    close(seg.fd);
  }
};

namespace test_access {
inline sigjmp_buf jump;
inline void on_fault(int) { siglongjmp(jump, 1); }
}  // namespace test_access

// Whether the access completes without the fault signal `sig` (the
// backend's: SIGSEGV under mprotect, SIGBUS under uffd).
inline bool try_access(volatile uint8_t *p, bool write, int sig) {
  struct sigaction sa {}, old {};
  sa.sa_handler = test_access::on_fault;
  sigaction(sig, &sa, &old);
  bool ok = true;
  if (sigsetjmp(test_access::jump, 1) == 0) {
    if (write)
      *p = *p;
    else
      (void)*p;
  } else {
    ok = false;
  }
  sigaction(sig, &old, nullptr);
  return ok;
}

}  // namespace rdsm
