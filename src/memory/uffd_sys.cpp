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

const std::string &unavailable_reason() {
  static const std::string reason = probe();
  return reason;
}

}  // namespace rdsm::uffd
