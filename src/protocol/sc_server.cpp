// The server: a node holding a copy does what the page's manager ordered
// for a requestor, and answers the requestor directly.  The access changes
// before the copy is read for sending: once the application view is
// read-only (or gone), no write of this node can slip in after the copy.
// What it sends is the extent the manager named: the whole page, or a
// minipage's bytes only.
#include "common/fault_inject.hpp"
#include "protocol/sc.hpp"
#include "stats/stats.hpp"

namespace rdsm {

void Sc::on_order(const sc::OrderMsg &o, sc::Outbox &out) {
  sc::ReplyMsg r{};
  r.page = o.page;
  r.expect = o.expect;
  r.access = o.access;
  r.extent = o.extent;
  const uint8_t *data = nullptr;
  if (fast_reads_) set_voluntary(o.page, false);  // the manager has dropped kVoluntary (sc_downgrade.cpp)
  switch (o.op) {
    case sc::kServeRead:
      // The owner keeps its copy, read-only.  An owner that never touched
      // the page (placed here by another node) has its contents all the same.
      if (access(o.page) == sc::kWrite) set_access(o.page, sc::kRead);
      note_served_read(o.page);
      data = sys_bytes(o.page, o.extent);
      break;
    case sc::kTransfer:
    case sc::kTransferBare:
      set_access(o.page, sc::kNone);
      add(stats().invalidations);
      if (o.op == sc::kTransfer) data = sys_bytes(o.page, o.extent);
      break;
    case sc::kInvalidate:
      set_access(o.page, sc::kNone);
      add(stats().invalidations);
      break;
    default:
      fatal("internal error: unknown sc order %u for page %u", o.op, o.page);
  }
  if (data) {
    fault_point("fetch_serve");
    if (one_sided_) {
      // Written into the requestor's copy one-sided; the reply says so.
      r.placed = 1;
      out.post(o.requestor, sc::kReply, r, data, o.extent.bytes, data_offset(o.page, o.extent));
      return;
    }
    r.has_data = 1;
  }
  out.post(o.requestor, sc::kReply, r, data, o.extent.bytes);
}

}  // namespace rdsm
