// The manager of the pages p with p % nodes == this node: it knows each
// page's owner (its owner word) and readers, and serves the page's
// requests one at a time, in their order of arrival.  A request starts by
// deciding who answers the requestor and how many answers it must wait
// for; it ends with the requestor's acknowledgement, which starts the next.
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
  auto it = waiting_.find(a.page);
  if (it == waiting_.end()) return;
  Waiting next = it->second.front();
  it->second.pop_front();
  if (it->second.empty()) waiting_.erase(it);
  start_request(next.requestor, a.page, next.write, out);
}

void Sc::start_request(int requestor, uint32_t page, bool write, sc::Outbox &out) {
  busy_[page / nodes_] = 1;
  uint64_t *set = readers(page);
  const uint64_t word = owner_word(page).load(std::memory_order_acquire);
  const int owner = owner_in(word);
  auto set_owner = [&](int node, bool read_only) {
    owner_word(page).store(((uint64_t)node + 1) | (read_only ? kOwnerReadOnly : 0), std::memory_order_release);
  };
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
  for (size_t w = 0; w < reader_words_; ++w) others += (uint32_t)__builtin_popcountll(set[w]);
  if (has(set, requestor)) --others;

  if (owner < 0) {
    // Nobody has touched the page: the first to do so owns it, writable
    // (its copy, never written by anyone, is the page's zeroes).
    set_owner(requestor, false);
    answer(sc::kWrite);
    return;
  }
  if (!write) {
    if (owner == requestor || has(set, requestor)) {
      // It holds a valid copy already (its fault raced with nothing this
      // manager knows of): it may read, and write if it is alone.
      const bool alone = owner == requestor && others == 0;
      if (alone) set_owner(owner, false);
      answer(alone ? sc::kWrite : sc::kRead);
      return;
    }
    put_in(set, requestor);
    if (one_sided_ && (word & kOwnerReadOnly)) {
      answer(sc::kRead, owner);  // RDMA-R: the owner's read-only copy is read where it is (sc.hpp)
      return;
    }
    set_owner(owner, true);
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
  set_owner(requestor, false);
}

}  // namespace rdsm
