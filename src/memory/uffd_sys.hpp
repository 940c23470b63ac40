// The userfaultfd interface as rdsm uses it.  The C library's kernel headers
// may be older than the kernel that runs the program, so what newer kernels
// added is declared here and support is detected at run time from the
// feature bits UFFDIO_API reports and from a probe (uffd_unavailable_reason).
#pragma once
#include <cstddef>
#include <cstdint>
#include <linux/userfaultfd.h>
#include <string>
#include <vector>
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

// The pagemap scan (Linux 6.7): finds the pages of a range whose write
// protection a write lifted, and protects them again in the same call.
#ifndef PAGEMAP_SCAN
struct page_region {
  __u64 start, end, categories;
};
struct pm_scan_arg {
  __u64 size, flags, start, end, walk_end, vec, vec_len, max_pages, category_inverted, category_mask,
      category_anyof_mask, return_mask;
};
#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#define PM_SCAN_WP_MATCHING (1 << 0)
#define PM_SCAN_CHECK_WPASYNC (1 << 1)
#define PAGE_IS_WPALLOWED (1 << 0)
#define PAGE_IS_WRITTEN (1 << 1)
#define PAGE_IS_PRESENT (1 << 3)
#define PAGE_IS_SWAPPED (1 << 4)
#endif

namespace rdsm::uffd {

// Faults are delivered as SIGBUS to the faulting thread (no reader thread
// needed), read misses are minor faults on the shared file, and writes are
// detected by write protection of the file's pages.
constexpr uint64_t kFeatures = UFFD_FEATURE_SIGBUS | UFFD_FEATURE_MINOR_SHMEM | UFFD_FEATURE_WP_HUGETLBFS_SHMEM;
constexpr uint64_t kModes = UFFDIO_REGISTER_MODE_MISSING | UFFDIO_REGISTER_MODE_MINOR | UFFDIO_REGISTER_MODE_WP;

// Scan mode: write-protect faults are resolved by the kernel itself (no
// signal), which only clears the page's protection; a pagemap scan at
// release finds those pages.
constexpr uint64_t kScanFeatures = kFeatures | UFFD_FEATURE_WP_ASYNC;

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
// Empty when scan mode can run here (the backend can, and the kernel has
// UFFD_FEATURE_WP_ASYNC and PAGEMAP_SCAN); otherwise why not.
const std::string &scan_unavailable_reason();

// Appends to `out` the pages of [addr, addr+bytes), as page indices counted
// from `base`, that are mapped and were written since they were last
// write-protected: PAGEMAP_SCAN on `pagemap_fd` (/proc/self/pagemap).  With
// `protect`, the same walk write-protects them again (PM_SCAN_WP_MATCHING:
// no call per run of pages, one TLB flush); otherwise they stay as they
// are.  Returns false with errno on failure.
bool scan_written(int pagemap_fd, const uint8_t *base, const uint8_t *addr, size_t bytes,
                  std::vector<uint32_t> &out, bool protect);

// Another process's userfaultfd, duplicated into this one (pidfd_getfd,
// Linux 5.6): its descriptor `fd` in process `pid`.  -1 where the kernel
// refuses (no permission to inspect that process, gone, too old).
// Async-signal-safe.
int duplicate_peer_fd(int pid, int fd);
// Write-protects (`on`) or lifts the write protection of [addr,
// addr+bytes) in the address space `fd` (a userfaultfd, possibly another
// process's) serves; false with errno on failure.  Async-signal-safe.
bool write_protect_range(int fd, void *addr, size_t bytes, bool on);

}  // namespace rdsm::uffd
