// The state of eager notices (notices=eager_push, notice_propagation.cpp):
// per writer a ring in every reader's memory, written by one-sided puts.
// This node pushes its intervals into its ring at every other node, and
// moves what the others pushed into its own segment to `pending` until an
// acquire applies it.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "fabric/fabric.hpp"
#include "protocol/notices.hpp"

namespace rdsm {

struct NoticeRings {
  fabric::Segment seg;    // the rings of every writer, in this node's memory
  size_t ring_bytes = 0;  // of one ring's data
  // Writer side, per reader: how far this node has written, and how far
  // the reader had read when last looked at (its tail only grows).
  std::vector<uint64_t> push_head, push_tail_seen;
  std::vector<uint8_t> record;  // the record being pushed (kept: no allocation per release)
  // Reader side: intervals moved out of the rings, not applied yet.
  std::mutex pending_mu;
  std::vector<Interval> pending;
  // pending holds something; read without pending_mu (set under it,
  // before the ring's tail that covers what was moved).
  std::atomic<bool> pending_any{false};
};

}  // namespace rdsm
