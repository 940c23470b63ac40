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

size_t ProtectionBatch::apply() {
  auto rs = runs();
  for (const Run &r : rs) region_.protect(r.first, r.count, r.prot);
  return rs.size();
}

}  // namespace rdsm
