// Timeline trace (`rdsm run --trace FILE`, RDSM_TRACE=FILE): what each
// thread of each node did and when — faults, fetches, releases, lock and
// barrier waits, handler runs, messages — for Chrome's trace viewer and
// Perfetto.
//
// Recording must cost nothing when off and little when on, and must work
// inside the fault signal handler: every thread appends fixed-size records
// to its own slot of one buffer mapped when the node starts (no allocation,
// no lock; claiming a slot is one atomic increment).  When the node leaves
// the runtime it appends its records to FILE.part.RANK; whoever ends the job
// (the launcher, or node 0 when there is none) turns the parts into FILE as
// trace-event JSON and removes them (trace_json.cpp).
//
// Messages are drawn as flow arrows from send to handler.  Neither end sends
// an id: the k-th message a node sends to a peer is the k-th message that
// peer takes from it, since every fabric keeps the messages between two
// nodes in order, so both ends count them.
#pragma once
#include <cstdint>
#include <string>

#include "common/clock.hpp"

namespace rdsm::trace {

enum class Kind : uint8_t {
  read_fault,        // a: page
  write_fault,       // a: page
  fetch,             // a: page, b: home, c: pages brought
  release,           // a: diffs sent, c: diff bytes
  acquire,           // notices taken at an acquire
  lock,              // a: lock id, flags: 1 when acquired
  barrier_wait,      // waiting for the other nodes
  barrier_protocol,  // making memory coherent after it
  handler,           // a: bytes, b: source node, flags: message type, c: flow id
  send,              // a: bytes, b: destination, flags: message type, c: flow id
  stats_reset,       // the statistics start again here (rdsm_reset_stats)
  stats_read,        // the program read its statistics (rdsm_get_stats): where it stops its clock
  ops,               // one-sided operations to one peer since the last record: a: how many, b: the peer,
                     // c: bytes read or written, flags: OpClass
  unlock,            // a: lock id; the release it makes and handing the lock on
  count
};

// What a one-sided operation costs a network, for `rdsm sim`: a round trip
// carrying a word back, a round trip carrying data back, a posted write, or
// a batch (Fabric::batch: its operations' posting, then one round trip
// carrying what they read back; one record per batch).
enum class OpClass : uint8_t { atomic, get, put, batch };

struct Event {
  uint64_t t0;   // ns, monotonic clock
  uint64_t dur;  // ns
  uint64_t c;
  uint32_t a;
  uint16_t b;
  uint8_t kind;
  uint8_t flags;
};
static_assert(sizeof(Event) == 32);

namespace detail {
extern bool g_on;
void append(const Event &e);
void tally_op(int peer, OpClass k, uint64_t bytes);
void flush_ops(uint64_t at);
void record_batch(int peer, uint32_t ops, uint64_t bytes);
}  // namespace detail

inline bool on() { return detail::g_on; }

// Async-signal-safe.  t1 < t0 is taken as an instant.  The one-sided
// operations counted since the last record are written first, as `ops`
// records inside this one (just before its end), so that each span holds
// the operations it made (a fault's fetch its reads, a release its diffs).
inline void record(Kind k, uint64_t t0, uint64_t t1, uint32_t a = 0, uint16_t b = 0, uint64_t c = 0,
                   uint8_t flags = 0) {
  if (!detail::g_on) return;
  if (k != Kind::send) detail::flush_ops(t1 > t0 ? t1 - 1 : t0 - 1);
  detail::append(Event{t0, t1 > t0 ? t1 - t0 : 0, c, a, b, (uint8_t)k, flags});
}

// A one-sided operation of the calling thread to another node (the fabric
// calls it; async-signal-safe).  Counted per peer and class, and written
// at the thread's next record.
inline void count_op(int peer, OpClass k, uint64_t bytes) {
  if (detail::g_on) detail::tally_op(peer, k, bytes);
}

// A batch of `ops` operations to another node with `bytes` carried back:
// written at once, after the operations counted before it, as a record of
// its own (its operations share one round trip; async-signal-safe).
inline void count_batch(int peer, uint32_t ops, uint64_t bytes) {
  if (detail::g_on) detail::record_batch(peer, ops, bytes);
}

// The start time of a span, or 0 when tracing is off (no clock read).
inline uint64_t start() { return detail::g_on ? now_ns() : 0; }

// A span from construction to destruction, with its arguments filled in
// meanwhile.  Nothing when tracing is off.
struct Span {
  explicit Span(Kind k, uint32_t a = 0) : kind(k), a(a), t0(start()) {}
  ~Span() { record(kind, t0, on() ? now_ns() : 0, a, b, c, flags); }
  Span(const Span &) = delete;
  Span &operator=(const Span &) = delete;
  Kind kind;
  uint32_t a;
  uint16_t b = 0;
  uint64_t c = 0;
  uint8_t flags = 0;
  uint64_t t0;
};

// Message ends (called in the fabric's order of messages to / from `peer`).
void sent(int peer, uint8_t type, uint64_t bytes);
void handled(int peer, uint8_t type, uint64_t bytes, uint64_t t0, uint64_t t1);

// Names the calling thread in the trace ("compute", "handler", ...): a
// string that lives for ever.
void name_thread(const char *name);

// The node's fabric counts its one-sided operations (count_op, count_batch):
// the trace says so, so that a replay can tell a node that made none from a
// fabric that records none.  Called after begin_node.
void operations_recorded();

// A node of a job starts (rank of nodes); an empty path: no trace.  Called
// before the node's threads start; a forked process starts afresh.
void begin_node(const std::string &path, int rank, int nodes);
// Appends what was recorded since begin_node (or the last call) to the
// node's part file.  Returns false, with a message on stderr, on failure.
bool end_node();

// FILE.part.* -> FILE (trace-event JSON), then removes the parts; also when
// the job failed (what it did until then is the point).  Returns false,
// with a message on stderr, when FILE cannot be written; with no part at
// all writes nothing and returns true.
bool merge_parts(const std::string &path);
// Removes FILE.part.* (a job that could not merge them).
void remove_parts(const std::string &path);

}  // namespace rdsm::trace
