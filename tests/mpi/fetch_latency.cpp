// Latency of one-sided operations of the mpi fabric aimed at a node that is
// idle (sleeping between looks at a flag) and at one that is computing (a
// loop that never enters MPI or the kernel): a 4 KiB get (a page fetch) and
// a compare-and-swap; and of a page fetched by message (a request, and the
// page in the answer of the target's handler: the fetch=message axis).  Without progress on the target's side, MPI
// completes passive-target operations only when the target next calls MPI,
// so the busy figures would be the length of the compute phase.
//
// Run with 2 ranks: mpirun -n 2 mpi_fetch_latency [--iterations N] [--handler poll|spin]
//   [--local map|rma] [--max-ratio R] [--max-get-us U]
// Prints the medians and ends with PASS; with --max-ratio R, only when the
// busy target's median get, and its median page by message (except in poll
// mode, where it is not measured), are within R times the idle one's (through MPI
// RMA a judgement that needs a machine with a core to spare for each rank's
// progress thread); with --max-get-us U, only when both median gets are
// within U microseconds (ranks of one host that map each other's memory).
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "common/clock.hpp"
#include "fabric/mpi_fabric.hpp"

using namespace rdsm;
using namespace rdsm::fabric;

namespace {
constexpr uint64_t kFlagOff = 0;     // 8-byte word: phase the target may leave
constexpr uint64_t kPageOff = 4096;  // the page fetched
constexpr uint64_t kWordOff = 8192;  // the word of the compare-and-swaps

double median_us(std::vector<uint64_t> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2] / 1000.0;
}
double pct_us(std::vector<uint64_t> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, (size_t)(p * v.size()))] / 1000.0;
}

// The target side of a phase: wait until the origin sets the flag to `phase`,
// by sleeping (idle) or by computing (busy); neither calls MPI.
double target_phase(uint8_t *base, uint64_t phase, bool busy) {
  std::atomic_ref<uint64_t> flag(*reinterpret_cast<uint64_t *>(base + kFlagOff));
  volatile double x = 1.0;
  while (flag.load(std::memory_order_acquire) < phase) {
    if (busy) {
      for (int i = 0; i < 100000; ++i) x = x * 1.0000001 + 1e-9;
    } else {
      timespec ts{0, 100000};
      nanosleep(&ts, nullptr);
    }
  }
  return x;
}

constexpr MsgType kAsk = 1, kPage = 2;

struct Figures {
  double get_med, get_p90, cas_med, cas_p90, msg_med, msg_p90;
};

// The target's handler answers each request with the page.
void serve_pages(Fabric &f, const uint8_t *page) {
  f.set_handler(kAsk, [&f, page](const Message &m) { f.send(m.src, kPage, page, 4096); });
}

// by_message: a handler thread answers (not poll mode, where only the
// target's own waits would, and it computes without any).
Figures origin_phase(Fabric &f, SegmentId seg, uint64_t phase, int iterations, bool by_message,
                     std::atomic<int> &pages_in) {
  std::vector<uint8_t> page(4096);
  std::vector<uint64_t> gets, cases, asks;
  for (int i = 0; i < iterations; ++i) {
    uint64_t t0 = now_ns();
    f.get(1, seg, kPageOff, page.data(), page.size());
    uint64_t t1 = now_ns();
    f.cas(1, seg, kWordOff, (uint64_t)i, (uint64_t)i + 1);
    uint64_t t2 = now_ns();
    if (by_message) {
      const int want = pages_in.load() + 1;
      f.send(1, kAsk, &i, sizeof i);
      f.wait([&] { return pages_in.load() >= want; });
    }
    uint64_t t3 = now_ns();
    gets.push_back(t1 - t0);
    cases.push_back(t2 - t1);
    asks.push_back(t3 - t2);
  }
  f.put(1, seg, kFlagOff, &phase, sizeof phase);
  f.flush(1);
  return {median_us(gets), pct_us(gets, 0.9), median_us(cases), pct_us(cases, 0.9), median_us(asks),
          pct_us(asks, 0.9)};
}
}  // namespace

int main(int argc, char **argv) {
  int iterations = 2000;
  double max_ratio = 0, max_get_us = 0;
  Options opt;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--iterations" && i + 1 < argc) iterations = atoi(argv[++i]);
    else if (a == "--max-ratio" && i + 1 < argc) max_ratio = atof(argv[++i]);
    else if (a == "--max-get-us" && i + 1 < argc) max_get_us = atof(argv[++i]);
    else if (a == "--local" && i + 1 < argc) opt.mpi_local_map = strcmp(argv[++i], "rma") != 0;
    else if (a == "--handler" && i + 1 < argc && parse_handler_mode(argv[i + 1], &opt.handler)) ++i;
    else {
      fprintf(stderr,
              "usage: %s [--iterations N] [--max-ratio R] [--max-get-us U] [--handler interrupt|poll|spin] "
              "[--local map|rma]\n",
              argv[0]);
      return 2;
    }
  }
  auto f = std::make_unique<MpiFabric>(opt);
  if (f->nodes() != 2) {
    if (f->rank() == 0) fprintf(stderr, "mpi_fetch_latency: run it with 2 ranks (it has %d)\n", f->nodes());
    return 2;
  }
  Segment seg = f->register_segment(3 * 4096);
  memset(seg.base + kPageOff, 0x5a, 4096);
  std::atomic<int> pages_in{0};
  const bool by_message = opt.handler != HandlerMode::poll;
  serve_pages(*f, seg.base + kPageOff);
  f->set_handler(kPage, [&](const Message &m) {
    if (m.len == 4096 && static_cast<const uint8_t *>(m.data)[4095] == 0x5a) pages_in.fetch_add(1);
  });
  f->start();
  f->barrier();
  Figures idle{}, busy{};
  if (f->rank() == 1) {
    target_phase(seg.base, 1, false);
    target_phase(seg.base, 2, true);
  } else {
    idle = origin_phase(*f, seg.id, 1, iterations, by_message, pages_in);
    busy = origin_phase(*f, seg.id, 2, iterations, by_message, pages_in);
  }
  f->barrier();
  int rc = 0;
  if (f->rank() == 0) {
    printf("mpi fabric, handler %s, local %s, %d iterations (microseconds: median / 90th percentile)\n",
           handler_mode_name(opt.handler),
           opt.mpi_local_map ? "map" : "rma", iterations);
    for (const auto &[name, fig] : {std::pair{"idle", idle}, std::pair{"busy", busy}}) {
      printf("  %s target: get 4 KiB %.2f / %.2f, cas %.2f / %.2f", name, fig.get_med, fig.get_p90, fig.cas_med,
             fig.cas_p90);
      if (by_message) printf(", page by message %.2f / %.2f", fig.msg_med, fig.msg_p90);
      printf("\n");
    }
    double ratio = busy.get_med / std::max(idle.get_med, 0.01);
    double msg_ratio = by_message ? busy.msg_med / std::max(idle.msg_med, 0.01) : 0;
    bool ratio_ok = max_ratio <= 0 || std::max(ratio, msg_ratio) <= max_ratio;
    bool gets_ok = max_get_us <= 0 || std::max(idle.get_med, busy.get_med) <= max_get_us;
    rc = ratio_ok && gets_ok ? 0 : 1;
    printf("%s mpi_fetch_latency: busy/idle get median %.2f", rc ? "FAIL" : "PASS", ratio);
    if (by_message) printf(", page by message %.2f", msg_ratio);
    if (max_ratio > 0) printf(" (limit %.1f)", max_ratio);
    if (max_get_us > 0) printf(", median gets within %.1f us: %s", max_get_us, gets_ok ? "yes" : "no");
    printf("\n");
  }
  f->stop();
  f->barrier();
  f.reset();
  return rc;
}
