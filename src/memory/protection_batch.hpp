// Collects page protection changes and applies them as few backend calls
// as possible: sorted by page and coalesced into runs of equal protection
// (GeNIMA's batching; seed 004's page-group primitive).  Invalidating 500
// scattered pages at an acquire costs one call per run, not per page.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "memory/region.hpp"

namespace rdsm {

class ProtectionBatch {
 public:
  explicit ProtectionBatch(SharedRegion &r) : region_(r) {}
  void set(size_t page, Prot prot) { changes_.push_back({page, prot}); }
  bool empty() const { return changes_.empty(); }
  // Applies everything collected (a later set() of a page wins) and clears.
  // Returns the number of protection calls made (runs).
  size_t apply();

  // Moves every change collected to the end of `to`, to be applied there.
  void move_to(ProtectionBatch &to);
  // Drops the changes of the pages `keep` refuses.
  template <class Keep>
  void keep_only(Keep keep) {
    std::erase_if(changes_, [&](const Change &c) { return !keep(c.page); });
  }

  // Coalescing alone, for tests: the runs apply() would issue.
  struct Run {
    size_t first, count;
    Prot prot;
  };
  std::vector<Run> runs();

 private:
  struct Change {
    size_t page;
    Prot prot;
  };
  SharedRegion &region_;
  std::vector<Change> changes_;
};

}  // namespace rdsm
