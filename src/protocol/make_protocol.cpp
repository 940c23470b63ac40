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
  // Minipages give each small variable a protection of its own so that one
  // writer at a time may hold it; release consistency already lets several
  // nodes write one page at once and merges their diffs, and its per-page
  // twins, diffs and notices know nothing of views.  A run that asks for
  // them under such a protocol is refused, rather than measured at page
  // granularity while the user believes otherwise.
  if (opt.minipages != MinipageMode::off)
    fatal("RDSM_MINIPAGES=%s needs the sc protocol: minipages are a feature of its single-writer sequential "
          "consistency, and %s keeps whole pages (release consistency merges the writes of several nodes to "
          "one page with diffs instead); use --protocol sc or RDSM_MINIPAGES=off",
          opt.minipages == MinipageMode::on         ? "on"
          : opt.minipages == MinipageMode::adaptive ? "adaptive"
                                                    : "explicit",
          cfg.name.c_str());
  return std::make_unique<Hlrc>(f, opt, cfg);
}

}  // namespace rdsm
