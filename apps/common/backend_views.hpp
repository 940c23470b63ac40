// What the programs that time the protection backends directly
// (micro_protect, micro_detect) share: their options and the two views of
// one memory file, mapped as SharedRegion maps the region.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace backend_bench {

constexpr size_t kPage = 4096;

struct Args {
  size_t pages = 4096;
  int rounds = 15;
  const char *json = nullptr;
};

[[noreturn]] inline void usage(const char *prog, const char *why) {
  fprintf(stderr, "%s: %s\nusage: %s [--pages P] [--rounds R] [--json FILE]\n", prog, why, prog);
  exit(2);
}

// --pages P (a multiple of 64), --rounds R, --json FILE.
inline Args parse(const char *prog, int argc, char **argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (i + 1 >= argc) usage(prog, ("option " + k + " needs a value").c_str());
    const char *v = argv[++i];
    if (k == "--json") {
      a.json = v;
      continue;
    }
    char *end = nullptr;
    long x = strtol(v, &end, 10);
    if (!end || *end || x < 1) usage(prog, ("option " + k + " needs a positive whole number, not " + v).c_str());
    if (k == "--pages" && x % 64 == 0 && x <= (1 << 20)) a.pages = (size_t)x;
    else if (k == "--rounds" && x <= 1000) a.rounds = (int)x;
    else usage(prog, ("unknown option or value out of range (pages: a multiple of 64): " + k + " " + v).c_str());
  }
  return a;
}

// The two views of one memory file of `pages` pages, every page held by the
// file; the application view accessible (uffd) or not (mprotect).
struct Views {
  int fd = -1;
  uint8_t *app = nullptr, *sys = nullptr;
  size_t bytes = 0;
  Views(size_t pages, bool app_accessible) : bytes(pages * kPage) {
    fd = memfd_create("rdsm-micro-backend", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)bytes) != 0) {
      perror("memory file");
      exit(1);
    }
    void *s = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    void *a = mmap(nullptr, bytes, app_accessible ? PROT_READ | PROT_WRITE : PROT_NONE, MAP_SHARED, fd, 0);
    if (s == MAP_FAILED || a == MAP_FAILED) {
      perror("mmap");
      exit(1);
    }
    sys = static_cast<uint8_t *>(s);
    app = static_cast<uint8_t *>(a);
    for (size_t off = 0; off < bytes; off += kPage) sys[off] = 1;
  }
  ~Views() {
    munmap(app, bytes);
    munmap(sys, bytes);
    close(fd);
  }
  Views(const Views &) = delete;
  Views &operator=(const Views &) = delete;
};

}  // namespace backend_bench
