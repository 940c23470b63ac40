// Bit counting without a library call: the default x86-64 target has no
// popcnt instruction, and __builtin_popcountll then calls into libgcc, which
// shows on the diff path (a count per 64 bytes of every diffed page).
#pragma once
#include <cstdint>

namespace rdsm {

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

}  // namespace rdsm
