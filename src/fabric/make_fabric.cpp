#include <memory>

#include "bootstrap/node_file.hpp"
#include "common/error.hpp"
#include "fabric/emu_fabric.hpp"
#include "fabric/fabric.hpp"
#include "fabric/shm_fabric.hpp"
#ifdef RDSM_HAVE_MPI
#include "fabric/mpi_fabric.hpp"
#endif

namespace rdsm::fabric {

namespace {
#ifdef RDSM_HAVE_MPI
constexpr const char *kFabricNames = "shm, mpi, emu";
#else
constexpr const char *kFabricNames = "shm, emu (mpi needs a build configured with -DRDSM_MPI=ON)";
#endif

// The emulated network over the fabric named by RDSM_EMU_BASE.
std::unique_ptr<Fabric> make_emu(const Options &opt) {
  EmuParams params;
  std::string error;
  if (!resolve_emu_params(opt.emu_preset, opt.emu, &params, error))
    fatal("the emu fabric (RDSM_EMU_PRESET=%s, RDSM_EMU=%s): %s", opt.emu_preset.c_str(), opt.emu.c_str(),
          error.c_str());
  if (opt.emu_base == "emu") fatal("RDSM_EMU_BASE=emu: the emu fabric wraps another fabric; use shm or mpi");
  Options base = opt;
  base.fabric = opt.emu_base;
  return std::make_unique<EmuFabric>(make_fabric(base), params);
}
}  // namespace

std::unique_ptr<Fabric> make_fabric(const Options &opt) {
  if (opt.fabric == "emu") return make_emu(opt);
  if (opt.fabric == "mpi") {
#ifdef RDSM_HAVE_MPI
    return std::make_unique<MpiFabric>(opt);
#else
    if (opt.mpi_launched)
      fatal("this program was started by an MPI launcher, but this rdsm was built without the mpi fabric; build "
            "rdsm with the CMake option -DRDSM_MPI=ON, or start the program with `rdsm run -n N prog`");
    fatal("RDSM_FABRIC=mpi: this rdsm was built without the mpi fabric; build it with the CMake option "
          "-DRDSM_MPI=ON");
#endif
  }
  if (opt.fabric != "shm")
    fatal("RDSM_FABRIC=%s is not a fabric; the available fabrics are: %s", opt.fabric.c_str(), kFabricNames);
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
