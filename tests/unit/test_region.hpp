// A shared region over a private memfd for unit tests, at a base address of
// the test's own (so that tests of different backends never collide).
#pragma once
#include <gtest/gtest.h>

#include <memory>
#include <sys/mman.h>
#include <unistd.h>

#include "memory/region.hpp"

namespace rdsm {

struct TestRegion {
  fabric::Segment seg;
  Options opt;
  std::unique_ptr<SharedRegion> region;
  TestRegion(size_t pages, const char *memory, uintptr_t base, bool scan = false) {
    seg.bytes = pages * kPageBytes;
    seg.fd = memfd_create("rdsm-test", 0);
    EXPECT_EQ(ftruncate(seg.fd, (off_t)seg.bytes), 0);
    seg.base = static_cast<uint8_t *>(mmap(nullptr, seg.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, seg.fd, 0));
    opt.region_bytes = seg.bytes;
    opt.region_base = base;
    opt.memory = memory;
    region = std::make_unique<SharedRegion>(opt, seg, scan);
  }
  ~TestRegion() {
    region.reset();
    munmap(seg.base, seg.bytes);
    close(seg.fd);
  }
};

}  // namespace rdsm
