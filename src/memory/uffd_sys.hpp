// The userfaultfd interface as rdsm uses it.  The C library's kernel headers
// may be older than the kernel that runs the program, so what newer kernels
// added is declared here and support is detected at run time from the
// feature bits UFFDIO_API reports and from a probe (uffd_unavailable_reason).
#pragma once
#include <cstddef>
#include <cstdint>
#include <linux/userfaultfd.h>
#include <string>
#include <sys/ioctl.h>

#ifndef UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED (1 << 13)
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1 << 15)
#endif
#ifndef UFFDIO_CONTINUE_MODE_WP
#define UFFDIO_CONTINUE_MODE_WP ((__u64)1 << 1)
#endif
#ifndef USERFAULTFD_IOC_NEW
#define USERFAULTFD_IOC_NEW _IO(0xAA, 0x00)
#endif

namespace rdsm::uffd {

// Faults are delivered as SIGBUS to the faulting thread (no reader thread
// needed), read misses are minor faults on the shared file, and writes are
// detected by write protection of the file's pages.
constexpr uint64_t kFeatures = UFFD_FEATURE_SIGBUS | UFFD_FEATURE_MINOR_SHMEM | UFFD_FEATURE_WP_HUGETLBFS_SHMEM;
constexpr uint64_t kModes = UFFDIO_REGISTER_MODE_MISSING | UFFDIO_REGISTER_MODE_MINOR | UFFDIO_REGISTER_MODE_WP;

// Opens a userfaultfd and enables `features`.  Returns the descriptor, or -1
// with a sentence naming the cause in *why (permission, missing feature).
int open_fd(uint64_t features, std::string *why);

// Registers [addr, addr+bytes) for kModes; false with errno on failure.
bool register_range(int fd, void *addr, size_t bytes);
bool unregister_range(int fd, void *addr, size_t bytes);

// Empty when the backend can run here; otherwise why not, as a sentence.
// Probes once (a page of a memfd mapped twice, registered, mapped read-only
// with UFFDIO_CONTINUE_MODE_WP) and remembers the answer.
const std::string &unavailable_reason();

}  // namespace rdsm::uffd
