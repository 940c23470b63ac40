// Tests of the run-length page diff (protocol/diff.hpp).
#include "protocol/diff.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <tuple>
#include <vector>

namespace {

using rdsm::diff_apply;
using rdsm::diff_encode;
using rdsm::diff_for_each_run;
using rdsm::diff_max_bytes;

constexpr size_t kPage = 4096;

using Bytes = std::vector<uint8_t>;

struct DiffRun {
  size_t off, len;
  Bytes data;
  bool operator==(const DiffRun &o) const { return off == o.off && len == o.len && data == o.data; }
};

// Runs computed the slow, obvious way: maximal stretches of changed bytes.
std::vector<DiffRun> reference_runs(const Bytes &twin, const Bytes &page) {
  std::vector<DiffRun> runs;
  size_t i = 0, n = page.size();
  while (i < n) {
    if (page[i] == twin[i]) {
      ++i;
      continue;
    }
    size_t s = i;
    while (i < n && page[i] != twin[i]) ++i;
    runs.push_back({s, i - s, Bytes(page.begin() + (long)s, page.begin() + (long)i)});
  }
  return runs;
}

std::vector<DiffRun> decoded_runs(const Bytes &diff, size_t len, size_t page_bytes) {
  std::vector<DiffRun> runs;
  bool ok = diff_for_each_run(diff.data(), len, page_bytes, [&](size_t off, const uint8_t *p, size_t n) {
    runs.push_back({off, n, Bytes(p, p + n)});
  });
  EXPECT_TRUE(ok);
  return runs;
}

// Encodes, checks the encoding against the reference and the size bound, and
// checks that applying it to a copy of the twin gives the page back.
// Returns the encoded length.
size_t round_trip(const Bytes &twin, const Bytes &page) {
  const size_t n = page.size();
  // Guard bytes after the bound catch an encoder writing past its capacity.
  Bytes out(diff_max_bytes(n) + 64, 0xA5);
  size_t len = diff_encode(twin.data(), page.data(), n, out.data());
  EXPECT_LE(len, diff_max_bytes(n));
  for (size_t k = diff_max_bytes(n); k < out.size(); ++k) EXPECT_EQ(out[k], 0xA5) << "overrun at " << k;

  auto expect = reference_runs(twin, page);
  auto got = decoded_runs(out, len, n);
  EXPECT_EQ(got.size(), expect.size());
  EXPECT_TRUE(got == expect);
  size_t expect_len = 0;
  for (auto &r : expect) expect_len += 4 + r.len;
  EXPECT_EQ(len, expect_len);

  Bytes copy = twin;
  EXPECT_TRUE(diff_apply(copy.data(), n, out.data(), len));
  EXPECT_TRUE(copy == page);
  return len;
}

Bytes random_page(std::mt19937_64 &rng, size_t n = kPage) {
  Bytes b(n);
  for (auto &x : b) x = (uint8_t)rng();
  return b;
}

TEST(Diff, UnchangedPageIsEmpty) {
  std::mt19937_64 rng(1);
  Bytes twin = random_page(rng), page = twin;
  Bytes out(diff_max_bytes(kPage));
  EXPECT_EQ(diff_encode(twin.data(), page.data(), kPage, out.data()), 0u);
  Bytes zeros(kPage, 0);
  EXPECT_EQ(diff_encode(zeros.data(), zeros.data(), kPage, out.data()), 0u);
  // Applying an empty diff is valid and changes nothing.
  EXPECT_TRUE(diff_apply(page.data(), kPage, out.data(), 0));
  EXPECT_TRUE(page == twin);
}

TEST(Diff, SingleByteAtEachEdge) {
  for (size_t pos : {size_t{0}, size_t{1}, size_t{7}, size_t{8}, size_t{31}, size_t{32}, size_t{2047},
                     size_t{4088}, size_t{4095}}) {
    Bytes twin(kPage, 0x11), page = twin;
    page[pos] = 0x22;
    EXPECT_EQ(round_trip(twin, page), 5u) << "pos " << pos;
    Bytes out(diff_max_bytes(kPage));
    ASSERT_EQ(diff_encode(twin.data(), page.data(), kPage, out.data()), 5u);
    EXPECT_EQ(out[0] | (out[1] << 8), (int)pos);
    EXPECT_EQ(out[2] | (out[3] << 8), 1);
    EXPECT_EQ(out[4], 0x22);
  }
}

TEST(Diff, WholePageIsOneRun) {
  Bytes twin(kPage, 0), page(kPage, 0xFF);
  EXPECT_EQ(round_trip(twin, page), 4u + kPage);
  Bytes out(diff_max_bytes(kPage));
  diff_encode(twin.data(), page.data(), kPage, out.data());
  EXPECT_EQ(out[0] | (out[1] << 8), 0);
  EXPECT_EQ(out[2] | (out[3] << 8), 4096);
}

TEST(Diff, AlternatingBytesIsWorstCase) {
  for (size_t phase : {0, 1}) {
    Bytes twin(kPage, 0), page = twin;
    for (size_t i = phase; i < kPage; i += 2) page[i] = 1;
    size_t len = round_trip(twin, page);
    EXPECT_EQ(len, (kPage / 2) * 5);
    EXPECT_LE(len, diff_max_bytes(kPage));
  }
}

TEST(Diff, RunsTouchingBothEdges) {
  Bytes twin(kPage, 0), page = twin;
  for (size_t i = 0; i < 13; ++i) page[i] = 9;             // starts at 0
  for (size_t i = kPage - 21; i < kPage; ++i) page[i] = 9;  // ends at 4096
  EXPECT_EQ(round_trip(twin, page), 4 + 13 + 4 + 21u);
  // Everything but one byte in the middle: two runs, each reaching an edge.
  Bytes all(kPage, 7);
  all[1234] = 0;
  EXPECT_EQ(round_trip(twin, all), 4 + 1234 + 4 + (kPage - 1235));
}

// Equal bytes inside otherwise changed words (and changed bytes inside
// otherwise equal words) are where a word-wise encoder could go wrong.
TEST(Diff, WordEdgePatterns) {
  for (unsigned mask = 1; mask < 256; ++mask) {
    Bytes twin(64, 0x5A), page = twin;
    for (size_t w = 0; w < 8; ++w)
      for (size_t b = 0; b < 8; ++b)
        if ((mask >> ((b + w) % 8)) & 1) page[w * 8 + b] ^= (uint8_t)(1 + b);
    round_trip(twin, page);
  }
}

// Pages whose size is not a multiple of the word size take the byte tail.
TEST(Diff, OddPageSizes) {
  std::mt19937_64 rng(7);
  for (size_t n : {size_t{1}, size_t{3}, size_t{9}, size_t{33}, size_t{100}, size_t{4095}}) {
    for (int t = 0; t < 20; ++t) {
      Bytes twin = random_page(rng, n), page = twin;
      for (size_t i = 0; i < n; ++i)
        if (rng() % 3 == 0) page[i] = (uint8_t)rng();
      round_trip(twin, page);
    }
  }
}

// The encoder loads words without assuming alignment.
TEST(Diff, UnalignedBuffers) {
  std::mt19937_64 rng(11);
  for (size_t shift_t = 0; shift_t < 4; ++shift_t)
    for (size_t shift_p = 0; shift_p < 4; ++shift_p) {
      Bytes tbuf(kPage + 8), pbuf(kPage + 8), out(diff_max_bytes(kPage) + 3);
      uint8_t *twin = tbuf.data() + shift_t, *page = pbuf.data() + shift_p;
      for (size_t i = 0; i < kPage; ++i) twin[i] = page[i] = (uint8_t)rng();
      for (int k = 0; k < 40; ++k) page[rng() % kPage] ^= (uint8_t)(1 + rng() % 255);
      size_t len = diff_encode(twin, page, kPage, out.data() + 3);
      Bytes copy(twin, twin + kPage);
      ASSERT_TRUE(diff_apply(copy.data(), kPage, out.data() + 3, len));
      EXPECT_EQ(std::memcmp(copy.data(), page, kPage), 0);
      Bytes t(twin, twin + kPage), p(page, page + kPage);
      EXPECT_EQ(decoded_runs(Bytes(out.begin() + 3, out.end()), len, kPage), reference_runs(t, p));
    }
}

// Runs longer than a u16 can say are split into adjacent runs.
TEST(Diff, LargestPageSplitsRuns) {
  const size_t n = 65536;
  Bytes twin(n, 0), page(n, 3);
  Bytes out(diff_max_bytes(n));
  size_t len = diff_encode(twin.data(), page.data(), n, out.data());
  EXPECT_EQ(len, 2 * 4 + n);
  Bytes copy = twin;
  EXPECT_TRUE(diff_apply(copy.data(), n, out.data(), len));
  EXPECT_TRUE(copy == page);
}

TEST(Diff, RandomRoundTrip) {
  std::mt19937_64 rng(12345);
  for (int t = 0; t < 1000; ++t) {
    Bytes twin = random_page(rng), page = twin;
    // Densities from a single byte to nearly every byte, and clustered
    // stretches, so short and long runs are both covered.
    int kind = (int)(rng() % 4);
    if (kind == 0) {
      size_t k = 1 + rng() % 16;
      for (size_t j = 0; j < k; ++j) page[rng() % kPage] = (uint8_t)rng();
    } else if (kind == 1) {
      unsigned per_mille = (unsigned)(rng() % 1001);
      for (size_t i = 0; i < kPage; ++i)
        if (rng() % 1000 < per_mille) page[i] = (uint8_t)rng();
    } else if (kind == 2) {
      size_t k = 1 + rng() % 8;
      for (size_t j = 0; j < k; ++j) {
        size_t s = rng() % kPage, l = 1 + rng() % 600;
        for (size_t i = s; i < s + l && i < kPage; ++i) page[i] = (uint8_t)rng();
      }
    } else {
      page = random_page(rng);
    }
    // A "write" of the same value is not a change; the encoder must agree.
    round_trip(twin, page);
    if (::testing::Test::HasFailure()) {
      ADD_FAILURE() << "first failure at iteration " << t;
      return;
    }
  }
}

// Two nodes write different bytes of the same 8-byte word in one interval:
// both diffs applied at the home must keep both writes.
TEST(Diff, DisjointWritersOfOneWord) {
  std::mt19937_64 rng(99);
  for (int t = 0; t < 200; ++t) {
    Bytes twin = random_page(rng);
    Bytes a = twin, b = twin, expect = twin;
    size_t word = (rng() % (kPage / 8)) * 8;
    for (size_t k = 0; k < 8; ++k) {
      uint8_t v = (uint8_t)(twin[word + k] + 1 + rng() % 255);  // always differs
      if (k % 2 == (size_t)(t % 2)) a[word + k] = v; else b[word + k] = v;
      expect[word + k] = v;
    }
    Bytes da(diff_max_bytes(kPage)), db(diff_max_bytes(kPage));
    size_t la = diff_encode(twin.data(), a.data(), kPage, da.data());
    size_t lb = diff_encode(twin.data(), b.data(), kPage, db.data());
    Bytes home = twin;
    ASSERT_TRUE(diff_apply(home.data(), kPage, da.data(), la));
    ASSERT_TRUE(diff_apply(home.data(), kPage, db.data(), lb));
    EXPECT_TRUE(home == expect);
    // Order of arrival must not matter.
    Bytes home2 = twin;
    ASSERT_TRUE(diff_apply(home2.data(), kPage, db.data(), lb));
    ASSERT_TRUE(diff_apply(home2.data(), kPage, da.data(), la));
    EXPECT_TRUE(home2 == expect);
  }
}

Bytes make_diff(const std::vector<std::tuple<unsigned, unsigned, size_t>> &runs) {
  // (offset, length field, data bytes actually present)
  Bytes d;
  for (auto [off, n, have] : runs) {
    d.push_back((uint8_t)off);
    d.push_back((uint8_t)(off >> 8));
    d.push_back((uint8_t)n);
    d.push_back((uint8_t)(n >> 8));
    for (size_t i = 0; i < have; ++i) d.push_back(0xEE);
  }
  return d;
}

TEST(Diff, MalformedIsRejectedWithoutWriting) {
  struct Case {
    const char *what;
    Bytes diff;
  };
  Bytes good = make_diff({{10, 4, 4}});
  std::vector<Case> cases = {
      {"truncated header", Bytes(good.begin(), good.begin() + 3)},
      {"truncated header after a good run", [&] {
         Bytes d = good;
         d.push_back(0);
         d.push_back(1);
         return d;
       }()},
      {"zero length", make_diff({{0, 4, 4}, {100, 0, 0}})},
      {"truncated data", Bytes(good.begin(), good.end() - 1)},
      {"run past page end", make_diff({{4, 2, 2}, {4090, 7, 7}})},
      {"offset past page end", make_diff({{4096, 1, 1}})},
      {"decreasing offsets", make_diff({{100, 2, 2}, {50, 2, 2}})},
      {"overlapping runs", make_diff({{100, 10, 10}, {105, 2, 2}})},
      {"same offset twice", make_diff({{100, 1, 1}, {100, 1, 1}})},
  };
  std::mt19937_64 rng(5);
  for (auto &c : cases) {
    Bytes page = random_page(rng), before = page;
    EXPECT_FALSE(diff_apply(page.data(), kPage, c.diff.data(), c.diff.size())) << c.what;
    EXPECT_TRUE(page == before) << c.what << " modified the page";
  }
  // Malformed for diff_for_each_run too (it does not check order).
  for (size_t k = 0; k < 6; ++k) {
    auto &c = cases[k];
    EXPECT_FALSE(diff_for_each_run(c.diff.data(), c.diff.size(), kPage, [](size_t, const uint8_t *, size_t) {}))
        << c.what;
  }
  // Adjacent runs (a split long run) and a run ending exactly at the page end
  // are fine.
  Bytes ok = make_diff({{0, 3, 3}, {3, 2, 2}, {4095, 1, 1}});
  Bytes page(kPage, 0);
  EXPECT_TRUE(diff_apply(page.data(), kPage, ok.data(), ok.size()));
  EXPECT_EQ(page[0], 0xEE);
  EXPECT_EQ(page[4], 0xEE);
  EXPECT_EQ(page[5], 0);
  EXPECT_EQ(page[4095], 0xEE);
}

TEST(Diff, ForEachRunYieldsEncodedRuns) {
  Bytes twin(kPage, 0), page = twin;
  std::vector<DiffRun> expect = {{0, 3, {}}, {8, 8, {}}, {100, 1, {}}, {4000, 96, {}}};
  uint8_t v = 1;
  for (auto &r : expect) {
    for (size_t i = r.off; i < r.off + r.len; ++i) page[i] = v++;
    r.data.assign(page.begin() + (long)r.off, page.begin() + (long)(r.off + r.len));
  }
  Bytes out(diff_max_bytes(kPage));
  size_t len = diff_encode(twin.data(), page.data(), kPage, out.data());
  EXPECT_TRUE(decoded_runs(out, len, kPage) == expect);
}

// Not a pass/fail test: prints the encoder's cost next to a plain
// memcmp + memcpy of a page, the baseline any diff is compared with.
TEST(Diff, Timing) {
  using clk = std::chrono::steady_clock;
  std::mt19937_64 rng(3);
  Bytes twin = random_page(rng), twin2 = twin, full = twin, one = twin, copy(kPage);
  for (auto &x : full) x = (uint8_t)~x;
  one[2000] ^= 1;
  Bytes out(diff_max_bytes(kPage));
  const int reps = 20000;
  volatile size_t sink = 0;
  auto time_ns = [&](auto &&fn) {
    for (int r = 0; r < 200; ++r) fn();  // warm up
    double best = 1e30;
    for (int trial = 0; trial < 5; ++trial) {
      auto t0 = clk::now();
      for (int r = 0; r < reps; ++r) fn();
      double ns = std::chrono::duration<double, std::nano>(clk::now() - t0).count() / reps;
      if (ns < best) best = ns;
    }
    return best;
  };
  double t_full = time_ns([&] { sink = sink + diff_encode(twin.data(), full.data(), kPage, out.data()); });
  double t_one = time_ns([&] { sink = sink + diff_encode(twin.data(), one.data(), kPage, out.data()); });
  double t_same = time_ns([&] { sink = sink + diff_encode(twin.data(), twin.data(), kPage, out.data()); });
  double t_base = time_ns([&] {
    // Equal buffers, so memcmp reads all 4 KiB.
    sink = sink + (size_t)(std::memcmp(twin.data(), twin2.data(), kPage) != 0);
    std::memcpy(copy.data(), twin2.data(), kPage);
    // Keep the copy observable so it is not optimised away.
    sink = sink + copy[(size_t)sink % kPage];
  });
  size_t len = diff_encode(twin.data(), full.data(), kPage, out.data());
  double t_apply = time_ns([&] { sink = sink + diff_apply(copy.data(), kPage, out.data(), len); });
  std::printf("[diff timing] encode 4 KiB page: fully changed %.0f ns, 1 byte changed %.0f ns, "
              "unchanged %.0f ns; apply full diff %.0f ns; memcmp+memcpy 4 KiB %.0f ns\n",
              t_full, t_one, t_same, t_apply, t_base);
  (void)sink;
}

}  // namespace
