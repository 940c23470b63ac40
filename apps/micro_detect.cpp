// micro_detect: what finding a node's written pages costs, per written page,
// for each way a protection backend can detect writes.
//
//   micro_detect [--pages P] [--rounds R] [--json FILE]
//
// A release must know which pages its interval wrote (to diff them).  The
// protocols detect that one of two ways (the detect axis):
//   sync  every valid page is write-protected; the first write to one
//         faults, and the handler takes the page's twin and opens it for
//         writing: a fault per written page (mprotect: SIGSEGV and a call to
//         mprotect; uffd: SIGBUS and UFFDIO_WRITEPROTECT);
//   scan  (uffd only, WP_ASYNC) writes do not fault: the kernel lifts the
//         protection itself and records it; at release one PAGEMAP_SCAN
//         finds the written pages and they are write-protected again
//         (collect_written + rearm).  The twin was taken when the page
//         became valid, so it is not part of the cost here.
// This program times each way on P pages of a memory file viewed twice, as
// the runtime views its region, all valid and write-protected: one byte is
// written to every page (dense) or to every 8th page (sparse), then (scan)
// the written pages are collected and rearmed.  The figure is the median
// over R rounds (default 15) of that whole time divided by the pages
// written.  A sync fault's handler does what the protocol's does at a write
// fault on a copy: copy the page to its twin, then open it.
//
// It runs the backends directly (no rdsm run, no protocol), prints a table
// and, with --json, the figures.  It fails if a way misses a written page or
// reports one not written.  The uffd rows are left out, with the reason,
// where the kernel does not allow them.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

#include "common/app_util.h"
#include "common/backend_views.hpp"
#include "common/clock.hpp"
#include "memory/backend.hpp"
#include "memory/uffd_sys.hpp"

using namespace rdsm;

namespace {

using backend_bench::Args;
using backend_bench::kPage;
constexpr size_t kStrides[] = {1, 8};  // dense, sparse

// The two views, and a twin area as large (touched before it is timed, as
// in a steady state).
struct Views : backend_bench::Views {
  uint8_t *twins = nullptr;
  Views(size_t pages, bool app_accessible) : backend_bench::Views(pages, app_accessible) {
    void *t = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (t == MAP_FAILED) {
      perror("micro_detect: mmap");
      exit(1);
    }
    twins = static_cast<uint8_t *>(t);
    memset(twins, 0, bytes);
  }
  ~Views() { munmap(twins, bytes); }
};

// What the sync fault handler needs; set before any fault is possible.
struct SyncTarget {
  ProtectionBackend *backend = nullptr;
  uint8_t *app = nullptr, *sys = nullptr, *twins = nullptr;
  size_t pages = 0;
  volatile size_t faults = 0;
};
SyncTarget target;

// A write fault on a write-protected page: twin it and open it, as the
// protocol does (async-signal-safe: memcpy and the backend's protect).  A
// fault outside the pages is not ours: the default action, at once.
void on_fault(int sig, siginfo_t *info, void *) {
  uint8_t *addr = static_cast<uint8_t *>(info->si_addr);
  if (addr < target.app || addr >= target.app + target.pages * kPage) {
    signal(sig, SIG_DFL);
    return;
  }
  size_t page = (size_t)(addr - target.app) / kPage;
  memcpy(target.twins + page * kPage, target.sys + page * kPage, kPage);
  target.backend->protect(page, 1, Prot::read_write);
  target.faults = target.faults + 1;
}

struct Way {
  MemoryBackend kind;
  bool scan;
  const char *name;
};
constexpr Way kWays[] = {{MemoryBackend::mprotect, false, "sync (fault, twin)"},
                         {MemoryBackend::uffd, false, "sync (fault, twin)"},
                         {MemoryBackend::uffd, true, "scan (no fault; one scan)"}};

struct Row {
  const Way *way;
  double us_per_page[2];  // per stride
  size_t written[2];
};

// Times one way; false (with the reason printed) if it found other pages
// than those written.
bool measure(const Way &w, const Args &a, Row &row) {
  Views v(a.pages, w.kind == MemoryBackend::uffd);
  std::unique_ptr<ProtectionBackend> b = w.kind == MemoryBackend::uffd
                                             ? make_uffd_backend(v.app, v.sys, v.fd, 0, a.pages, w.scan)
                                             : make_mprotect_backend(v.app, a.pages);
  target.backend = b.get();
  target.app = v.app;
  target.sys = v.sys;
  target.twins = v.twins;
  target.pages = a.pages;
  struct sigaction sa {}, old {};
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(b->fault_signal(), &sa, &old);

  bool ok = true;
  std::vector<uint32_t> found;
  for (size_t s = 0; s < 2 && ok; ++s) {
    const size_t stride = kStrides[s];
    std::vector<double> samples;
    row.written[s] = (a.pages + stride - 1) / stride;
    for (int r = 0; r < a.rounds && ok; ++r) {
      // Every page valid and write-protected, in 64-page groups (for uffd,
      // the whole region at once would mean leaving protections altogether),
      // and read, so that each is mapped with a TLB entry.
      for (size_t first = 0; first < a.pages; first += 64) b->protect(first, 64, Prot::read_write);
      for (size_t first = 0; first < a.pages; first += 64) b->protect(first, 64, Prot::read);
      if (w.scan) {  // nothing left over from the setup
        found.clear();
        b->collect_written(found);
        b->rearm(found);
      }
      volatile uint8_t sink = 0;
      for (size_t p = 0; p < a.pages; ++p) sink = sink + v.app[p * kPage];
      target.faults = 0;
      const uint8_t value = (uint8_t)(2 + r % 200);
      uint64_t t0 = now_ns();
      for (size_t p = 0; p < a.pages; p += stride) v.app[p * kPage + 8] = value;
      if (w.scan) {
        found.clear();
        b->collect_written(found);
        b->rearm(found);
      }
      samples.push_back((double)(now_ns() - t0) / 1e3 / (double)row.written[s]);
      // Exactly the written pages, each once.
      size_t seen = w.scan ? found.size() : (size_t)target.faults;
      bool exact = seen == row.written[s];
      for (size_t i = 0; w.scan && exact && i < found.size(); ++i) exact = found[i] == i * stride;
      if (!exact) {
        printf("FAIL micro_detect: %s %s, every %zu page(s): %zu pages found written, %zu were\n",
               memory_backend_name(w.kind), w.name, stride, seen, row.written[s]);
        ok = false;
      }
    }
    row.us_per_page[s] = ok ? app_median(samples.data(), samples.size()) : 0;
  }
  sigaction(b->fault_signal(), &old, nullptr);
  target.backend = nullptr;
  return ok;
}

}  // namespace

int main(int argc, char **argv) {
  Args a = backend_bench::parse("micro_detect", argc, argv);
  std::string uffd_missing = uffd::unavailable_reason(), scan_missing = uffd::scan_unavailable_reason();
  std::vector<Row> rows;
  bool ok = true;
  for (const Way &w : kWays) {
    if (w.kind == MemoryBackend::uffd && !(w.scan ? scan_missing : uffd_missing).empty()) continue;
    Row row{&w, {}, {}};
    ok = measure(w, a, row) && ok;
    rows.push_back(row);
  }

  printf("write detection (micro_detect, %zu pages valid and write-protected, median of %d rounds): us per page "
         "written, detection included\n",
         a.pages, a.rounds);
  printf("  %-9s %-30s %14s %14s\n", "backend", "way", "every page", "every 8th");
  for (const Row &r : rows)
    printf("  %-9s %-30s %14.3f %14.3f\n", memory_backend_name(r.way->kind), r.way->name, r.us_per_page[0],
           r.us_per_page[1]);
  if (!uffd_missing.empty()) printf("  uffd: not measured: %s\n", uffd_missing.c_str());
  else if (!scan_missing.empty()) printf("  uffd scan: not measured: %s\n", scan_missing.c_str());
  if (ok) printf("PASS micro_detect: every way found exactly the pages written\n");

  if (a.json) {
    FILE *f = fopen(a.json, "w");
    if (!f) {
      fprintf(stderr, "micro_detect: cannot write %s: %s\n", a.json, strerror(errno));
      return 1;
    }
    fprintf(f, "{\"pages\": %zu, \"rounds\": %d, \"strides\": [1, 8], \"rows\": [", a.pages, a.rounds);
    for (size_t i = 0; i < rows.size(); ++i)
      fprintf(f, "%s{\"backend\": \"%s\", \"way\": \"%s\", \"scan\": %s, \"us_per_written_page\": [%.4f, %.4f]}",
              i ? ", " : "", memory_backend_name(rows[i].way->kind), rows[i].way->name,
              rows[i].way->scan ? "true" : "false", rows[i].us_per_page[0], rows[i].us_per_page[1]);
    fprintf(f, "], \"uffd_unavailable\": \"%s\", \"scan_unavailable\": \"%s\"}\n", uffd_missing.c_str(),
            scan_missing.c_str());
    fclose(f);
  }
  return ok ? 0 : 1;
}
