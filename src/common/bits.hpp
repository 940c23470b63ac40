// Bit strings of 64-bit words: bit i of the string is bit i % 64 of word
// i / 64.  Counting set bits, and walking the maximal runs of set bits (the
// changed bytes of a page are such a string: diffs, byte-masked writes).
#pragma once
#include <cstddef>
#include <cstdint>

namespace rdsm {

// Without a library call: the default x86-64 target has no popcnt
// instruction, and __builtin_popcountll then calls into libgcc, which shows
// on the diff path (a count per 64 bytes of every diffed page).
inline unsigned count_bits(uint64_t x) {
#if defined(__POPCNT__)
  return (unsigned)__builtin_popcountll(x);
#else
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return (unsigned)((x * 0x0101010101010101ull) >> 56);
#endif
}

// Fed a bit string one word at a time, reports each maximal run of set bits
// as f(start, length) once it ends; a word wholly inside or wholly outside
// a run costs one comparison.  The edges are found with count-trailing-zeros,
// a few instructions per run.
class BitRunWalker {
 public:
  // `word` holds bits [base, base + 64).
  template <class F>
  void word(size_t base, uint64_t word, F &&f) {
    if (open_ ? word == ~0ull : word == 0) return;  // no edge in this word
    for (unsigned from = 0;;) {
      // The next bit where the state flips: a set bit while outside a run,
      // a clear one inside.
      uint64_t flips = (open_ ? ~word : word) & (~0ull << from);
      if (!flips) return;
      unsigned b = (unsigned)__builtin_ctzll(flips);
      if (open_)
        f(start_, base + b - start_);
      else
        start_ = base + b;
      open_ = !open_;
      if (b == 63) return;
      from = b + 1;
    }
  }
  // The string ends at bit `total`: a run still open ends there.
  template <class F>
  void end(size_t total, F &&f) {
    if (open_) f(start_, total - start_);
    open_ = false;
  }

 private:
  size_t start_ = 0;
  bool open_ = false;
};

// Calls f(start, length) for each maximal run of set bits of the `words`
// words at `bits`, in order.
template <class F>
void for_each_bit_run(const uint64_t *bits, size_t words, F &&f) {
  BitRunWalker w;
  for (size_t i = 0; i < words; ++i) w.word(i * 64, bits[i], f);
  w.end(words * 64, f);
}

}  // namespace rdsm
