// Intervals, vector timestamps and write notices.
//
// A node's execution is cut into intervals at releases; interval k of
// writer w (k = 1, 2, ...) is known by the pages w wrote in it.  A node's
// vector timestamp vc[w] is the newest interval of w it knows of.  The
// store keeps every interval the node knows that some other node may still
// lack, so a grant or a barrier can carry exactly the notices the receiver
// has not seen; after a barrier everyone knows everything before it and
// the store is emptied up to there.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <vector>

namespace rdsm {

using VClock = std::vector<uint32_t>;

struct Interval {
  uint32_t writer;
  uint32_t id;
  std::vector<uint32_t> pages;  // page numbers, some with kMaybeWritten, kWithheld or kPartlyWritten
};

// Marks a page an interval names only because its home may have written it
// while nobody held a copy (untracked home pages, hlrc.hpp): readers
// invalidate it like any other, home migration does not count it as a write.
constexpr uint32_t kMaybeWritten = 0x80000000u;
// Marks a page written in an interval a barrier closed whose diff the
// writer withheld, expecting the page's home to move to it at that barrier
// (home_migration.cpp): only a node past the barrier may count on it.
constexpr uint32_t kWithheld = 0x40000000u;
// Marks a page its writer, not its home, changed only in part in the
// interval (some 64-byte stretch left as it was; one-sided diffs, which
// compare every page): it may share the page with its home's unnoticed
// writes (home_migration.cpp's group rule).
constexpr uint32_t kPartlyWritten = 0x20000000u;
inline uint32_t notice_page(uint32_t entry) { return entry & ~(kMaybeWritten | kWithheld | kPartlyWritten); }
inline bool names_withheld_pages(const Interval &iv) {
  for (uint32_t entry : iv.pages)
    if (entry & kWithheld) return true;
  return false;
}
inline bool names_withheld_pages(const std::vector<Interval> &ivs) {
  for (const Interval &iv : ivs)
    if (names_withheld_pages(iv)) return true;
  return false;
}

// Wire format of a notice set: [u32 n][n x u32 vc][u32 count] then count x
// ([u32 writer][u32 id][u32 npages][npages x u32 page]).
struct NoticeSet {
  VClock vc;
  std::vector<Interval> intervals;

  std::vector<uint8_t> encode() const;
  // Returns false if malformed.
  bool decode(const uint8_t *p, size_t len);
};

class NoticeStore {
 public:
  explicit NoticeStore(int nodes) : vc_(nodes, 0), log_(nodes) {}

  // Records a new interval of this node (id must be vc[self] + 1).
  void add_own(int self, uint32_t id, std::vector<uint32_t> pages);
  // Learns intervals; returns those that were new to this node, in order.
  std::vector<Interval> learn(const std::vector<Interval> &intervals);
  void merge_vc(const VClock &vc);
  // Every known interval of any writer w with id > since[w]; with the vc.
  NoticeSet since(const VClock &since) const;
  // Known intervals of one writer with id > after.
  NoticeSet of_writer(int writer, uint32_t after) const;
  // Calls f(interval) for every known interval of any writer w with
  // after[w] < id <= upto[w], the store locked meanwhile.
  void visit(const VClock &after, const VClock &upto, const std::function<void(const Interval &)> &f) const;
  // Forgets intervals every node is known to have.
  void forget_up_to(const VClock &floor);

  VClock vc() const;
  uint32_t vc_of(int w) const;
  // Whether every writer but `self` is known up to target[w] (no copy of
  // the vc: a lock acquire asks this first).
  bool covers(const VClock &target, int self) const;
  // The vc into out[0..nodes).
  void copy_vc(uint32_t *out) const;

 private:
  mutable std::mutex mu_;
  VClock vc_;
  std::vector<std::deque<Interval>> log_;  // per writer, increasing id
};

// a[w] = max(a[w], b[w])
void vc_merge(VClock &a, const VClock &b);

}  // namespace rdsm
