// Minipage views (memory/minipage_views.hpp): the address arithmetic, and
// under both backends that every view of an area page shows the same bytes
// while each has a protection of its own.
#include <gtest/gtest.h>

#include <csetjmp>
#include <csignal>
#include <sys/mman.h>
#include <unistd.h>

#include "memory/minipage_views.hpp"
#include "memory/region.hpp"

using namespace rdsm;

namespace {

TEST(MinipageViews, Arithmetic) {
  ViewLayout l;
  l.phys_pages = 100;
  l.area_pages = 10;
  l.views = 4;
  ASSERT_TRUE(l.on());
  EXPECT_EQ(l.area_first(), 90u);
  EXPECT_EQ(l.total_pages(), 140u);
  EXPECT_FALSE(l.is_minipage(99));
  EXPECT_TRUE(l.is_minipage(100));
  EXPECT_EQ(l.phys_of(42), 42u);       // a data page is itself
  EXPECT_EQ(l.phys_of(100), 90u);      // view 0, first area page
  EXPECT_EQ(l.phys_of(127), 97u);      // view 2, area page 7
  EXPECT_EQ(l.vpage(2, 97), 127u);
  EXPECT_EQ(l.vpage(3, 99), 139u);
  EXPECT_EQ(l.mapping_end(5), 100u);   // the application view ends at the data pages' end
  EXPECT_EQ(l.mapping_end(100), 110u);
  EXPECT_EQ(l.mapping_end(119), 120u);
  EXPECT_EQ(l.mapping_end(120), 130u);
  ViewLayout none;
  EXPECT_FALSE(none.on());
}

TEST(MinipageViews, OffUnlessAsked) {
  Options opt;
  EXPECT_FALSE(minipage_layout(opt, 1 << 20).on());
  opt.minipages = MinipageMode::on;
  opt.memory = "uffd";
  ViewLayout l = minipage_layout(opt, 1 << 20);
  EXPECT_TRUE(l.on());
  EXPECT_EQ(l.area_pages, kDefaultAreaPages);
  EXPECT_EQ(l.views, (size_t)kDefaultMinipageViews);
  // A small region gives at most a quarter of itself to the area.
  EXPECT_EQ(minipage_layout(opt, 400).area_pages, 100u);
}

sigjmp_buf g_jump;
void on_fault(int) { siglongjmp(g_jump, 1); }

// Whether the access completes without the backend's fault signal.
bool try_access(volatile uint8_t *p, bool write, int sig) {
  struct sigaction sa {}, old {};
  sa.sa_handler = on_fault;
  sigaction(sig, &sa, &old);
  bool ok = true;
  if (sigsetjmp(g_jump, 1) == 0) {
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

// A region of 64 data pages, the last 16 of them an area seen through 4 views.
struct ViewRegion {
  fabric::Segment seg;
  Options opt;
  ViewLayout layout;
  std::unique_ptr<SharedRegion> region;
  ViewRegion(const char *memory, uintptr_t base) {
    seg.bytes = 64 * kPageBytes;
    seg.fd = memfd_create("rdsm-test", 0);
    EXPECT_EQ(ftruncate(seg.fd, (off_t)seg.bytes), 0);
    seg.base = static_cast<uint8_t *>(mmap(nullptr, seg.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, seg.fd, 0));
    opt.region_bytes = seg.bytes;
    opt.region_base = base;
    opt.memory = memory;
    layout.phys_pages = 64;
    layout.area_pages = 16;
    layout.views = 4;
    region = std::make_unique<SharedRegion>(opt, seg, false, layout);
  }
  ~ViewRegion() {
    region.reset();
    munmap(seg.base, seg.bytes);
    close(seg.fd);
  }
};

void views_share_bytes_not_protections(const char *memory, uintptr_t base) {
  ViewRegion v(memory, base);
  SharedRegion &r = *v.region;
  const int sig = r.fault_signal();
  ASSERT_EQ(r.pages(), 64u + 4 * 16);
  ASSERT_EQ(r.heap_bytes(), 48 * kPageBytes);
  const size_t phys = 50, a = v.layout.vpage(1, phys), b = v.layout.vpage(3, phys);
  ASSERT_TRUE(r.contains(r.app_page(b) + kPageBytes - 1));
  EXPECT_EQ(r.page_of(r.app_page(b) + 100), b);
  // View 1 writable, view 3 inaccessible: the same bytes, two protections.
  r.protect(a, 1, Prot::read_write);
  r.protect(b, 1, Prot::none);
  r.app_page(a)[8] = 0x5a;
  EXPECT_EQ(r.sys_page(phys)[8], 0x5a);
  EXPECT_FALSE(try_access(r.app_page(b) + 8, false, sig));
  r.protect(b, 1, Prot::read);
  EXPECT_EQ(r.app_page(b)[8], 0x5a);
  EXPECT_FALSE(try_access(r.app_page(b) + 8, true, sig));
  EXPECT_TRUE(try_access(r.app_page(a) + 8, true, sig));
  // A range across the end of one view and the start of the next.
  const size_t last_of_view0 = v.layout.vpage(0, 63);
  r.protect(last_of_view0, 2, Prot::read_write);
  EXPECT_TRUE(try_access(r.app_page(last_of_view0), true, sig));
  EXPECT_TRUE(try_access(r.app_page(last_of_view0 + 1), true, sig));
  r.protect(last_of_view0, 2, Prot::none);
  EXPECT_FALSE(try_access(r.app_page(last_of_view0 + 1), false, sig));
}

TEST(MinipageViews, UffdViewsShareBytesNotProtections) {
  views_share_bytes_not_protections("uffd", 0x330000000000ull);
}

TEST(MinipageViews, MprotectViewsShareBytesNotProtections) {
  views_share_bytes_not_protections("mprotect", 0x340000000000ull);
}

}  // namespace
