// The messages of the sequentially consistent protocol (sc.hpp), and the
// outbox a step of it fills while it holds the node's protocol lock.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fabric/fabric.hpp"

namespace rdsm::sc {

// The protocol layer's types start at 16 (the release-consistency engine's
// first); these sit apart from them, since either engine may add types.
constexpr fabric::MsgType kRequest = 40;  // requestor -> manager: a fault
constexpr fabric::MsgType kOrder = 41;    // manager -> server: what to do for a request
constexpr fabric::MsgType kReply = 42;    // server or manager -> requestor: one of the answers it waits for
constexpr fabric::MsgType kAck = 43;      // requestor -> manager: the request is done, take the next one

enum Access : uint8_t { kNone = 0, kRead = 1, kWrite = 2 };

// What the manager orders a server to do for a requestor.
enum Op : uint8_t {
  kServeRead = 0,     // the owner: send a copy, keep read access only
  kTransfer = 1,      // the owner: hand the page over (send the copy) and drop it
  kTransferBare = 2,  // the owner: hand the page over, no copy (the requestor holds a valid one), drop it
  kInvalidate = 3,    // a reader: drop the copy
};

struct RequestMsg {
  uint32_t page;
  uint8_t write;
};
// The bytes of its data page a coherence unit covers: the whole page, or a
// minipage's slot (memory/minipage_views.hpp).  A minipage moves only its
// own bytes: the rest of the data page belongs to other minipages, which
// other nodes may hold.
struct Extent {
  uint16_t offset;
  uint16_t bytes;
};
// A minipage's extent word at its manager: offset << 16 | bytes.
inline Extent extent_of_word(uint32_t word) { return {(uint16_t)(word >> 16), (uint16_t)(word & 0xffff)}; }

struct OrderMsg {
  uint32_t page;
  int32_t requestor;
  uint32_t expect;  // how many replies the requestor waits for, this one among them
  uint8_t op;
  uint8_t access;   // what the requestor gets once it has them all
  Extent extent;    // what to send, if anything
};
struct ReplyMsg {
  uint32_t page;
  uint32_t expect;
  uint8_t access;
  uint8_t has_data;  // extent.bytes of the page's contents follow the header
  // fetch=one-sided: the server wrote the contents into the requestor's
  // copy before this reply (placed), or the manager names the owner whose
  // read-only copy the requestor reads itself (read_from: node + 1).
  uint8_t placed;
  Extent extent;
  int32_t read_from;
};
struct AckMsg {
  uint32_t page;
};

// One message to send: a header of one of the types above and, for a
// reply with data, the bytes it copies (read when the message is sent), or
// writes one-sided at put_at in the destination's data segment first.
struct Outgoing {
  static constexpr size_t kMaxHead = 24;
  static constexpr uint64_t kNoPut = UINT64_MAX;
  int dst;
  fabric::MsgType type;
  uint8_t head[kMaxHead];
  uint8_t head_len;
  const uint8_t *data;
  size_t data_bytes;
  uint64_t put_at;
};

// Messages are gathered under the protocol lock and sent once it is
// released: a send may wait for room in a ring, which must not happen while
// holding what this node's handlers need.
class Outbox {
 public:
  template <class Msg>
  void post(int dst, fabric::MsgType type, const Msg &m, const uint8_t *data = nullptr, size_t data_bytes = 0,
            uint64_t put_at = Outgoing::kNoPut) {
    static_assert(sizeof(Msg) <= Outgoing::kMaxHead);
    Outgoing o{dst, type, {}, (uint8_t)sizeof(Msg), data, data ? data_bytes : 0, data ? put_at : Outgoing::kNoPut};
    memcpy(o.head, &m, sizeof m);
    items_.push_back(o);
  }
  std::vector<Outgoing> &items() { return items_; }

 private:
  std::vector<Outgoing> items_;
};

// A header of type Msg at the start of a message of `len` bytes, or false.
template <class Msg>
bool read_head(const void *data, size_t len, Msg *out) {
  if (len < sizeof(Msg)) return false;
  memcpy(out, data, sizeof(Msg));
  return true;
}

}  // namespace rdsm::sc
