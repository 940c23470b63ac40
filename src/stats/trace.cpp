// Recording side of the timeline trace (see trace.hpp).
#include "stats/trace.hpp"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/options.hpp"
#include "stats/trace_format.hpp"

namespace rdsm::trace {

namespace detail {
bool g_on = false;
}

namespace {

struct Slot {
  std::atomic<uint64_t> count{0};    // records appended
  uint64_t written = 0;              // of which already in the part file
  std::atomic<uint64_t> dropped{0};  // records that found the slot full
  int32_t tid = 0;
  const char *name = nullptr;
};

Slot g_slots[kMaxSlots];
std::atomic<uint32_t> g_claimed{0};     // slots handed out
std::atomic<uint64_t> g_unslotted{0};   // records of threads beyond kMaxSlots
uint32_t g_generation = 0;              // bumped by begin_node: cached slots are stale
Event *g_events = nullptr;              // kMaxSlots * kSlotEvents records, mapped once
std::string g_path;
int g_rank = 0;
bool g_ops_recorded = false;  // operations_recorded() since begin_node
std::atomic<uint32_t> g_sent_seq[kMaxNodes];
std::atomic<uint32_t> g_recv_seq[kMaxNodes];

thread_local Slot *t_slot = nullptr;
thread_local uint32_t t_generation = 0;

// The calling thread's one-sided operations since its last record, per
// peer and class: a few entries, since a span rarely talks to many peers
// (a full table is written out early).
struct OpTally {
  uint32_t count;
  uint16_t peer;
  uint8_t cls;
  uint64_t bytes;
};
constexpr int kTallies = 16;
thread_local OpTally t_tally[kTallies];
thread_local int t_tallies = 0;
thread_local uint32_t t_tally_generation = 0;

Slot *my_slot() {
  if (t_slot && t_generation == g_generation) return t_slot;
  uint32_t i = g_claimed.fetch_add(1, std::memory_order_relaxed);
  if (i >= kMaxSlots) return nullptr;
  Slot &s = g_slots[i];
  s.tid = (int32_t)syscall(SYS_gettid);
  t_slot = &s;
  t_generation = g_generation;
  return t_slot;
}

uint64_t flow_id(int src, int dst, uint32_t seq) { return (uint64_t)src << 48 | (uint64_t)dst << 32 | seq; }

bool write_all(int fd, const void *p, size_t n) {
  const char *c = static_cast<const char *>(p);
  while (n) {
    ssize_t w = write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    c += w, n -= (size_t)w;
  }
  return true;
}
}  // namespace

void detail::append(const Event &e) {
  Slot *s = my_slot();
  if (!s) {
    g_unslotted.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  uint64_t n = s->count.load(std::memory_order_relaxed);
  if (n >= kSlotEvents) {
    s->dropped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  Event *slot_events = g_events + (size_t)(s - g_slots) * kSlotEvents;
  slot_events[n] = e;
  s->count.store(n + 1, std::memory_order_release);
}

void detail::flush_ops(uint64_t at) {
  if (t_tally_generation != g_generation) {  // counted before this node's trace began
    t_tallies = 0;
    t_tally_generation = g_generation;
    return;
  }
  int n = t_tallies;
  t_tallies = 0;
  for (int i = 0; i < n; ++i) {
    const OpTally &o = t_tally[i];
    append(Event{at, 0, o.bytes, o.count, o.peer, (uint8_t)Kind::ops, o.cls});
  }
}

void detail::tally_op(int peer, OpClass k, uint64_t bytes) {
  if (t_tally_generation != g_generation) {
    t_tallies = 0;
    t_tally_generation = g_generation;
  }
  for (int i = 0; i < t_tallies; ++i) {
    OpTally &o = t_tally[i];
    if (o.peer == peer && o.cls == (uint8_t)k) {
      ++o.count;
      o.bytes += bytes;
      return;
    }
  }
  if (t_tallies == kTallies) flush_ops(now_ns());
  t_tally[t_tallies++] = OpTally{1, (uint16_t)peer, (uint8_t)k, bytes};
}

void detail::record_batch(int peer, uint32_t ops, uint64_t bytes) {
  uint64_t at = now_ns();
  flush_ops(at);
  append(Event{at, 0, bytes, ops, (uint16_t)peer, (uint8_t)Kind::ops, (uint8_t)OpClass::batch});
}

void sent(int peer, uint8_t type, uint64_t bytes) {
  if (!detail::g_on || peer < 0 || peer >= kMaxNodes) return;
  uint32_t seq = g_sent_seq[peer].fetch_add(1, std::memory_order_relaxed);
  uint64_t t = now_ns();
  record(Kind::send, t, t, (uint32_t)bytes, (uint16_t)peer, flow_id(g_rank, peer, seq), type);
}

void handled(int peer, uint8_t type, uint64_t bytes, uint64_t t0, uint64_t t1) {
  if (!detail::g_on || peer < 0 || peer >= kMaxNodes) return;
  uint32_t seq = g_recv_seq[peer].fetch_add(1, std::memory_order_relaxed);
  record(Kind::handler, t0, t1, (uint32_t)bytes, (uint16_t)peer, flow_id(peer, g_rank, seq), type);
}

void name_thread(const char *name) {
  if (!detail::g_on) return;
  if (Slot *s = my_slot()) s->name = name;
}

void begin_node(const std::string &path, int rank, int) {
  detail::g_on = false;
  g_path = path;
  g_rank = rank;
  g_ops_recorded = false;
  if (path.empty()) return;
  if (!g_events) {
    // Address space only: pages are taken as records are written.
    void *p = mmap(nullptr, sizeof(Event) * kMaxSlots * kSlotEvents, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      fprintf(stderr, "rdsm: warning: node %d: no timeline trace: cannot map its buffer: %s\n", rank, strerror(errno));
      return;
    }
    g_events = static_cast<Event *>(p);
  }
  for (Slot &s : g_slots) {
    s.count.store(0, std::memory_order_relaxed);
    s.written = 0;
    s.dropped.store(0, std::memory_order_relaxed);
    s.tid = 0;
    s.name = nullptr;
  }
  for (int i = 0; i < kMaxNodes; ++i) {
    g_sent_seq[i].store(0, std::memory_order_relaxed);
    g_recv_seq[i].store(0, std::memory_order_relaxed);
  }
  g_claimed.store(0, std::memory_order_relaxed);
  g_unslotted.store(0, std::memory_order_relaxed);
  ++g_generation;
  detail::g_on = true;
}

void operations_recorded() { g_ops_recorded = true; }

bool end_node() {
  if (!detail::g_on) return true;
  std::string part = part_path(g_path, g_rank);
  int fd = open(part.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    fprintf(stderr, "rdsm: error: node %d: cannot write its timeline trace to %s: %s\n", g_rank, part.c_str(),
            strerror(errno));
    return false;
  }
  uint32_t slots = std::min(g_claimed.load(std::memory_order_acquire), (uint32_t)kMaxSlots);
  PartHeader h{};
  h.magic = kPartMagic;
  h.rank = g_rank;
  h.pid = (int32_t)getpid();
  h.slots = slots;
  h.dropped = g_unslotted.load(std::memory_order_relaxed);
  h.flags = g_ops_recorded ? kPartOpsRecorded : 0;
  uint64_t n[kMaxSlots];
  for (uint32_t i = 0; i < slots; ++i) {
    n[i] = g_slots[i].count.load(std::memory_order_acquire);
    h.dropped += g_slots[i].dropped.load(std::memory_order_relaxed);
  }
  bool ok = write_all(fd, &h, sizeof h);
  for (uint32_t i = 0; ok && i < slots; ++i) {
    Slot &s = g_slots[i];
    PartSlot ps{};
    ps.tid = s.tid;
    ps.events = n[i] - s.written;
    snprintf(ps.name, sizeof ps.name, "%s", s.name ? s.name : "thread");
    ok = write_all(fd, &ps, sizeof ps) &&
         write_all(fd, g_events + (size_t)i * kSlotEvents + s.written, sizeof(Event) * ps.events);
    s.written = n[i];
  }
  if (close(fd) != 0) ok = false;
  if (!ok)
    fprintf(stderr, "rdsm: error: node %d: cannot write its timeline trace to %s: %s\n", g_rank, part.c_str(),
            strerror(errno));
  else if (h.dropped)
    fprintf(stderr,
            "rdsm: warning: node %d: the timeline trace lost %llu events (a thread's buffer holds %llu; trace a "
            "shorter run)\n",
            g_rank, (unsigned long long)h.dropped, (unsigned long long)kSlotEvents);
  return ok;
}

}  // namespace rdsm::trace
