#include "protocol/presets.hpp"

namespace rdsm {

const std::vector<ProtocolConfig> &protocol_presets() {
  using F = FetchAxis;
  using H = HomeClaimAxis;
  using D = DiffAxis;
  using L = LockAxis;
  using N = NoticeAxis;
  using B = BarrierAxis;
  static const std::vector<ProtocolConfig> presets = {
      {"async", F::message, H::message, D::message, L::manager, N::lazy, B::manager,
       "home-based lazy release consistency over request/response messages (HLRC baseline)"},
      {"ardmar", F::one_sided, H::cas, D::message, L::manager, N::lazy, B::manager,
       "page fetch by remote compare-and-swap and one-sided read of page and version (NEWGENDSM ARDMAR)"},
      {"draw", F::message, H::message, D::one_sided, L::manager, N::lazy, B::manager,
       "diffs written one-sided into the home's copy, version per page right after (NEWGENDSM DRAW)"},
      {"newgen", F::one_sided, H::cas, D::one_sided, L::manager, N::lazy, B::manager,
       "ARDMAR fetch and DRAW diffs together (NEWGENDSM)"},
      {"genima", F::one_sided, H::cas, D::one_sided, L::atomic, N::eager_push, B::atomic,
       "remote fetch, direct diffs, remote-atomic locks, notices pushed at release, atomic barrier (GeNIMA)"},
  };
  return presets;
}

const ProtocolConfig *find_protocol(const std::string &name) {
  for (const auto &p : protocol_presets())
    if (p.name == name) return &p;
  return nullptr;
}

std::string protocol_names() {
  std::string s;
  for (const auto &p : protocol_presets()) {
    if (!s.empty()) s += ", ";
    s += p.name;
  }
  return s;
}

}  // namespace rdsm
