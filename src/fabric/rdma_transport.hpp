// Whether this host can carry one-sided operations to other hosts in
// hardware: an RDMA adapter (InfiniBand, RoCE or iWARP: every one shows in
// /sys/class/infiniband) that the transports in use are allowed to take.
// Without one, MPI over TCP makes the target's progress thread do every
// one-sided operation (mpi_fabric.hpp), and the default preset is better
// served by messages (Fabric::one_sided_in_software).
#pragma once
#include <string>

namespace rdsm::fabric {

// The settings that can keep an adapter out of use; null when unset.
struct TransportSettings {
  // UCX_TLS: a list that names transports (not a "^" list of exclusions)
  // must name an RDMA one (rc, dc, ud, ib or all).
  const char *ucx_tls = nullptr;
  // OMPI_MCA_osc: Open MPI's one-sided component; one other than ucx (or
  // rdma) emulates one-sided operations with messages (pt2pt).
  const char *ompi_osc = nullptr;
  // FI_PROVIDER: libfabric's provider; tcp, sockets, udp and shm alone
  // reach no adapter.
  const char *fi_provider = nullptr;
};

// `devices_dir`: where the kernel lists RDMA devices (/sys/class/infiniband).
// False with the reason in *why.
bool rdma_transport_usable(const char *devices_dir, const TransportSettings &set, std::string *why);

// The same for this process: /sys/class/infiniband and its environment.
bool rdma_transport_here(std::string *why);

}  // namespace rdsm::fabric
