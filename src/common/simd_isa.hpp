// The vector instructions a page-sized loop may use, chosen once at run
// time (the runtime is built for any x86-64, and runs where AVX-512 or AVX2
// may be missing).  Each such loop has one version per SimdIsa; tests run
// every version this CPU has.
#pragma once
#include <cstdint>

namespace rdsm {

// avx512 stands for AVX-512 F and BW (byte compares into masks).
enum class SimdIsa : uint8_t { avx512, avx2, plain };

// Whether this CPU has the instructions (plain: always).
bool simd_isa_available(SimdIsa isa);
// The widest available, found once; safe in a signal handler and from any
// thread (no initialiser guard).
SimdIsa best_simd_isa();

}  // namespace rdsm
