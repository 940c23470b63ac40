// Whether this file is compiled under AddressSanitizer: RDSM_UNDER_ASAN
// (GCC says so with __SANITIZE_ADDRESS__, Clang with __has_feature).
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define RDSM_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RDSM_UNDER_ASAN 1
#endif
#endif
