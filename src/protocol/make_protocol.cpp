#include "common/error.hpp"
#include "protocol/hlrc.hpp"
#include "protocol/protocol.hpp"
#include "protocol/sc.hpp"

namespace rdsm {

std::unique_ptr<Protocol> make_protocol(fabric::Fabric &f, const Options &opt, const ProtocolConfig &cfg) {
  if (cfg.consistency == ConsistencyModel::sequential) {
    // A race report is built from release consistency's diffs, which sc
    // does not make; and under sc a racy program is not wrong.
    if (opt.races)
      fatal("--races (RDSM_RACES=on) needs a release-consistency protocol: under %s every program, racy or not, "
            "sees sequentially consistent memory and no write goes through diffs; choose another protocol (e.g. "
            "rdsm)",
            cfg.name.c_str());
    return std::make_unique<Sc>(f, opt, cfg);
  }
  return std::make_unique<Hlrc>(f, opt, cfg);
}

}  // namespace rdsm
