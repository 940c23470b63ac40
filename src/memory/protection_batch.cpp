#include "memory/protection_batch.hpp"

#include <algorithm>

namespace rdsm {

std::vector<ProtectionBatch::Run> ProtectionBatch::runs() {
  std::vector<Run> out;
  // Stable sort keeps the order of changes to one page, so the last wins.
  std::stable_sort(changes_.begin(), changes_.end(),
                   [](const Change &a, const Change &b) { return a.page < b.page; });
  for (size_t i = 0; i < changes_.size(); ++i) {
    if (i + 1 < changes_.size() && changes_[i + 1].page == changes_[i].page) continue;  // superseded
    const Change &c = changes_[i];
    if (!out.empty() && out.back().prot == c.prot && out.back().first + out.back().count == c.page)
      ++out.back().count;
    else
      out.push_back({c.page, 1, c.prot});
  }
  changes_.clear();
  return out;
}

void ProtectionBatch::move_to(ProtectionBatch &to) {
  to.changes_.insert(to.changes_.end(), changes_.begin(), changes_.end());
  changes_.clear();
}

size_t ProtectionBatch::apply() {
  auto rs = runs();
  // Runs to none separated by pages that are inaccessible already become
  // one change: a node dropping every other pair of pages of a range (the
  // copies it had read of another node's rows) makes one call, not one per
  // pair.  Gaps are bounded so that the check stays cheap.
  constexpr size_t kMaxBridgedGap = 256;
  size_t out = 0;
  for (size_t i = 0; i < rs.size(); ++i) {
    if (out > 0) {
      Run &last = rs[out - 1];
      const size_t gap_first = last.first + last.count, gap = rs[i].first - gap_first;
      if (last.prot == Prot::none && rs[i].prot == Prot::none && gap <= kMaxBridgedGap &&
          region_.inaccessible(gap_first, gap)) {
        last.count += gap + rs[i].count;
        continue;
      }
    }
    rs[out++] = rs[i];
  }
  rs.resize(out);
  for (const Run &r : rs) region_.protect(r.first, r.count, r.prot);
  return rs.size();
}

}  // namespace rdsm
