#include "common/simd_isa.hpp"

#include <atomic>

namespace rdsm {

namespace {
// Found by whichever thread asks first (every thread finds the same).  An
// atomic rather than a function-local static: no initialiser guard, as
// this also runs in the fault path.
std::atomic<int> best{-1};
}  // namespace

bool simd_isa_available(SimdIsa isa) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (isa == SimdIsa::avx512) return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  if (isa == SimdIsa::avx2) return __builtin_cpu_supports("avx2");
#endif
  return isa == SimdIsa::plain;
}

SimdIsa best_simd_isa() {
  int i = best.load(std::memory_order_relaxed);
  if (i < 0) {
    i = (int)(simd_isa_available(SimdIsa::avx512) ? SimdIsa::avx512
              : simd_isa_available(SimdIsa::avx2) ? SimdIsa::avx2
                                                   : SimdIsa::plain);
    best.store(i, std::memory_order_relaxed);
  }
  return (SimdIsa)i;
}

}  // namespace rdsm
