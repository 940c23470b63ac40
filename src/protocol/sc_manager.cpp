// The manager of the pages p with p % nodes == this node: it knows each
// page's owner (its owner word) and readers, and serves the page's
// requests one at a time, in their order of arrival.  A request starts by
// deciding who answers the requestor and how many answers it must wait
// for; it ends with the requestor's acknowledgement, which starts the next.
#include <sched.h>

#include "common/bits.hpp"
#include "common/error.hpp"
#include "protocol/sc.hpp"

namespace rdsm {

namespace {
bool has(const uint64_t *set, int node) { return (set[node / 64] >> (node % 64)) & 1; }
void put_in(uint64_t *set, int node) { set[node / 64] |= uint64_t(1) << (node % 64); }
}  // namespace

void Sc::on_request(int requestor, const sc::RequestMsg &r, sc::Outbox &out) {
  if (busy_[r.page / nodes_]) {
    waiting_[r.page].push_back({requestor, r.write != 0});
    return;
  }
  start_request(requestor, r.page, r.write != 0, out);
}

void Sc::on_ack(int requestor, const sc::AckMsg &a, sc::Outbox &out) {
  if (!busy_[a.page / nodes_])
    fatal("internal error: node %d acknowledged page %u, which has no request in progress", requestor, a.page);
  busy_[a.page / nodes_] = 0;
  release_owner_word(a.page);
  auto it = waiting_.find(a.page);
  if (it == waiting_.end()) return;
  Waiting next = it->second.front();
  it->second.pop_front();
  if (it->second.empty()) waiting_.erase(it);
  start_request(next.requestor, a.page, next.write, out);
}

uint64_t Sc::claim_owner_word(uint32_t page) {
  const uint64_t off = owner_offset(page);
  uint64_t w = f_.atomic_load(self_, owner_seg_.id, off);
  for (;;) {
    if (w & kInRequest) fatal("internal error: page %u has two requests in progress", page);
    if (w & kReadingOneSided) {
      // A faulting thread is reading the owner's copy: a few microseconds,
      // and it waits for nobody.
      sched_yield();
      w = f_.atomic_load(self_, owner_seg_.id, off);
      continue;
    }
    const uint64_t seen = f_.cas(self_, owner_seg_.id, off, w, (w & (kOwnerField | kOwnerReadOnly)) | kInRequest);
    if (seen == w) break;
    w = seen;
  }
  uint64_t *set = readers(page);
  for (int n = 0; n < nodes_ && n < kMaxOneSidedNodes; ++n)
    if (w & one_sided_reader(n)) put_in(set, n);
  return w;
}

void Sc::set_owner(uint32_t page, int node, bool read_only) {
  // The request holds the word: nobody else changes it meanwhile.
  const uint64_t off = owner_offset(page);
  const uint64_t now = f_.atomic_load(self_, owner_seg_.id, off);
  const uint64_t next = ((uint64_t)node + 1) | (read_only ? kOwnerReadOnly : 0) | kInRequest;
  if (!(now & kInRequest) || (now & ~(kOwnerField | kOwnerReadOnly | kInRequest)) ||
      f_.cas(self_, owner_seg_.id, off, now, next) != now)
    fatal("internal error: the owner word of page %u changed during its request", page);
}

void Sc::release_owner_word(uint32_t page) {
  f_.fetch_add(self_, owner_seg_.id, owner_offset(page), (uint64_t)0 - kInRequest);
}

void Sc::start_request(int requestor, uint32_t page, bool write, sc::Outbox &out) {
  busy_[page / nodes_] = 1;
  uint64_t *set = readers(page);
  const uint64_t word = claim_owner_word(page);
  const int owner = owner_in(word);
  // The manager answers alone: the access, and with fetch=one-sided maybe
  // the node whose read-only copy the requestor reads itself.
  auto answer = [&](sc::Access access, int read_from = -1) {
    sc::ReplyMsg r{};
    r.page = page;
    r.expect = 1;
    r.access = access;
    if (read_from >= 0) {
      r.extent = extent(page);
      r.read_from = read_from + 1;
    }
    out.post(requestor, sc::kReply, r);
  };
  auto order = [&](int server, sc::Op op, uint32_t expect, sc::Access access) {
    sc::OrderMsg o{};
    o.page = page;
    o.requestor = requestor;
    o.expect = expect;
    o.op = op;
    o.access = access;
    o.extent = extent(page);
    out.post(server, sc::kOrder, o);
  };
  uint32_t others = 0;  // readers besides the requestor
  for (size_t w = 0; w < reader_words_; ++w) others += count_bits(set[w]);
  if (has(set, requestor)) --others;

  if (owner < 0) {
    // Nobody has touched the page: the first to do so owns it, writable
    // (its copy, never written by anyone, is the page's zeroes).
    set_owner(page, requestor, false);
    answer(sc::kWrite);
    return;
  }
  if (!write) {
    if (owner == requestor || has(set, requestor)) {
      // It holds a valid copy already (its fault raced with nothing this
      // manager knows of): it may read, and write if it is alone.
      const bool alone = owner == requestor && others == 0;
      if (alone) set_owner(page, owner, false);
      answer(alone ? sc::kWrite : sc::kRead);
      return;
    }
    put_in(set, requestor);
    if (one_sided_ && (word & kOwnerReadOnly)) {
      answer(sc::kRead, owner);  // RDMA-R: the owner's read-only copy is read where it is (sc.hpp)
      return;
    }
    set_owner(page, owner, true);
    order(owner, sc::kServeRead, 1, sc::kRead);
    return;
  }
  // A write: the requestor becomes the owner and the only holder.
  const bool holds_valid = owner == requestor || has(set, requestor);
  const uint32_t expect = others + (owner != requestor ? 1 : 0);
  if (expect == 0) {
    answer(sc::kWrite);  // an upgrade of the sole copy
  } else {
    if (owner != requestor) order(owner, holds_valid ? sc::kTransferBare : sc::kTransfer, expect, sc::kWrite);
    for (int n = 0; n < nodes_; ++n)
      if (n != requestor && has(set, n)) order(n, sc::kInvalidate, expect, sc::kWrite);
  }
  for (size_t w = 0; w < reader_words_; ++w) set[w] = 0;
  set_owner(page, requestor, false);
}

}  // namespace rdsm
