// Tests of the single-read page comparison (protocol/page_compare.hpp):
// every implementation this CPU has, against memcmp, on every byte position
// of a page, on sizes that are not whole pages, and on random pages.
#include "protocol/page_compare.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "simd_isa_params.hpp"

namespace {

using rdsm::SimdIsa;

class PageCompare : public ::testing::TestWithParam<SimdIsa> {
 protected:
  void SetUp() override {
    if (!rdsm::simd_isa_available(GetParam())) GTEST_SKIP() << "this CPU lacks the instructions";
  }
  bool differ(const std::vector<uint8_t> &a, const std::vector<uint8_t> &b, size_t n) const {
    return rdsm::pages_differ_with(GetParam(), a.data(), b.data(), n);
  }
};

TEST_P(PageCompare, EqualPagesAreEqual) {
  std::vector<uint8_t> a(4096, 0x5a), b(4096, 0x5a);
  EXPECT_FALSE(differ(a, b, 4096));
  EXPECT_FALSE(rdsm::pages_differ(a.data(), b.data(), 4096));
}

TEST_P(PageCompare, EveryByteAndBitCounts) {
  std::vector<uint8_t> a(4096, 0), b(4096, 0);
  for (size_t i = 0; i < 4096; ++i) {
    for (int bit : {0, 7}) {
      b[i] = (uint8_t)(1u << bit);
      ASSERT_TRUE(differ(a, b, 4096)) << "byte " << i << " bit " << bit;
      ASSERT_TRUE(rdsm::pages_differ(a.data(), b.data(), 4096));
    }
    b[i] = 0;
  }
}

TEST_P(PageCompare, SizesThatAreNotWholePages) {
  for (size_t n : {1, 7, 63, 64, 65, 255, 256, 300, 1000}) {
    std::vector<uint8_t> a(n, 3), b(n, 3);
    ASSERT_FALSE(differ(a, b, n)) << n;
    b[n - 1] = 4;
    ASSERT_TRUE(differ(a, b, n)) << n;
    b[n - 1] = 3;
    b[0] = 4;
    ASSERT_TRUE(differ(a, b, n)) << n;
  }
}

TEST_P(PageCompare, AgreesWithMemcmpOnRandomPages) {
  std::mt19937 rng(7);
  std::vector<uint8_t> a(8192), b(8192);
  for (int trial = 0; trial < 2000; ++trial) {
    for (auto &x : a) x = (uint8_t)rng();
    b = a;
    int changes = (int)(rng() % 3);
    for (int c = 0; c < changes; ++c) b[rng() % b.size()] ^= (uint8_t)(1 + rng() % 255);
    // Unaligned starts too: twins are page-aligned, but nothing here needs it.
    size_t off = rng() % 64, n = 4096;
    ASSERT_EQ(rdsm::pages_differ_with(GetParam(), a.data() + off, b.data() + off, n),
              memcmp(a.data() + off, b.data() + off, n) != 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Isa, PageCompare, rdsm::testing::all_simd_isas(), rdsm::testing::simd_isa_name);

}  // namespace
