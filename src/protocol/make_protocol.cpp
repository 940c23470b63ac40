#include "protocol/hlrc.hpp"
#include "protocol/protocol.hpp"
#include "protocol/sc.hpp"

namespace rdsm {

std::unique_ptr<Protocol> make_protocol(fabric::Fabric &f, const Options &opt, const ProtocolConfig &cfg) {
  if (cfg.consistency == ConsistencyModel::sequential) return std::make_unique<Sc>(f, opt, cfg);
  return std::make_unique<Hlrc>(f, opt, cfg);
}

}  // namespace rdsm
