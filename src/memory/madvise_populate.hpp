// MADV_POPULATE_READ / MADV_POPULATE_WRITE (Linux 5.14), for C libraries
// whose headers predate them.  A kernel without them refuses the call
// (EINVAL) and nothing is populated: every caller treats it as a hint.
#pragma once
#include <sys/mman.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
