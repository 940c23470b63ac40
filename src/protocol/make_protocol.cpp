#include "protocol/hlrc.hpp"
#include "protocol/protocol.hpp"

namespace rdsm {

std::unique_ptr<Protocol> make_protocol(fabric::Fabric &f, const Options &opt, const ProtocolConfig &cfg) {
  return std::make_unique<Hlrc>(f, opt, cfg);
}

}  // namespace rdsm
