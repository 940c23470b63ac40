#include "memory/uffd_sys.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace rdsm::uffd {

namespace {

// The raw descriptor, no API handshake yet.  The system call first, with
// UFFD_USER_MODE_ONLY, which unprivileged processes need when
// vm.unprivileged_userfaultfd is 0 and which costs nothing here: faults in
// the kernel (a system call's buffer) fail with EFAULT either way in SIGBUS
// mode.  Then /dev/userfaultfd, which a container may offer instead.
int open_raw(std::string *why) {
  int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
  if (fd < 0 && errno == EINVAL) fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);  // before Linux 5.11
  if (fd >= 0) return fd;
  int call_errno = errno;
  int dev = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
  int dev_errno = errno;
  if (dev >= 0) {
    fd = ioctl(dev, USERFAULTFD_IOC_NEW, O_CLOEXEC | O_NONBLOCK);
    dev_errno = errno;
    close(dev);
    if (fd >= 0) return fd;
  }
  if (call_errno == ENOSYS) {
    *why = "the kernel has no userfaultfd (built without CONFIG_USERFAULTFD)";
  } else {
    *why = std::string("the userfaultfd system call was refused (") + strerror(call_errno) +
           ": a seccomp filter such as a container's, or vm.unprivileged_userfaultfd=0 on an old kernel) and "
           "/dev/userfaultfd cannot be used (" +
           strerror(dev_errno) + ")";
  }
  return -1;
}

std::string feature_names(uint64_t bits) {
  const std::pair<uint64_t, const char *> names[] = {
      {UFFD_FEATURE_SIGBUS, "SIGBUS"},
      {UFFD_FEATURE_MINOR_SHMEM, "MINOR_SHMEM"},
      {UFFD_FEATURE_WP_HUGETLBFS_SHMEM, "WP_HUGETLBFS_SHMEM"},
      {UFFD_FEATURE_WP_UNPOPULATED, "WP_UNPOPULATED"},
      {UFFD_FEATURE_WP_ASYNC, "WP_ASYNC"},
  };
  std::string s;
  for (const auto &[bit, name] : names)
    if (bits & bit) s += std::string(s.empty() ? "" : ", ") + "UFFD_FEATURE_" + name;
  return s;
}

std::string probe() {
  if (const char *v = getenv("RDSM_UFFD_UNAVAILABLE"); v && *v)
    return std::string("userfaultfd is disabled by RDSM_UFFD_UNAVAILABLE=") + v;
#if !defined(__x86_64__)
  // Both kinds of fault arrive as one SIGBUS; only on x86_64 does the
  // signal context say whether the access was a write (fault_dispatch.cpp),
  // and a write taken for a read would fault for ever.
  return "the uffd backend tells writes from reads only on x86_64";
#endif
  std::string why;
  int fd = open_fd(kFeatures, &why);
  if (fd < 0) return why;
  const size_t page = 4096;
  int mfd = (int)syscall(SYS_memfd_create, "rdsm-uffd-probe", MFD_CLOEXEC);
  void *view = MAP_FAILED;
  if (mfd >= 0 && ftruncate(mfd, 2 * page) == 0 && pwrite(mfd, "x", 1, 0) == 1)
    view = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
  if (view == MAP_FAILED) {
    why = std::string("cannot map a memory file to probe userfaultfd: ") + strerror(errno);
  } else if (!register_range(fd, view, 2 * page)) {
    why = std::string("userfaultfd cannot register shared memory for missing, minor and write-protect faults (") +
          strerror(errno) + ")";
  } else {
    // Mapping a page read-only in one step needs Linux 6.5 or newer.
    uffdio_continue c{};
    c.range = {reinterpret_cast<uintptr_t>(view), page};
    c.mode = UFFDIO_CONTINUE_MODE_WP;
    if (ioctl(fd, UFFDIO_CONTINUE, &c) != 0)
      why = std::string("the kernel has no UFFDIO_CONTINUE_MODE_WP (Linux 6.5 or newer is needed): ") +
            strerror(errno);
    else if (*static_cast<volatile char *>(view) != 'x')
      why = "userfaultfd mapped the wrong page contents in the probe";
  }
  if (view != MAP_FAILED) munmap(view, 2 * page);
  if (mfd >= 0) close(mfd);
  close(fd);
  return why;
}

}  // namespace

int open_fd(uint64_t features, std::string *why) {
  int fd = open_raw(why);
  if (fd < 0) return -1;
  uffdio_api api{};
  api.api = UFFD_API;
  api.features = features;
  if (ioctl(fd, UFFDIO_API, &api) == 0) return fd;
  close(fd);
  // Name what is missing: a fresh descriptor reports every supported feature.
  uint64_t supported = 0;
  fd = open_raw(why);
  if (fd >= 0) {
    uffdio_api query{};
    query.api = UFFD_API;
    if (ioctl(fd, UFFDIO_API, &query) == 0) supported = query.features;
    close(fd);
  }
  std::string missing = feature_names(features & ~supported);
  *why = "the kernel's userfaultfd lacks " + (missing.empty() ? std::string("a needed feature") : missing);
  return -1;
}

bool register_range(int fd, void *addr, size_t bytes) {
  uffdio_register r{};
  r.range = {reinterpret_cast<uintptr_t>(addr), bytes};
  r.mode = kModes;
  return ioctl(fd, UFFDIO_REGISTER, &r) == 0;
}

bool unregister_range(int fd, void *addr, size_t bytes) {
  uffdio_range r{reinterpret_cast<uintptr_t>(addr), bytes};
  return ioctl(fd, UFFDIO_UNREGISTER, &r) == 0;
}

bool scan_written(int pagemap_fd, const uint8_t *base, const uint8_t *addr, size_t bytes,
                  std::vector<uint32_t> &out, bool protect) {
  constexpr size_t kPage = 4096, kRegions = 256;
  page_region vec[kRegions];
  uintptr_t start = reinterpret_cast<uintptr_t>(addr), end = start + bytes;
  while (start < end) {
    pm_scan_arg a{};
    a.size = sizeof a;
    // CHECK_WPASYNC: an error rather than a wrong answer if the range is
    // not under asynchronous write protection.
    a.flags = PM_SCAN_CHECK_WPASYNC | (protect ? PM_SCAN_WP_MATCHING : 0);
    a.start = start;
    a.end = end;
    a.vec = reinterpret_cast<uintptr_t>(vec);
    a.vec_len = kRegions;
    // Written pages with an entry: present, or being migrated to another
    // frame (memory compaction), whose entry is a swap-like migration
    // entry until the move ends.  Present only would miss a page written
    // and then caught mid-move by the scan: its writes would never be
    // sent.  A page table entry the kernel never filled (or one dropped by
    // an invalidation) has neither and reads as "not write-protected", so
    // it must not match.  The write protection the scan sets on a
    // migration entry carries over to the page's new mapping.
    a.category_mask = PAGE_IS_WRITTEN;
    a.category_anyof_mask = PAGE_IS_PRESENT | PAGE_IS_SWAPPED;
    a.return_mask = PAGE_IS_WRITTEN;
    long n = ioctl(pagemap_fd, PAGEMAP_SCAN, &a);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return false;
    }
    for (long i = 0; i < n; ++i)
      for (uint64_t p = vec[i].start; p < vec[i].end; p += kPage)
        out.push_back((uint32_t)((p - reinterpret_cast<uintptr_t>(base)) / kPage));
    // A full vector may have stopped the walk; judge by the count, since
    // walk_end is the range's end whenever the walk itself finished.
    if ((size_t)n < kRegions) break;
    start = a.walk_end;
  }
  return true;
}

namespace {
std::string scan_probe() {
  const std::string &base = unavailable_reason();
  if (!base.empty()) return base;
  std::string why;
  int fd = open_fd(kScanFeatures, &why);
  if (fd < 0) return why;
  close(fd);
  int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (pm < 0) return std::string("cannot open /proc/self/pagemap: ") + strerror(errno);
  // An empty scan of an unregistered range tells whether the ioctl exists.
  pm_scan_arg a{};
  a.size = sizeof a;
  static char probe_page[4096] __attribute__((aligned(4096)));
  a.start = reinterpret_cast<uintptr_t>(probe_page);
  a.end = a.start + sizeof probe_page;
  long r = ioctl(pm, PAGEMAP_SCAN, &a);
  int e = errno;
  close(pm);
  if (r < 0) return std::string("the kernel has no PAGEMAP_SCAN (Linux 6.7 or newer is needed): ") + strerror(e);
  return "";
}
}  // namespace

const std::string &scan_unavailable_reason() {
  static const std::string reason = scan_probe();
  return reason;
}

const std::string &unavailable_reason() {
  static const std::string reason = probe();
  return reason;
}

int duplicate_peer_fd(int pid, int fd) {
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_getfd)
  const int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  if (pidfd < 0) return -1;
  const int mine = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
  close(pidfd);
  return mine;
#else
  (void)pid, (void)fd;
  return -1;
#endif
}

bool write_protect_range(int fd, void *addr, size_t bytes, bool on) {
  uffdio_writeprotect w{};
  w.range = {reinterpret_cast<uintptr_t>(addr), bytes};
  // No thread ever sleeps on a userfaultfd here (faults are signals), so
  // nothing needs waking; the kernel refuses DONTWAKE with MODE_WP.
  w.mode = on ? UFFDIO_WRITEPROTECT_MODE_WP : UFFDIO_WRITEPROTECT_MODE_DONTWAKE;
  while (ioctl(fd, UFFDIO_WRITEPROTECT, &w) != 0)
    if (errno != EAGAIN) return false;
  return true;
}

}  // namespace rdsm::uffd
