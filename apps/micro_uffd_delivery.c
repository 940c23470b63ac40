/* How a userfaultfd fault is best delivered: the kernel mechanism alone,
 * without rdsm, both ways the uffd memory backend could take it.
 *
 *  signal   UFFD_FEATURE_SIGBUS: the faulting thread gets SIGBUS and
 *           resolves the fault itself in the handler (what rdsm does);
 *  thread   the faulting thread sleeps in the kernel while a handler thread
 *           reads the fault from the descriptor (poll + read), resolves it
 *           and wakes it.
 *
 * A memory file of PAGES pages is mapped twice (as rdsm's system and
 * application views); the application view is registered for missing,
 * minor and write-protect faults.  Per way, ROUNDS rounds of: drop the
 * view's pages (MADV_DONTNEED), read one byte of each page (a minor fault,
 * resolved by UFFDIO_CONTINUE mapping the page write-protected), write one
 * byte of each (a write-protect fault, resolved by UFFDIO_WRITEPROTECT
 * clearing the protection).  Figures are microseconds per fault, the
 * median over rounds of the loop time / PAGES.  The costs of the calls the
 * resolution makes, and of a signal raised and handled with no fault, are
 * printed beside them.  No rdsm call is made: run it directly, not under
 * rdsm run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef UFFDIO_CONTINUE_MODE_WP
#define UFFDIO_CONTINUE_MODE_WP ((__u64)1 << 1) /* Linux 6.6; older headers lack it */
#endif

static const char *kUsage =
    "usage: micro_uffd_delivery [--pages P] [--rounds R] [--json FILE]\n"
    "  the cost of a userfaultfd read (minor) and write-protect fault delivered by SIGBUS to the\n"
    "  faulting thread, and by a handler thread reading the descriptor; P pages (default 4096),\n"
    "  R rounds (default 5).  Exits 77 where userfaultfd cannot run.\n";

enum { kWaySignal, kWayThread, kWays };
static const char *const kWayName[kWays] = {"signal", "thread"};

static int uffd = -1;
static volatile int stopping = 0;

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* Resolves a fault at addr: a write-protect fault by clearing the
 * protection, a miss by mapping the file's page write-protected. */
static int resolve(uintptr_t addr, int write_protect_fault) {
  uintptr_t page = addr & ~(uintptr_t)4095;
  if (write_protect_fault) {
    struct uffdio_writeprotect wp = {.range = {page, 4096}, .mode = 0};
    return ioctl(uffd, UFFDIO_WRITEPROTECT, &wp);
  }
  struct uffdio_continue c = {.range = {page, 4096}, .mode = UFFDIO_CONTINUE_MODE_WP};
  return ioctl(uffd, UFFDIO_CONTINUE, &c);
}

/* Which fault the signal stands for: the page-fault error code's write bit
 * on a mapped page is a write-protect fault. */
static void on_sigbus(int sig, siginfo_t *info, void *uctx) {
  (void)sig;
  int is_write = 0;
#if defined(__x86_64__)
  is_write = (((ucontext_t *)uctx)->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#else
  (void)uctx;
#endif
  /* (The benchmark writes only to mapped pages: a write fault here is a
   * write-protect fault.) */
  if (resolve((uintptr_t)info->si_addr, is_write) != 0 && errno != EEXIST) {
    static const char msg[] = "micro_uffd_delivery: resolving a fault in the SIGBUS handler failed\n";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    (void)ignored;
    _exit(1);
  }
}

static void on_sigusr1(int sig) { (void)sig; }

static void *handler_thread(void *arg) {
  (void)arg;
  for (;;) {
    struct pollfd p = {.fd = uffd, .events = POLLIN};
    if (poll(&p, 1, 100) < 0 && errno != EINTR) break;
    if (stopping) break;
    struct uffd_msg m;
    ssize_t n = read(uffd, &m, sizeof m);
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      perror("micro_uffd_delivery: read from userfaultfd");
      exit(1);
    }
    if (n != (ssize_t)sizeof m || m.event != UFFD_EVENT_PAGEFAULT) continue;
    int wp = (m.arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WP) != 0;
    if (resolve((uintptr_t)m.arg.pagefault.address, wp) != 0 && errno != EEXIST) {
      perror("micro_uffd_delivery: resolving a fault in the handler thread");
      exit(1);
    }
  }
  return NULL;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Opens and registers a descriptor for one way; returns 0, or 77 with a
 * message where the kernel refuses. */
static int open_uffd(int way, uint8_t *view, size_t bytes) {
  uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
  if (uffd < 0) {
    fprintf(stderr, "micro_uffd_delivery: userfaultfd is not available here (%s)\n", strerror(errno));
    return 77;
  }
  struct uffdio_api api = {.api = UFFD_API,
                           .features = UFFD_FEATURE_MINOR_SHMEM | UFFD_FEATURE_WP_HUGETLBFS_SHMEM |
                                       (way == kWaySignal ? UFFD_FEATURE_SIGBUS : 0)};
  if (ioctl(uffd, UFFDIO_API, &api) != 0) {
    fprintf(stderr, "micro_uffd_delivery: the kernel lacks the userfaultfd features needed (%s)\n", strerror(errno));
    return 77;
  }
  struct uffdio_register r = {
      .range = {(uintptr_t)view, bytes},
      .mode = UFFDIO_REGISTER_MODE_MISSING | UFFDIO_REGISTER_MODE_MINOR | UFFDIO_REGISTER_MODE_WP};
  if (ioctl(uffd, UFFDIO_REGISTER, &r) != 0) {
    fprintf(stderr, "micro_uffd_delivery: cannot register the view with userfaultfd (%s)\n", strerror(errno));
    return 77;
  }
  return 0;
}

int main(int argc, char **argv) {
  long pages = 4096, rounds = 5;
  const char *json = NULL;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--pages") && i + 1 < argc) pages = atol(argv[++i]);
    else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atol(argv[++i]);
    else if (!strcmp(argv[i], "--json") && i + 1 < argc) json = argv[++i];
    else {
      fputs(kUsage, stderr);
      return !strcmp(argv[i], "--help") ? 0 : 2;
    }
  }
  if (pages < 1 || pages > (1 << 20) || rounds < 1 || rounds > 1000) {
    fprintf(stderr, "micro_uffd_delivery: --pages must be 1..1048576 and --rounds 1..1000\n%s", kUsage);
    return 2;
  }
  size_t bytes = (size_t)pages * 4096;
  int fd = memfd_create("micro_uffd_delivery", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, (off_t)bytes) != 0) {
    perror("micro_uffd_delivery: memory file");
    return 1;
  }
  uint8_t *sys = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (sys == MAP_FAILED) {
    perror("micro_uffd_delivery: mmap");
    return 1;
  }
  for (long i = 0; i < pages; ++i) sys[i * 4096] = (uint8_t)(i | 1);

  double read_us[kWays], write_us[kWays];
  long bad = 0;
  for (int way = 0; way < kWays; ++way) {
    /* A fresh view each way: a view stays registered with its descriptor. */
    uint8_t *app = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (app == MAP_FAILED) {
      perror("micro_uffd_delivery: mmap");
      return 1;
    }
    int rc = open_uffd(way, app, bytes);
    if (rc) return rc;
    pthread_t thread;
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    if (way == kWaySignal) {
      sa.sa_sigaction = on_sigbus;
      sa.sa_flags = SA_SIGINFO | SA_NODEFER;
      sigemptyset(&sa.sa_mask);
      sigaction(SIGBUS, &sa, &old);
    } else {
      stopping = 0;
      pthread_create(&thread, NULL, handler_thread, NULL);
    }
    double r[1000], w[1000];
    for (long k = 0; k < rounds; ++k) {
      madvise(app, bytes, MADV_DONTNEED);
      double t0 = now_us();
      for (long i = 0; i < pages; ++i) bad += *(volatile uint8_t *)(app + i * 4096) != (uint8_t)(i | 1);
      double t1 = now_us();
      for (long i = 0; i < pages; ++i) *(volatile uint8_t *)(app + i * 4096 + 8) = (uint8_t)k;
      double t2 = now_us();
      r[k] = (t1 - t0) / (double)pages;
      w[k] = (t2 - t1) / (double)pages;
    }
    read_us[way] = median(r, (int)rounds);
    write_us[way] = median(w, (int)rounds);
    if (way == kWaySignal) {
      sigaction(SIGBUS, &old, NULL);
    } else {
      stopping = 1;
      pthread_join(thread, NULL);
    }
    munmap(app, bytes);
    close(uffd);
  }

  /* The calls a resolution makes, and a signal alone, for comparison. */
  uint8_t *app = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (app == MAP_FAILED || open_uffd(kWaySignal, app, bytes)) return 1;
  double t0 = now_us();
  for (long i = 0; i < pages; ++i) resolve((uintptr_t)(app + i * 4096), 0);
  double cont_us = (now_us() - t0) / (double)pages;
  t0 = now_us();
  for (long i = 0; i < pages; ++i) resolve((uintptr_t)(app + i * 4096), 1);
  double unprotect_us = (now_us() - t0) / (double)pages;
  struct sigaction noop, old;
  memset(&noop, 0, sizeof noop);
  noop.sa_handler = on_sigusr1;
  sigemptyset(&noop.sa_mask);
  sigaction(SIGUSR1, &noop, &old);
  t0 = now_us();
  for (long i = 0; i < pages; ++i) raise(SIGUSR1);
  double signal_us = (now_us() - t0) / (double)pages;
  sigaction(SIGUSR1, &old, NULL);

  if (bad) {
    printf("FAIL micro_uffd_delivery: %ld reads returned the wrong byte\n", bad);
    return 1;
  }
  printf("PASS micro_uffd_delivery: %ld pages, median of %ld rounds, us per fault\n", pages, rounds);
  printf("  %-8s %10s %12s\n", "way", "read miss", "write fault");
  for (int way = 0; way < kWays; ++way) printf("  %-8s %10.2f %12.2f\n", kWayName[way], read_us[way], write_us[way]);
  printf("  the calls alone: UFFDIO_CONTINUE %.2f us, UFFDIO_WRITEPROTECT (clear) %.2f us; a signal raised and "
         "handled %.2f us\n",
         cont_us, unprotect_us, signal_us);
  printf("  faster: %s for read misses, %s for write faults\n",
         read_us[kWaySignal] <= read_us[kWayThread] ? "signal" : "thread",
         write_us[kWaySignal] <= write_us[kWayThread] ? "signal" : "thread");
  if (json) {
    FILE *f = fopen(json, "w");
    if (!f) {
      perror("micro_uffd_delivery: --json");
      return 1;
    }
    fprintf(f,
            "{\"program\": \"micro_uffd_delivery\", \"pages\": %ld, \"rounds\": %ld, \"signal_read_us\": %.4f, "
            "\"signal_write_us\": %.4f, \"thread_read_us\": %.4f, \"thread_write_us\": %.4f, "
            "\"continue_us\": %.4f, \"unprotect_us\": %.4f, \"signal_us\": %.4f}\n",
            pages, rounds, read_us[kWaySignal], write_us[kWaySignal], read_us[kWayThread], write_us[kWayThread],
            cont_us, unprotect_us, signal_us);
    fclose(f);
  }
  return 0;
}

