// Parameters for tests run once per vector instruction set
// (common/simd_isa.hpp): every SimdIsa, named in the test's name; a test
// skips the ones this CPU lacks.
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "common/simd_isa.hpp"

namespace rdsm::testing {

inline auto all_simd_isas() {
  return ::testing::Values(SimdIsa::avx512, SimdIsa::avx2, SimdIsa::plain);
}

inline std::string simd_isa_name(const ::testing::TestParamInfo<SimdIsa> &info) {
  switch (info.param) {
    case SimdIsa::avx512: return "avx512";
    case SimdIsa::avx2: return "avx2";
    default: return "plain";
  }
}

}  // namespace rdsm::testing
