// micro_masked: what a diff's byte-masked write of one page costs, per way
// of writing it this CPU has, for the shapes diffs have.
//
//   micro_masked [--pages P] [--rounds R] [--json FILE]
//
// A page several nodes write (a radix sort's buckets, a row split between
// two nodes) goes home as one byte-masked write (pieces=masked): exactly
// the changed bytes, so that another writer's bytes of the page survive.
// AVX-512 has a byte-masked store; AVX2 only a 4-byte-masked one, so a word
// of which only some bytes changed (a radix key keeps its zero high byte)
// takes its bytes one by one, or a 16-byte byte-masked streaming store
// (MASKMOVDQU, SSE2), which bypasses the cache.  Which is faster depends on
// the CPU (fabric/masked_copy.hpp: best_masked_way).  A writer that holds
// the page alone may blend instead (fabric/masked_blend.hpp): the last
// column.
// This program measures every way on P pages (default 4096, more than the
// caches hold: a diff's home page is seldom cached at the writer), each
// shape in turn, the median over R rounds (default 15) of the microseconds
// per page; it also checks every way wrote exactly the masked bytes.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/backend_views.hpp"
#include "common/clock.hpp"
#include "fabric/masked_blend.hpp"
#include "fabric/masked_copy.hpp"
#include "protocol/diff.hpp"

using namespace rdsm;

namespace {

constexpr size_t kPage = 4096;

using fabric::MaskedWay;
constexpr MaskedWay kWays[] = {MaskedWay::avx512, MaskedWay::avx2, MaskedWay::streaming, MaskedWay::plain};

// The new content of a page against its twin, by shape.
struct Shape {
  const char *name;
  void (*make)(std::mt19937 &rng, uint8_t *twin, uint8_t *page);
};
void radix_keys(std::mt19937 &rng, uint8_t *twin, uint8_t *page) {
  for (size_t i = 0; i < kPage; i += 4) {  // keys below 2^19, old and new
    uint32_t a = rng() % 524288, b = rng() % 524288;
    memcpy(twin + i, &a, 4);
    memcpy(page + i, &b, 4);
  }
}
void half_doubles(std::mt19937 &rng, uint8_t *twin, uint8_t *page) {
  for (size_t i = 0; i < kPage; i += 8) {  // every other double rewritten whole
    double a = rng() / 7.0, b = (i / 8) % 2 ? a : a + 1e6;
    memcpy(twin + i, &a, 8);
    memcpy(page + i, &b, 8);
  }
}
void half_row(std::mt19937 &rng, uint8_t *twin, uint8_t *page) {
  for (size_t i = 0; i < kPage; ++i) twin[i] = page[i] = (uint8_t)rng();
  for (size_t i = kPage / 2; i < kPage; ++i) page[i] = (uint8_t)(twin[i] + 1);  // the page's second half
}
constexpr Shape kShapes[] = {{"radix keys (every word partly changed)", radix_keys},
                             {"every other double", half_doubles},
                             {"second half of the page", half_row}};

}  // namespace

int main(int argc, char **argv) {
  backend_bench::Args a = backend_bench::parse("micro_masked", argc, argv);
  const size_t n = a.pages;
  std::vector<uint8_t> twin(n * kPage), page(n * kPage), base(n * kPage), target(n * kPage), expect(n * kPage);
  std::vector<uint64_t> mask(n * kPage / 64);
  printf("byte-masked write of a page (micro_masked, %zu pages, median of %d rounds): us per page\n", n, a.rounds);
  printf("  %-40s", "shape");
  for (MaskedWay w : kWays) printf(" %10s", fabric::masked_way_name(w));
  printf(" %10s\n", "alone");
  std::string json = "{\"pages\": " + std::to_string(n) + ", \"rounds\": " + std::to_string(a.rounds) +
                     ", \"runtime_way\": \"" + fabric::masked_way_name(fabric::best_masked_way()) + "\", \"rows\": [";
  bool wrong = false;
  std::mt19937 rng(7);
  for (size_t s = 0; s < sizeof kShapes / sizeof kShapes[0]; ++s) {
    const Shape &shape = kShapes[s];
    for (size_t p = 0; p < n; ++p) {
      shape.make(rng, &twin[p * kPage], &page[p * kPage]);
      diff_change_mask(&twin[p * kPage], &page[p * kPage], kPage, &mask[p * kPage / 64]);
    }
    // The target holds the twin, and another writer's bytes where nothing changed here.
    for (size_t i = 0; i < n * kPage; ++i) {
      base[i] = (uint8_t)(twin[i] ^ (i % 3 == 0 ? 0x5a : 0));
      expect[i] = (mask[i / 64] >> (i % 64)) & 1 ? page[i] : base[i];
    }
    printf("  %-40s", shape.name);
    json += std::string(s ? ", " : "") + "{\"shape\": \"" + shape.name + "\", \"us_per_page\": {";
    bool first = true;
    for (MaskedWay w : kWays) {
      if (!fabric::masked_way_available(w)) {
        printf(" %10s", "-");
        continue;
      }
      std::vector<double> times;
      for (int r = 0; r < a.rounds; ++r) {
        memcpy(target.data(), base.data(), n * kPage);
        uint64_t t0 = now_ns();
        for (size_t p = 0; p < n; ++p)
          fabric::masked_copy_with(w, &target[p * kPage], &page[p * kPage], &mask[p * kPage / 64], kPage);
        times.push_back((double)(now_ns() - t0) / 1e3 / (double)n);
        if (target != expect) wrong = true;
      }
      std::sort(times.begin(), times.end());
      double med = times[times.size() / 2];
      printf(" %10.2f", med);
      char cell[64];
      snprintf(cell, sizeof cell, "%s\"%s\": %.4f", first ? "" : ", ", fabric::masked_way_name(w), med);
      json += cell;
      first = false;
    }
    // The blend of a writer that holds the page alone (put_masked_alone).
    std::vector<double> times;
    for (int r = 0; r < a.rounds; ++r) {
      memcpy(target.data(), base.data(), n * kPage);
      uint64_t t0 = now_ns();
      for (size_t p = 0; p < n; ++p)
        fabric::masked_blend(&target[p * kPage], &page[p * kPage], &mask[p * kPage / 64], kPage);
      times.push_back((double)(now_ns() - t0) / 1e3 / (double)n);
      if (target != expect) wrong = true;
    }
    std::sort(times.begin(), times.end());
    printf(" %10.2f\n", times[times.size() / 2]);
    char cell[64];
    snprintf(cell, sizeof cell, "%s\"alone\": %.4f", first ? "" : ", ", times[times.size() / 2]);
    json += cell;
    json += "}}";
  }
  json += "]}\n";
  printf("  ('-': this CPU lacks the instructions; the runtime takes the %s way; 'alone': the blend of a\n"
         "   writer that holds the page alone, each 32 bytes read and written whole)\n",
         fabric::masked_way_name(fabric::best_masked_way()));
  if (wrong) {
    printf("FAIL micro_masked: a way wrote bytes outside the mask or missed some inside it\n");
    return 1;
  }
  printf("PASS micro_masked: every way wrote exactly the masked bytes\n");
  if (a.json) {
    FILE *f = fopen(a.json, "w");
    if (!f) {
      fprintf(stderr, "micro_masked: cannot write %s: %s\n", a.json, strerror(errno));
      return 1;
    }
    fputs(json.c_str(), f);
    fclose(f);
  }
  return 0;
}
