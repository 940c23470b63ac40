#include <memory>

#include "bootstrap/node_file.hpp"
#include "common/error.hpp"
#include "fabric/fabric.hpp"
#include "fabric/shm_fabric.hpp"

namespace rdsm::fabric {

std::unique_ptr<Fabric> make_fabric(const Options &opt) {
  if (opt.fabric != "shm") fatal("RDSM_FABRIC=%s is not a fabric; the available fabrics are: shm", opt.fabric.c_str());
  // Started alone, the program is a job of one node and makes its own file;
  // otherwise whoever started the nodes (launcher, fork-join master) named them.
  bool given = !opt.node_fds.empty();
  std::vector<int> fds = given ? parse_fd_list(opt.node_fds, opt.nodes) : create_node_files(1);
  if (!given && opt.nodes != 1) {
    Options one = opt;
    one.nodes = 1;
    one.rank = 0;
    return std::make_unique<ShmFabric>(one, std::move(fds));
  }
  return std::make_unique<ShmFabric>(opt, std::move(fds));
}

}  // namespace rdsm::fabric
