// The shm fabric, tested with real processes: each test creates node files,
// forks one child per node, and every child runs the scenario against its own
// ShmFabric and exits 0 when all its checks passed.  Children use plain
// checks and _exit, never gtest assertions; the parent kills them all if they
// take too long, so a bug cannot hang the suite.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <poll.h>
#include <signal.h>
#include <string>
#include <sys/mman.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include "bootstrap/node_file.hpp"
#include "fabric/shm_fabric.hpp"
#include "stats/stats.hpp"

namespace {

using rdsm::HandlerMode;
using rdsm::Options;
using rdsm::fabric::Message;
using rdsm::fabric::NodeId;
using rdsm::fabric::Segment;
using rdsm::fabric::ShmFabric;

#define NODE_CHECK(cond)                                                     \
  do {                                                                       \
    if (!(cond)) {                                                           \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      _exit(1);                                                              \
    }                                                                        \
  } while (0)

struct Outcome {
  // Exit status of every node: 128+n died of signal n, -1 killed by the
  // timeout, -2 killed because another node failed (as the launcher does).
  std::vector<int> status;
  std::string stderr_text;  // everything the children wrote to stderr
};

using Body = std::function<void(ShmFabric &)>;

// Runs `body` on `n` nodes, each a child process with its own fabric.
Outcome run_nodes(int n, HandlerMode mode, const Body &body, int timeout_s = 20) {
  std::vector<int> fds = rdsm::create_node_files(n);
  int err = memfd_create("fabric-test-stderr", 0);
  std::vector<pid_t> pids;
  for (int i = 0; i < n; ++i) {
    pid_t pid = fork();
    if (pid < 0) {
      perror("fork");
      abort();
    }
    if (pid == 0) {
      dup2(err, STDERR_FILENO);
      Options opt;
      opt.rank = i;
      opt.nodes = n;
      opt.launched = true;
      opt.handler = mode;
      opt.node_fds = rdsm::format_fd_list(fds);
      try {
        ShmFabric f(opt, fds);
        body(f);
      } catch (const std::exception &e) {
        fprintf(stderr, "node %d: exception: %s\n", i, e.what());
        _exit(3);
      }
      _exit(0);
    }
    pids.push_back(pid);
  }
  Outcome out;
  out.status.assign(n, -1);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  int left = n;
  bool failed = false;
  while (left > 0 && !failed && std::chrono::steady_clock::now() < deadline) {
    for (int i = 0; i < n; ++i) {
      if (pids[i] < 0) continue;
      int st;
      if (waitpid(pids[i], &st, WNOHANG) == pids[i]) {
        out.status[i] = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        failed |= out.status[i] != 0;
        pids[i] = -1;
        --left;
      }
    }
    if (left) poll(nullptr, 0, 2);
  }
  for (int i = 0; i < n; ++i)
    if (pids[i] > 0) {
      kill(pids[i], SIGKILL);
      waitpid(pids[i], nullptr, 0);
      out.status[i] = failed ? -2 : -1;
    }
  char buf[4096];
  ssize_t r;
  lseek(err, 0, SEEK_SET);
  while ((r = read(err, buf, sizeof buf)) > 0) out.stderr_text.append(buf, (size_t)r);
  close(err);
  for (int fd : fds) close(fd);
  return out;
}

void expect_all_ok(const Outcome &o) {
  for (size_t i = 0; i < o.status.size(); ++i)
    EXPECT_EQ(o.status[i], 0) << "node " << i
                              << (o.status[i] == -1   ? " timed out"
                                  : o.status[i] == -2 ? " was ended after another node failed"
                                                      : " failed")
                              << "; stderr:\n"
                              << o.stderr_text;
}

uint8_t pattern(uint64_t seed, size_t i) { return (uint8_t)(seed * 131 + i * 7 + (i >> 8)); }

void fill(std::vector<uint8_t> &v, uint64_t seed) {
  for (size_t i = 0; i < v.size(); ++i) v[i] = pattern(seed, i);
}

bool matches(const void *p, size_t n, uint64_t seed) {
  const uint8_t *b = static_cast<const uint8_t *>(p);
  for (size_t i = 0; i < n; ++i)
    if (b[i] != pattern(seed, i)) return false;
  return true;
}

// ---- layout and one-sided operations ------------------------------------

TEST(ShmFabricLayout, RingCapacity) {
  EXPECT_EQ(ShmFabric::ring_capacity(1), 4u << 20);
  EXPECT_EQ(ShmFabric::ring_capacity(16), 4u << 20);
  EXPECT_EQ(ShmFabric::ring_capacity(24), 2u << 20);
  EXPECT_EQ(ShmFabric::ring_capacity(32), 2u << 20);
  EXPECT_EQ(ShmFabric::ring_capacity(100), 512u << 10);
  EXPECT_EQ(ShmFabric::ring_capacity(256), 256u << 10);
  EXPECT_EQ(ShmFabric::ring_capacity(1024), 256u << 10);
}

TEST(ShmFabricOneSided, PutGetAtSegmentEdges) {
  expect_all_ok(run_nodes(2, HandlerMode::interrupt, [](ShmFabric &f) {
    const size_t a_bytes = 3 * 4096 + 5, b_bytes = 4096;
    Segment a = f.register_segment(a_bytes);
    Segment b = f.register_segment(b_bytes);
    NODE_CHECK(a.id == 0 && b.id == 1);
    NODE_CHECK(a.bytes == a_bytes && b.bytes == b_bytes);
    NODE_CHECK((uintptr_t)a.base % 4096 == 0 && (uintptr_t)b.base % 4096 == 0);
    NODE_CHECK(a.fd_offset % (2 << 20) == 0 && b.fd_offset % (2 << 20) == 0 && b.fd_offset > a.fd_offset);
    NODE_CHECK(a.fd >= 0);
    for (size_t i = 0; i < a_bytes; ++i) NODE_CHECK(a.base[i] == 0);
    f.barrier();

    const int me = f.rank(), peer = 1 - me;
    std::vector<uint8_t> head(16), tail(16), whole(b_bytes);
    fill(head, 10 + me);
    fill(tail, 20 + me);
    fill(whole, 30 + me);
    f.put(peer, a.id, 0, head.data(), head.size());
    f.put(peer, a.id, a_bytes - tail.size(), tail.data(), tail.size());
    f.put(peer, b.id, 0, whole.data(), whole.size());
    f.put(peer, a.id, a_bytes, nullptr, 0);  // empty range at the very end
    f.flush(peer);
    f.barrier();

    // What the peer wrote is in the local mapping ...
    NODE_CHECK(matches(a.base, 16, 10 + peer));
    NODE_CHECK(matches(a.base + a_bytes - 16, 16, 20 + peer));
    NODE_CHECK(matches(b.base, b_bytes, 30 + peer));
    for (size_t i = 16; i < a_bytes - 16; ++i) NODE_CHECK(a.base[i] == 0);
    // ... and what this node wrote comes back with get.
    std::vector<uint8_t> back(b_bytes);
    f.get(peer, a.id, a_bytes - 16, back.data(), 16);
    NODE_CHECK(matches(back.data(), 16, 20 + me));
    f.get(peer, b.id, 0, back.data(), b_bytes);
    NODE_CHECK(matches(back.data(), b_bytes, 30 + me));
    // The file offset maps the same memory a second time.
    void *again = mmap(nullptr, 4096, PROT_READ, MAP_SHARED, a.fd, (off_t)a.fd_offset);
    NODE_CHECK(again != MAP_FAILED);
    NODE_CHECK(matches(again, 16, 10 + peer));
    munmap(again, 4096);
    f.barrier();
  }));
}

TEST(ShmFabricOneSided, CasReturnsOldValue) {
  expect_all_ok(run_nodes(2, HandlerMode::interrupt, [](ShmFabric &f) {
    Segment s = f.register_segment(64);
    if (f.rank() == 1) {
      NODE_CHECK(f.cas(0, s.id, 8, 0, 5) == 0);  // succeeds
      NODE_CHECK(f.cas(0, s.id, 8, 0, 7) == 5);  // fails, reports the current value
      NODE_CHECK(f.atomic_load(0, s.id, 8) == 5);
      NODE_CHECK(f.cas(0, s.id, 8, 5, 9) == 5);
      NODE_CHECK(f.atomic_load(0, s.id, 8) == 9);
      NODE_CHECK(f.atomic_load(0, s.id, 0) == 0);
    }
    f.barrier();
    if (f.rank() == 0) {
      uint64_t w;
      memcpy(&w, s.base + 8, 8);
      NODE_CHECK(w == 9);
    }
  }));
}

TEST(ShmFabricOneSided, FetchAddFromAllNodesConcurrently) {
  constexpr int kNodes = 4, kAdds = 10000;
  expect_all_ok(run_nodes(kNodes, HandlerMode::interrupt, [](ShmFabric &f) {
    Segment s = f.register_segment(4096);
    uint64_t before = rdsm::stats().one_sided_ops.load();
    f.barrier();
    for (int i = 0; i < kAdds; ++i) {
      uint64_t old = f.fetch_add(0, s.id, 0, 1);
      NODE_CHECK(old < (uint64_t)kNodes * kAdds);
      f.fetch_add(i % kNodes, s.id, 8, 3);
    }
    NODE_CHECK(rdsm::stats().one_sided_ops.load() - before == 2u * kAdds);
    f.barrier();
    for (int n = 0; n < kNodes; ++n) NODE_CHECK(f.atomic_load(n, s.id, 8) == 3u * kNodes * kAdds / kNodes);
    NODE_CHECK(f.atomic_load(0, s.id, 0) == (uint64_t)kNodes * kAdds);
    f.barrier();
  }));
}

// A batch's reads see the target's bytes, its adds are atomic with the
// other nodes' (every node adds to node 0's word in batches and alone), and
// an add without `old` is applied like the others.
TEST(ShmFabricOneSided, BatchReadsAndAddsTogether) {
  constexpr int kNodes = 3, kRounds = 2000;
  expect_all_ok(run_nodes(kNodes, HandlerMode::interrupt, [](ShmFabric &f) {
    using Op = rdsm::fabric::Fabric::BatchOp;
    Segment s = f.register_segment(4096);
    for (int i = 0; i < 64; ++i) s.base[256 + i] = (uint8_t)(f.rank() * 64 + i);
    f.barrier();
    uint64_t before = rdsm::stats().one_sided_ops.load();
    for (int r = 0; r < kRounds; ++r) {
      const int peer = (f.rank() + 1 + r % (kNodes - 1)) % kNodes;
      uint8_t bytes[64] = {};
      uint64_t old0 = 0, old1 = ~0ull;
      Op ops[] = {{Op::fetch_add, s.id, 0, nullptr, 0, 1, &old0},
                  {Op::get, s.id, 256, bytes, sizeof bytes},
                  {Op::fetch_add, s.id, 8, nullptr, 0, 5, nullptr},
                  {Op::fetch_add, s.id, 16, nullptr, 0, 0, &old1}};
      f.batch(0, ops, 1);  // node 0's word alone, then the rest at the peer
      f.batch(peer, ops + 1, 3);
      NODE_CHECK(old0 < 2ull * kNodes * kRounds);
      NODE_CHECK(old1 == 0);
      for (int i = 0; i < 64; ++i) NODE_CHECK(bytes[i] == (uint8_t)(peer * 64 + i));
      f.fetch_add(0, s.id, 0, 1);
    }
    NODE_CHECK(rdsm::stats().one_sided_ops.load() - before == 5u * kRounds);
    f.barrier();
    NODE_CHECK(f.atomic_load(0, s.id, 0) == 2ull * kNodes * kRounds);
    uint64_t adds = 0;
    for (int n = 0; n < kNodes; ++n) adds += f.atomic_load(n, s.id, 8);
    NODE_CHECK(adds == 5ull * kNodes * kRounds);
    f.barrier();
  }));
}

TEST(ShmFabricBarrier, RepeatedWithSharedCounter) {
  constexpr int kNodes = 4, kRounds = 1000;
  expect_all_ok(run_nodes(kNodes, HandlerMode::interrupt, [](ShmFabric &f) {
    Segment s = f.register_segment(4096);
    // Round r adds to counter r % 2: nobody can add to it again before
    // every node has passed the next barrier, so the value read is exact.
    for (int r = 0; r < kRounds; ++r) {
      uint64_t off = 8 * (r % 2);
      f.fetch_add(0, s.id, off, 1);
      f.barrier();
      NODE_CHECK(f.atomic_load(0, s.id, off) == (uint64_t)kNodes * (r / 2 + 1));
    }
    f.barrier();
  }));
}

// ---- misuse ends the node with status 2 and a message ------------------------

struct FatalCase {
  const char *name;
  const char *expect;  // in stderr
  std::function<void(ShmFabric &, const Segment &)> act;
};

TEST(ShmFabricErrors, MisuseIsFatalWithMessage) {
  std::vector<FatalCase> cases = {
      {"offset past the end", "outside segment",
       [](ShmFabric &f, const Segment &s) {
         uint64_t v;
         f.get(0, s.id, s.bytes - 4, &v, 8);
       }},
      {"put past the end", "outside segment",
       [](ShmFabric &f, const Segment &s) {
         uint8_t b = 1;
         f.put(0, s.id, s.bytes, &b, 1);
       }},
      {"misaligned atomic", "not 8-byte aligned", [](ShmFabric &f, const Segment &s) { f.fetch_add(0, s.id, 4, 1); }},
      {"unknown segment", "segment 7 is not registered", [](ShmFabric &f, const Segment &) { f.atomic_load(0, 7, 0); }},
      {"unknown node", "node 3 is not in the job",
       [](ShmFabric &f, const Segment &s) { f.cas(3, s.id, 0, 0, 1); }},
      {"message without handler", "no handler",
       [](ShmFabric &f, const Segment &) {
         f.start();
         f.send(0, 9, "x", 1);
         f.wait([] { return false; });
       }},
      {"wait in a handler", "wait() called from a message handler",
       [](ShmFabric &f, const Segment &) {
         f.set_handler(1, [&f](const Message &) { f.wait([] { return true; }); });
         f.start();
         f.send(0, 1, nullptr, 0);
         f.wait([] { return false; });
       }},
  };
  for (const FatalCase &c : cases) {
    for (HandlerMode mode : {HandlerMode::interrupt, HandlerMode::poll}) {
      Outcome o = run_nodes(1, mode, [&](ShmFabric &f) {
        Segment s = f.register_segment(1000);
        c.act(f, s);
      }, 10);
      EXPECT_EQ(o.status[0], 2) << c.name;
      EXPECT_NE(o.stderr_text.find(c.expect), std::string::npos) << c.name << ": " << o.stderr_text;
      EXPECT_EQ(o.stderr_text.rfind("rdsm", 0), 0u) << o.stderr_text;
    }
  }
}

// ---- messages, in every delivery mode ----------------------------------------

class ShmFabricMessages : public ::testing::TestWithParam<HandlerMode> {};

INSTANTIATE_TEST_SUITE_P(Modes, ShmFabricMessages,
                         ::testing::Values(HandlerMode::interrupt, HandlerMode::poll, HandlerMode::signal,
                                           HandlerMode::spin),
                         [](const ::testing::TestParamInfo<HandlerMode> &i) {
                           return std::string(rdsm::handler_mode_name(i.param));
                         });

TEST_P(ShmFabricMessages, PingPong) {
  constexpr uint64_t kRounds = 2000;
  expect_all_ok(run_nodes(2, GetParam(), [](ShmFabric &f) {
    std::atomic<uint64_t> got{0};
    f.set_handler(1, [&](const Message &m) {  // ping: answer from the handler
      NODE_CHECK(f.in_handler());
      uint64_t v;
      NODE_CHECK(m.len == 8 && m.src == 1 - f.rank());
      memcpy(&v, m.data, 8);
      NODE_CHECK(v == got.load());
      got.store(v + 1);
      ++v;
      f.send(m.src, 2, &v, 8);
    });
    f.set_handler(2, [&](const Message &m) {  // pong
      uint64_t v;
      NODE_CHECK(m.len == 8);
      memcpy(&v, m.data, 8);
      NODE_CHECK(v == got.load() + 1);
      got.store(v);
    });
    f.start();
    NODE_CHECK(!f.in_handler());
    if (f.rank() == 0) {
      for (uint64_t i = 0; i < kRounds; ++i) {
        f.send(1, 1, &i, 8);
        f.wait([&] { return got.load() == i + 1; });
      }
    } else {
      f.wait([&] { return got.load() == kRounds; });
    }
    f.barrier();
    f.stop();
  }));
}

TEST_P(ShmFabricMessages, ToSelf) {
  expect_all_ok(run_nodes(1, GetParam(), [](ShmFabric &f) {
    std::atomic<uint64_t> small{0}, forwarded{0}, big{0};
    const size_t kBig = 10u << 20;  // more than the ring holds
    f.set_handler(1, [&](const Message &m) {
      uint64_t v;
      NODE_CHECK(m.src == 0 && m.len == 8);
      memcpy(&v, m.data, 8);
      NODE_CHECK(v == small.load());
      small.store(v + 1);
      f.send(0, 2, &v, 8);  // to itself, from a handler
    });
    f.set_handler(2, [&](const Message &m) {
      uint64_t v;
      memcpy(&v, m.data, 8);
      NODE_CHECK(v == forwarded.load());
      forwarded.store(v + 1);
    });
    f.set_handler(3, [&](const Message &m) {
      NODE_CHECK(m.len == kBig && matches(m.data, m.len, 3));
      big.fetch_add(1);
    });
    f.start();
    for (uint64_t i = 0; i < 100; ++i) f.send(0, 1, &i, 8);
    std::vector<uint8_t> data(kBig);
    fill(data, 3);
    f.send(0, 3, data.data(), data.size());
    f.send(0, 3, data.data(), data.size());
    f.wait([&] { return small.load() == 100 && forwarded.load() == 100 && big.load() == 2; });
    f.barrier();
    f.stop();
  }));
}

TEST_P(ShmFabricMessages, OrderFromOneSender) {
  constexpr uint64_t kCount = 1000;
  expect_all_ok(run_nodes(2, GetParam(), [](ShmFabric &f) {
    std::atomic<uint64_t> next{0};
    f.set_handler(5, [&](const Message &m) {
      uint64_t seq;
      NODE_CHECK(m.len >= 8);
      memcpy(&seq, m.data, 8);
      NODE_CHECK(seq == next.load());
      NODE_CHECK(m.len == 8 + (seq * 37) % 5000);
      NODE_CHECK(matches(static_cast<const uint8_t *>(m.data) + 8, m.len - 8, seq));
      next.store(seq + 1);
    });
    f.start();
    if (f.rank() == 1) {
      std::vector<uint8_t> body(5000);
      for (uint64_t seq = 0; seq < kCount; ++seq) {
        body.resize((seq * 37) % 5000);
        fill(body, seq);
        iovec v[2] = {{&seq, 8}, {body.data(), body.size()}};
        f.sendv(0, 5, v, 2);
      }
    } else {
      f.wait([&] { return next.load() == kCount; });
    }
    f.barrier();
    f.stop();
  }));
}

TEST_P(ShmFabricMessages, LargeMessageArrivesIntact) {
  expect_all_ok(run_nodes(2, GetParam(), [](ShmFabric &f) {
    const size_t kBytes = 3u << 20;
    std::atomic<int> got{0};
    f.set_handler(7, [&](const Message &m) {
      NODE_CHECK(m.src == 0 && m.type == 7);
      NODE_CHECK(m.len == kBytes);
      NODE_CHECK(matches(m.data, m.len, 77));
      got.fetch_add(1);
    });
    NODE_CHECK(kBytes > f.max_fragment());
    f.start();
    if (f.rank() == 0) {
      std::vector<uint8_t> data(kBytes);
      fill(data, 77);
      uint64_t sent = rdsm::stats().messages_sent.load(), bytes = rdsm::stats().message_bytes.load();
      // Odd-sized pieces so that fragments and pieces do not line up.
      iovec v[3] = {{data.data(), 12345}, {data.data() + 12345, 1u << 20}, {data.data() + 12345 + (1u << 20), 0}};
      v[2].iov_len = kBytes - v[0].iov_len - v[1].iov_len;
      f.sendv(1, 7, v, 3);
      f.send(1, 7, data.data(), data.size());
      NODE_CHECK(rdsm::stats().messages_sent.load() - sent == 2);
      NODE_CHECK(rdsm::stats().message_bytes.load() - bytes == 2 * kBytes);
    } else {
      f.wait([&] { return got.load() == 2; });
    }
    f.barrier();
    f.stop();
  }));
}

TEST_P(ShmFabricMessages, ManySendersToOneReceiver) {
  constexpr int kNodes = 4, kThreads = 2, kPerThread = 1500;
  expect_all_ok(run_nodes(kNodes, GetParam(), [](ShmFabric &f) {
    struct Head {
      uint32_t thread;
      uint32_t seq;
    };
    std::vector<uint32_t> next(kNodes * kThreads, 0);
    std::atomic<int> total{0};
    f.set_handler(3, [&](const Message &m) {
      Head h;
      NODE_CHECK(m.len >= sizeof h);
      memcpy(&h, m.data, sizeof h);
      NODE_CHECK(h.thread < (uint32_t)kThreads);
      uint32_t &n = next[m.src * kThreads + h.thread];
      NODE_CHECK(h.seq == n);
      NODE_CHECK(m.len == sizeof h + (h.seq * 13) % 2048);
      NODE_CHECK(matches(static_cast<const uint8_t *>(m.data) + sizeof h, m.len - sizeof h, h.seq + m.src));
      ++n;
      total.fetch_add(1);
    });
    f.start();
    if (f.rank() != 0) {
      std::vector<std::thread> ts;
      for (uint32_t t = 0; t < (uint32_t)kThreads; ++t)
        ts.emplace_back([&f, t] {
          std::vector<uint8_t> msg;
          for (uint32_t seq = 0; seq < (uint32_t)kPerThread; ++seq) {
            msg.resize(sizeof(Head) + (seq * 13) % 2048);
            Head h{t, seq};
            memcpy(msg.data(), &h, sizeof h);
            for (size_t i = sizeof h; i < msg.size(); ++i) msg[i] = pattern(seq + f.rank(), i - sizeof h);
            f.send(0, 3, msg.data(), msg.size());
          }
        });
      for (auto &t : ts) t.join();
    } else {
      f.wait([&] { return total.load() == (kNodes - 1) * kThreads * kPerThread; });
    }
    f.barrier();
    f.stop();
  }));
}

// Both nodes send more than a ring holds to each other before either waits.
TEST_P(ShmFabricMessages, FloodBothWays) {
  constexpr int kMessages = 24;
  expect_all_ok(run_nodes(2, GetParam(), [](ShmFabric &f) {
    std::atomic<int> got{0};
    f.set_handler(4, [&](const Message &m) {
      NODE_CHECK(m.len == (1u << 20) && matches(m.data, m.len, (uint64_t)got.load() + m.src));
      got.fetch_add(1);
    });
    f.start();
    std::vector<uint8_t> data(1u << 20);
    for (int i = 0; i < kMessages; ++i) {
      fill(data, (uint64_t)i + f.rank());
      f.send(1 - f.rank(), 4, data.data(), data.size());
    }
    f.wait([&] { return got.load() == kMessages; });
    f.barrier();
    f.stop();
  }));
}

// Handlers of both nodes send more than a ring holds to each other at once.
TEST_P(ShmFabricMessages, HandlersFloodEachOther) {
  constexpr int kMessages = 12;
  expect_all_ok(run_nodes(2, GetParam(), [](ShmFabric &f) {
    std::atomic<int> got{0};
    f.set_handler(1, [&](const Message &m) {
      NODE_CHECK(f.in_handler());
      std::vector<uint8_t> data(1u << 20);
      for (int i = 0; i < kMessages; ++i) {
        fill(data, (uint64_t)i);
        f.send(m.src, 2, data.data(), data.size());
      }
    });
    f.set_handler(2, [&](const Message &m) {
      NODE_CHECK(m.len == (1u << 20) && matches(m.data, m.len, (uint64_t)got.load()));
      got.fetch_add(1);
    });
    f.start();
    f.send(1 - f.rank(), 1, nullptr, 0);
    f.wait([&] { return got.load() == kMessages; });
    f.barrier();
    f.stop();
  }));
}

// As above, while the main thread of each node floods the same ring: the
// handler then also waits for the ring's lock.
TEST_P(ShmFabricMessages, HandlersAndMainThreadsFloodEachOther) {
  constexpr int kMessages = 10;
  expect_all_ok(run_nodes(2, GetParam(), [](ShmFabric &f) {
    std::atomic<int> got{0};
    auto flood = [&f](NodeId to, uint64_t first) {
      std::vector<uint8_t> data(1u << 20);
      for (uint64_t i = first; i < first + kMessages; ++i) {
        fill(data, i);
        memcpy(data.data(), &i, 8);
        f.send(to, 2, data.data(), data.size());
      }
    };
    f.set_handler(1, [&](const Message &m) { flood(m.src, 1000); });
    f.set_handler(2, [&](const Message &m) {
      uint64_t seed;
      NODE_CHECK(m.len == (1u << 20));
      memcpy(&seed, m.data, 8);
      const uint8_t *b = static_cast<const uint8_t *>(m.data);
      for (size_t i = 8; i < m.len; ++i) NODE_CHECK(b[i] == pattern(seed, i));
      got.fetch_add(1);
    });
    f.start();
    f.send(1 - f.rank(), 1, nullptr, 0);
    flood(1 - f.rank(), 0);
    f.wait([&] { return got.load() == 2 * kMessages; });
    f.barrier();
    f.stop();
  }));
}

// poll() delivers what has arrived without waiting (in interrupt mode the
// handler thread does), so a node that never waits still answers its peers.
TEST_P(ShmFabricMessages, PollDeliversWithoutWaiting) {
  expect_all_ok(run_nodes(2, GetParam(), [](ShmFabric &f) {
    std::atomic<int> got{0};
    f.set_handler(1, [&](const Message &m) {
      got.fetch_add(1);
      if (f.rank() == 0) f.send(m.src, 1, nullptr, 0);  // answered from inside poll()
    });
    f.start();
    f.barrier();
    if (f.rank() == 1) {
      f.send(0, 1, nullptr, 0);
      f.wait([&] { return got.load() == 1; });
    } else {
      for (int i = 0; i < 20000 && got.load() == 0; ++i) {
        f.poll();
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      }
      NODE_CHECK(got.load() == 1);
    }
    f.barrier();
    f.stop();
  }));
}

// signal_safe() holds only while a handler thread delivers.
TEST(ShmFabricModes, SignalSafeOnlyWithHandlerThread) {
  for (HandlerMode mode : {HandlerMode::interrupt, HandlerMode::poll, HandlerMode::signal, HandlerMode::spin}) {
    expect_all_ok(run_nodes(1, mode, [mode](ShmFabric &f) {
      NODE_CHECK(!f.signal_safe() && f.one_sided_signal_safe());
      f.start();
      NODE_CHECK(f.signal_safe() == rdsm::handler_thread_delivers(mode));
      NODE_CHECK(f.handler_mode() == mode && !strcmp(f.name(), "shm") && f.nodes() == 1 && f.rank() == 0);
      f.poll();
      f.stop();
      NODE_CHECK(!f.signal_safe());
    }));
  }
}

TEST_P(ShmFabricMessages, NotifyWakesWaiter) {
  expect_all_ok(run_nodes(1, GetParam(), [](ShmFabric &f) {
    f.start();
    std::atomic<bool> flag{false};
    std::thread t([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      flag.store(true);
      f.notify();
    });
    f.wait([&] { return flag.load(); });
    t.join();
    f.stop();
    // Barrier and notify still work after stop.
    f.barrier();
    f.notify();
  }));
}

// Signal mode: a node that computes, never calling the fabric, still answers,
// from the message signal's handler, and the handlers' allocations and locks
// do not meet the computation's: it allocates and frees in a loop (so the
// signal often lands inside malloc, where the handler must defer) while two
// peers send it requests whose handler allocates, and its heap stays sound.
TEST(ShmFabricModes, SignalServesNodeComputingWithMalloc) {
  constexpr int kRequests = 1000;
  expect_all_ok(run_nodes(3, HandlerMode::signal, [](ShmFabric &f) {
    std::atomic<int> answered{0}, finished{0};
    f.set_handler(1, [&](const Message &m) {  // request: answered with a copy from the heap
      std::vector<uint8_t> copy(static_cast<const uint8_t *>(m.data), static_cast<const uint8_t *>(m.data) + m.len);
      copy.resize(copy.size() + 64, 0x5a);
      f.send(m.src, 2, copy.data(), copy.size());
    });
    f.set_handler(2, [&](const Message &m) {
      NODE_CHECK(m.len == 8 + 64 && static_cast<const uint8_t *>(m.data)[8] == 0x5a);
      answered.fetch_add(1);
    });
    f.set_handler(3, [&](const Message &) { finished.fetch_add(1); });
    f.start();
    f.barrier();
    if (f.rank() == 0) {
      // The program's own loop, with the heap busy: never a call into the fabric.
      std::vector<char *> live(64, nullptr);
      uint64_t x = 88172645463325252ull, rounds = 0;
      while (finished.load(std::memory_order_acquire) < 2) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t slot = x % live.size(), bytes = 16 + (x >> 20) % 4000;
        if (live[slot]) {
          NODE_CHECK(live[slot][0] == (char)slot);
          free(live[slot]);
        }
        live[slot] = static_cast<char *>(malloc(bytes));
        memset(live[slot], (int)slot, bytes);
        ++rounds;
      }
      for (char *p : live) free(p);
      NODE_CHECK(rounds > 0);
    } else {
      for (uint64_t i = 0; i < (uint64_t)kRequests; ++i) {
        f.send(0, 1, &i, 8);
        f.wait([&] { return answered.load() == (int)i + 1; });
      }
      f.send(0, 3, nullptr, 0);
    }
    f.barrier();
    f.stop();
  }));
}

// Two threads wait at once on one node (poll mode: one of them runs the
// handlers, the other must still be woken).
TEST_P(ShmFabricMessages, TwoWaitingThreads) {
  constexpr uint64_t kRounds = 300;
  expect_all_ok(run_nodes(2, GetParam(), [](ShmFabric &f) {
    std::atomic<uint64_t> got[2] = {0, 0};
    std::atomic<uint64_t> requests{0};
    f.set_handler(1, [&](const Message &m) {  // request: echo it back
      requests.fetch_add(1);
      f.send(m.src, 2, m.data, m.len);
    });
    f.set_handler(2, [&](const Message &m) {
      uint64_t v;
      memcpy(&v, m.data, 8);
      got[v & 1].fetch_add(1);
    });
    f.start();
    if (f.rank() == 0) {
      std::vector<std::thread> ts;
      for (uint64_t t = 0; t < 2; ++t)
        ts.emplace_back([&, t] {
          for (uint64_t i = 0; i < kRounds; ++i) {
            uint64_t v = i * 2 + t;
            f.send(1, 1, &v, 8);
            f.wait([&] { return got[t].load() == i + 1; });
          }
        });
      for (auto &t : ts) t.join();
    } else {
      f.wait([&] { return requests.load() == 2 * kRounds; });
    }
    f.barrier();
    f.stop();
  }));
}

}  // namespace
