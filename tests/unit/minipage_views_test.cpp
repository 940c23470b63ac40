// Minipage views (memory/minipage_views.hpp): the address arithmetic, and
// under both backends that every view of an area page shows the same bytes
// while each has a protection of its own.
#include <gtest/gtest.h>

#include "memory/minipage_views.hpp"
#include "test_region.hpp"

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

// A region of 64 data pages, the last 16 of them an area seen through 4 views.
ViewLayout four_views() {
  ViewLayout l;
  l.phys_pages = 64;
  l.area_pages = 16;
  l.views = 4;
  return l;
}

void views_share_bytes_not_protections(const char *memory, uintptr_t base) {
  const ViewLayout layout = four_views();
  TestRegion v(64, memory, base, false, layout);
  SharedRegion &r = *v.region;
  const int sig = r.fault_signal();
  ASSERT_EQ(r.pages(), 64u + 4 * 16);
  ASSERT_EQ(r.heap_bytes(), 48 * kPageBytes);
  const size_t phys = 50, a = layout.vpage(1, phys), b = layout.vpage(3, phys);
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
  const size_t last_of_view0 = layout.vpage(0, 63);
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
