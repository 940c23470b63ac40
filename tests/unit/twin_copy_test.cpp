// Tests of the streamed twin copy (protocol/twin_copy.hpp): every
// implementation this CPU has copies exactly, whole pages and other
// multiples of 256 bytes, into aligned twins; a size or a destination the
// streams cannot take is copied all the same.
#include "protocol/twin_copy.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "simd_isa_params.hpp"

namespace {

using rdsm::SimdIsa;

struct Aligned {
  explicit Aligned(size_t n) : p(static_cast<uint8_t *>(std::aligned_alloc(4096, n))), n(n) { memset(p, 0, n); }
  ~Aligned() { std::free(p); }
  uint8_t *p;
  size_t n;
};

std::vector<uint8_t> random_bytes(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto &b : v) b = (uint8_t)rng();
  return v;
}

class TwinCopy : public ::testing::TestWithParam<SimdIsa> {
 protected:
  void SetUp() override {
    if (!rdsm::simd_isa_available(GetParam())) GTEST_SKIP() << "this CPU lacks the instructions";
  }
};

TEST_P(TwinCopy, CopiesWholePagesExactly) {
  Aligned twin(4 * 4096);
  auto src = random_bytes(4 * 4096, 1);
  rdsm::copy_to_twin_with(GetParam(), twin.p, src.data(), src.size());
  EXPECT_EQ(0, memcmp(twin.p, src.data(), src.size()));
}

TEST_P(TwinCopy, CopiesOtherSizesAndUnalignedTwins) {
  for (size_t n : {256u, 512u, 1000u, 4095u}) {
    for (size_t shift : {0u, 8u, 64u}) {
      Aligned twin(8192);
      memset(twin.p, 0xee, twin.n);
      auto src = random_bytes(n, (unsigned)(n + shift));
      rdsm::copy_to_twin_with(GetParam(), twin.p + shift, src.data(), n);
      ASSERT_EQ(0, memcmp(twin.p + shift, src.data(), n)) << n << " bytes at offset " << shift;
      for (size_t i = 0; i < shift; ++i) ASSERT_EQ(0xee, twin.p[i]) << "byte before the copy";
      for (size_t i = shift + n; i < twin.n; ++i) ASSERT_EQ(0xee, twin.p[i]) << "byte after the copy";
    }
  }
}

TEST(TwinCopyChoice, TheChosenWayCopies) {
  Aligned twin(4096);
  auto src = random_bytes(4096, 7);
  rdsm::copy_to_twin(twin.p, src.data(), 4096);
  EXPECT_EQ(0, memcmp(twin.p, src.data(), 4096));
}

INSTANTIATE_TEST_SUITE_P(Isa, TwinCopy, rdsm::testing::all_simd_isas(), rdsm::testing::simd_isa_name);

}  // namespace
