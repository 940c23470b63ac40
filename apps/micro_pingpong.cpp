// micro_pingpong: the round trip of a message between two nodes under each
// handler mode, as in the ping-pong table of the Multiview papers (round
// trip by receive context: polling, task queue, process).
//
//   rdsm run -n 2 --handler MODE micro_pingpong [--rounds N] [--bytes B] [--json FILE]
//
// Node 0 sends node 1 a ping of B bytes (default 8); node 1's handler
// answers with a pong of the same size, which node 0 waits for in rdsm.  N
// round trips (default 2000, after 100 not counted) are timed one by one
// in each of two cases:
//   computing  node 1 computes (a loop of arithmetic in the program, no
//              call into rdsm) while the pings arrive: the handler thread
//              (interrupt, spin) or the message signal (signal) answers.
//              Under poll a computing node answers nothing until it next
//              calls rdsm, so the case is not run there;
//   waiting    node 1 waits in rdsm (for the end of the case): whoever
//              serves its messages while it waits answers.
// It prints the median, 10th and 90th percentile of each case's round trips
// in microseconds, and with --json the same as one JSON object.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

#include "common/clock.hpp"
#include "common/message_signal.hpp"
#include "common/options.hpp"
#include "fabric/fabric.hpp"

using namespace rdsm;
using namespace rdsm::fabric;

namespace {

enum : MsgType { kPing = 1, kPong, kCaseDone };
constexpr int kWarmup = 100;

struct Args {
  long rounds = 2000;
  size_t bytes = 8;
  const char *json = nullptr;
};

[[noreturn]] void usage(const char *why) {
  fprintf(stderr,
          "micro_pingpong: %s\nusage: rdsm run -n 2 [--handler interrupt|poll|signal|spin] micro_pingpong "
          "[--rounds N] [--bytes B] [--json FILE]\n",
          why);
  exit(2);
}

Args parse(int argc, char **argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    if (i + 1 >= argc) usage(("missing value after " + s).c_str());
    const char *v = argv[++i];
    char *end = nullptr;
    if (s == "--rounds") {
      a.rounds = strtol(v, &end, 10);
      if (*end || a.rounds < 1 || a.rounds > 10000000) usage("--rounds takes a count from 1 to 10000000");
    } else if (s == "--bytes") {
      long b = strtol(v, &end, 10);
      if (*end || b < 0 || b > (1 << 20)) usage("--bytes takes a size from 0 to 1048576");
      a.bytes = (size_t)b;
    } else if (s == "--json") {
      a.json = v;
    } else {
      usage(("unknown option " + s).c_str());
    }
  }
  return a;
}

struct Summary {
  bool ran = false;
  double median_us = 0, p10_us = 0, p90_us = 0;
};

Summary summarise(std::vector<double> v) {
  Summary s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto at = [&](double q) { return v[std::min(v.size() - 1, (size_t)(q * (double)(v.size() - 1) + 0.5))]; };
  s.ran = true;
  s.median_us = at(0.5), s.p10_us = at(0.1), s.p90_us = at(0.9);
  return s;
}

// Work the compiler cannot drop, checking `stop` between short stretches.
double compute_until(const std::atomic<bool> &stop) {
  volatile double x = 1.0;
  while (!stop.load(std::memory_order_acquire))
    for (int i = 0; i < 256; ++i) x = x * 1.0000001 + 1e-9;
  return x;
}

struct Node {
  Fabric &f;
  std::atomic<long> pongs{0};
  std::atomic<bool> case_done{false};

  // Node 0: the timed round trips.
  std::vector<double> ping(long rounds, size_t bytes) {
    std::vector<uint8_t> msg(bytes, 7);
    std::vector<double> us;
    us.reserve((size_t)rounds);
    for (long r = 0; r < kWarmup + rounds; ++r) {
      long want = pongs.load() + 1;
      uint64_t t0 = now_ns();
      {
        InsideRdsm request;  // as a call of the C API that sends and waits for the answer
        f.send(1, kPing, msg.data(), msg.size());
        f.wait([&] { return pongs.load(std::memory_order_acquire) >= want; });
      }
      if (r >= kWarmup) us.push_back((double)(now_ns() - t0) / 1e3);
    }
    return us;
  }

  // Runs one case: node 0 pings, node 1 computes or waits until told.
  Summary run_case(bool computing, const Args &a) {
    case_done.store(false);
    f.barrier();
    Summary s;
    if (f.rank() == 0) {
      usleep(10000);  // node 1 is computing (or waiting) by now
      s = summarise(ping(a.rounds, a.bytes));
      f.send(1, kCaseDone, nullptr, 0);
    } else if (computing) {
      compute_until(case_done);
    } else {
      InsideRdsm waiting;
      f.wait([&] { return case_done.load(std::memory_order_acquire); });
    }
    f.barrier();
    return s;
  }
};

void print_case(const char *name, const Summary &s, const char *why_not) {
  if (s.ran)
    printf("  %-22s median %9.2f us   p10 %9.2f us   p90 %9.2f us\n", name, s.median_us, s.p10_us, s.p90_us);
  else
    printf("  %-22s not run: %s\n", name, why_not);
}

void json_case(FILE *f, const char *name, const Summary &s) {
  if (s.ran)
    fprintf(f, "\"%s\": {\"median_us\": %.3f, \"p10_us\": %.3f, \"p90_us\": %.3f}", name, s.median_us, s.p10_us,
            s.p90_us);
  else
    fprintf(f, "\"%s\": null", name);
}

}  // namespace

int main(int argc, char **argv) {
  Args a = parse(argc, argv);
  Options opt = options_from_environment();
  std::unique_ptr<Fabric> fabric = make_fabric(opt);
  Fabric &f = *fabric;  // the mpi fabric learns the job's size from MPI
  if (f.nodes() != 2) usage("run it as a job of 2 nodes: rdsm run -n 2 --handler MODE micro_pingpong");
  Node node{f};
  f.set_handler(kPing, [&](const Message &m) { f.send(m.src, kPong, m.data, m.len); });
  f.set_handler(kPong, [&](const Message &) { node.pongs.fetch_add(1, std::memory_order_release); });
  f.set_handler(kCaseDone, [&](const Message &) {
    node.case_done.store(true, std::memory_order_release);
    f.notify();
  });
  f.start();
  f.barrier();

  // A computing node serves nothing under poll: the ping would wait for the
  // end of the computation, which here waits for the pong.
  const HandlerMode mode = f.handler_mode();
  const bool computing_served = mode != HandlerMode::poll;
  Summary computing, waiting;
  if (computing_served) computing = node.run_case(true, a);
  waiting = node.run_case(false, a);

  int status = 0;
  if (f.rank() == 0) {
    printf("micro_pingpong: 2 nodes, fabric %s, handler %s, %zu-byte messages, %ld round trips per case\n", f.name(),
           handler_mode_name(mode), a.bytes, a.rounds);
    print_case("receiver computing", computing, "under poll a computing node answers only when it calls rdsm");
    print_case("receiver waiting", waiting, "");
    printf("PASS micro_pingpong: handler %s\n", handler_mode_name(mode));
    if (a.json) {
      FILE *out = fopen(a.json, "w");
      if (!out) {
        fprintf(stderr, "micro_pingpong: cannot write %s: %s\n", a.json, strerror(errno));
        status = 1;
      } else {
        fprintf(out, "{\"program\": \"micro_pingpong\", \"fabric\": \"%s\", \"handler\": \"%s\", \"bytes\": %zu, "
                     "\"rounds\": %ld, ",
                f.name(), handler_mode_name(mode), a.bytes, a.rounds);
        json_case(out, "computing", computing);
        fprintf(out, ", ");
        json_case(out, "waiting", waiting);
        fprintf(out, "}\n");
        fclose(out);
      }
    }
    fflush(stdout);
  }
  f.barrier();
  f.stop();
  return status;
}
