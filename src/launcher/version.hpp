// The version reported by `rdsm --version` and in the statistics file.
#pragma once

#ifndef RDSM_VERSION_STRING
#define RDSM_VERSION_STRING "0.1"
#endif

namespace rdsm::launcher {
inline constexpr const char *kVersion = RDSM_VERSION_STRING;
}  // namespace rdsm::launcher
