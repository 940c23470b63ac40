// Tests of byte-masked diffs: the change mask of a page against its twin
// (protocol/diff.hpp), the masked copy and its runs (fabric/masked_copy.hpp)
// and the exclusive masked blend (fabric/masked_blend.hpp), against the
// obvious byte loop.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "fabric/masked_blend.hpp"
#include "fabric/masked_copy.hpp"
#include "protocol/diff.hpp"
#include "simd_isa_params.hpp"

namespace {

constexpr size_t kPage = 4096;
using Bytes = std::vector<uint8_t>;

// A page changed against its twin in a pattern of the kind diffs meet:
// `density` of the bytes changed, in runs of 1..max_run bytes.
void make_pair(std::mt19937_64 &rng, double density, size_t max_run, Bytes &twin, Bytes &page) {
  twin.resize(kPage);
  for (auto &b : twin) b = (uint8_t)rng();
  page = twin;
  std::uniform_real_distribution<double> u(0, 1);
  for (size_t i = 0; i < kPage;) {
    size_t len = 1 + rng() % max_run;
    if (u(rng) < density)
      for (size_t k = i; k < i + len && k < kPage; ++k) page[k] = (uint8_t)(twin[k] + 1 + rng() % 255);
    i += len + 1 + rng() % max_run;
  }
}

size_t reference_runs(const Bytes &twin, const Bytes &page) {
  size_t runs = 0;
  for (size_t i = 0; i < page.size(); ++i)
    if (page[i] != twin[i] && (i == 0 || page[i - 1] == twin[i - 1])) ++runs;
  return runs;
}

size_t reference_bytes(const Bytes &twin, const Bytes &page) {
  size_t bytes = 0;
  for (size_t i = 0; i < page.size(); ++i) bytes += page[i] != twin[i];
  return bytes;
}

// Every implementation this CPU has (common/simd_isa.hpp), and the one the
// runtime picks, answer alike.
class ChangeMask : public ::testing::TestWithParam<rdsm::SimdIsa> {
 protected:
  void SetUp() override {
    if (!rdsm::simd_isa_available(GetParam())) GTEST_SKIP() << "this CPU lacks the instructions";
  }
  size_t change_mask(const Bytes &twin, const Bytes &page, uint64_t *mask, size_t *bytes = nullptr) const {
    return rdsm::diff_change_mask_with(GetParam(), twin.data(), page.data(), kPage, mask, bytes);
  }
};

TEST_P(ChangeMask, MatchesBytesAndRuns) {
  std::mt19937_64 rng(7);
  std::vector<rdsm::DiffRun> runs(rdsm::diff_max_runs(kPage));
  for (int trial = 0; trial < 400; ++trial) {
    Bytes twin, page;
    make_pair(rng, trial % 5 * 0.25, 1 + trial % 70, twin, page);
    uint64_t mask[kPage / 64], best[kPage / 64];
    size_t bytes = 0;
    size_t count = change_mask(twin, page, mask, &bytes);
    for (size_t i = 0; i < kPage; ++i)
      ASSERT_EQ((mask[i / 64] >> (i % 64)) & 1, page[i] != twin[i] ? 1u : 0u) << "byte " << i << " trial " << trial;
    ASSERT_EQ(count, reference_runs(twin, page)) << "trial " << trial;
    ASSERT_EQ(bytes, reference_bytes(twin, page)) << "trial " << trial;
    ASSERT_EQ(count, rdsm::diff_find_runs(twin.data(), page.data(), kPage, runs.data()));
    ASSERT_EQ(count, rdsm::diff_change_mask(twin.data(), page.data(), kPage, best));
    ASSERT_EQ(0, memcmp(mask, best, sizeof mask));
  }
}

TEST_P(ChangeMask, EdgesOfChunks) {
  Bytes twin(kPage, 0), page(kPage, 0);
  // A run across a chunk boundary is one run; the last byte of the page alone is one.
  for (size_t i = 60; i < 70; ++i) page[i] = 1;
  page[kPage - 1] = 1;
  uint64_t mask[kPage / 64];
  size_t bytes = 0;
  EXPECT_EQ(change_mask(twin, page, mask, &bytes), 2u);
  EXPECT_EQ(bytes, 11u);
  // Runs that end and start at every chunk edge: bytes 63 and 64 alone are
  // one run, 127 and 129 two.
  page.assign(kPage, 0);
  page[63] = page[64] = page[127] = page[129] = 1;
  EXPECT_EQ(change_mask(twin, page, mask), 3u);
  page.assign(kPage, 1);  // everything changed: one run
  EXPECT_EQ(change_mask(twin, page, mask, &bytes), 1u);
  EXPECT_EQ(bytes, kPage);
  page.assign(kPage, 0);
  EXPECT_EQ(change_mask(twin, page, mask, &bytes), 0u);
  EXPECT_EQ(bytes, 0u);
}

INSTANTIATE_TEST_SUITE_P(EverySimdIsa, ChangeMask, rdsm::testing::all_simd_isas(), rdsm::testing::simd_isa_name);

// Writes page into a target made of twin and bytes of another writer
// (`write(target)`), and checks the result byte by byte: the masked bytes
// are the page's, the others what the target held.
template <class Write>
void check_masked_write(std::mt19937_64 &rng, const Bytes &twin, const Bytes &page, const uint64_t *mask, int trial,
                        Write write) {
  Bytes target = twin, expect = twin;
  for (size_t i = 0; i < kPage; ++i) {
    bool masked = (mask[i / 64] >> (i % 64)) & 1;
    if (!masked && rng() % 3 == 0) target[i] = expect[i] = (uint8_t)rng();
    if (masked) expect[i] = page[i];
  }
  write(target.data());
  ASSERT_EQ(target, expect) << "trial " << trial;
}

// 400 pages changed against their twins in patterns of every density and
// run length (make_pair), each with its change mask, given to `check`.
template <class Check>
void for_random_masks(std::mt19937_64 &rng, Check check) {
  for (int trial = 0; trial < 400; ++trial) {
    Bytes twin, page;
    make_pair(rng, trial % 5 * 0.25, 1 + trial % 70, twin, page);
    uint64_t mask[kPage / 64];
    rdsm::diff_change_mask(twin.data(), page.data(), kPage, mask);
    check(twin, page, mask, trial);
  }
}

// The masked copy writes exactly the masked bytes: the others keep what the
// target held, however the mask is shaped.  Every way this CPU has.
using rdsm::fabric::MaskedWay;

class MaskedCopy : public ::testing::TestWithParam<MaskedWay> {
 protected:
  void SetUp() override {
    if (!rdsm::fabric::masked_way_available(GetParam())) GTEST_SKIP() << "this CPU lacks the instructions";
  }
  void check(std::mt19937_64 &rng, const Bytes &twin, const Bytes &page, const uint64_t *mask, int trial) const {
    check_masked_write(rng, twin, page, mask, trial, [&](uint8_t *target) {
      rdsm::fabric::masked_copy_with(GetParam(), target, page.data(), mask, kPage);
    });
  }
};

TEST_P(MaskedCopy, WritesOnlyMaskedBytes) {
  std::mt19937_64 rng(11);
  for_random_masks(rng, [&](const Bytes &twin, const Bytes &page, const uint64_t *mask, int trial) {
    check(rng, twin, page, mask, trial);
  });
}

// The shapes a scatter leaves: isolated 4- and 8-byte words, some of them
// only partly changed (a key that kept some of its bytes), whole chunks.
TEST_P(MaskedCopy, ScatteredWords) {
  std::mt19937_64 rng(13);
  for (int trial = 0; trial < 200; ++trial) {
    Bytes twin(kPage), page;
    for (auto &b : twin) b = (uint8_t)rng();
    page = twin;
    size_t word = trial % 2 ? 8 : 4;
    for (size_t i = 0; i < kPage; i += word) {
      unsigned r = rng() % 8;
      if (r < 3) continue;  // unchanged word
      for (size_t k = 0; k < word; ++k)
        if (r > 3 || rng() % 2) page[i + k] = (uint8_t)(twin[i + k] + 1);  // r == 3: a partly changed word
    }
    uint64_t mask[kPage / 64];
    rdsm::diff_change_mask(twin.data(), page.data(), kPage, mask);
    check(rng, twin, page, mask, trial);
  }
}

INSTANTIATE_TEST_SUITE_P(EveryWay, MaskedCopy,
                         ::testing::Values(MaskedWay::avx512, MaskedWay::avx2, MaskedWay::streaming, MaskedWay::plain),
                         [](const ::testing::TestParamInfo<MaskedWay> &info) {
                           return std::string(rdsm::fabric::masked_way_name(info.param));
                         });

// The blend leaves every unmasked byte as the target held it and takes
// every masked one from the page: random masks of every density and run
// length, the radix shape (each 4-byte word partly changed), and the
// empty and full masks.  Every instruction set this CPU has.
class MaskedBlend : public ::testing::TestWithParam<rdsm::SimdIsa> {
 protected:
  void SetUp() override {
    if (!rdsm::simd_isa_available(GetParam())) GTEST_SKIP() << "this CPU lacks the instructions";
  }
  void check(std::mt19937_64 &rng, const Bytes &twin, const Bytes &page, const uint64_t *mask, int trial) const {
    check_masked_write(rng, twin, page, mask, trial, [&](uint8_t *target) {
      rdsm::fabric::masked_blend_with(GetParam(), target, page.data(), mask, kPage);
    });
  }
};

TEST_P(MaskedBlend, WritesMaskedBytesKeepsTheOthers) {
  std::mt19937_64 rng(19);
  for_random_masks(rng, [&](const Bytes &twin, const Bytes &page, const uint64_t *mask, int trial) {
    check(rng, twin, page, mask, trial);
  });
  Bytes twin(kPage), page(kPage);
  for (size_t i = 0; i < kPage; i += 4) {  // radix keys below 2^19: the high byte never changes
    uint32_t a = (uint32_t)(rng() % 524288), b = (uint32_t)(rng() % 524288);
    memcpy(&twin[i], &a, 4);
    memcpy(&page[i], &b, 4);
  }
  uint64_t mask[kPage / 64];
  rdsm::diff_change_mask(twin.data(), page.data(), kPage, mask);
  check(rng, twin, page, mask, -1);
  for (uint64_t all : {0ull, ~0ull}) {
    for (auto &m : mask) m = all;
    check(rng, twin, page, mask, all ? -3 : -2);
  }
}

INSTANTIATE_TEST_SUITE_P(EverySimdIsa, MaskedBlend, rdsm::testing::all_simd_isas(), rdsm::testing::simd_isa_name);

// A mask's runs as pieces of a gathering write, one piece a run.
TEST(MaskToPieces, OnePieceEachRun) {
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 400; ++trial) {
    Bytes twin, page;
    make_pair(rng, trial % 5 * 0.25, 1 + trial % 70, twin, page);
    uint64_t mask[kPage / 64];
    rdsm::diff_change_mask(twin.data(), page.data(), kPage, mask);
    std::vector<rdsm::fabric::Fabric::Piece> pieces;
    rdsm::fabric::mask_to_pieces(1000 * kPage, page.data(), mask, kPage, pieces);
    ASSERT_EQ(pieces.size(), reference_runs(twin, page));
    Bytes again = twin;
    for (const auto &p : pieces) {
      ASSERT_GE(p.off, 1000 * kPage);
      memcpy(again.data() + (p.off - 1000 * kPage), p.src, p.n);
    }
    for (size_t i = 0; i < kPage; ++i)
      ASSERT_EQ(again[i], ((mask[i / 64] >> (i % 64)) & 1) ? page[i] : twin[i]) << "byte " << i;
  }
}

}  // namespace
