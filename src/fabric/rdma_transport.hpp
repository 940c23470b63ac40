// Whether this host can carry one-sided operations to other hosts in
// hardware: an RDMA adapter (InfiniBand, RoCE or iWARP: every one shows in
// /sys/class/infiniband) that the transport in use is allowed to take.
// Without one, MPI over TCP makes the target's progress thread do every
// one-sided operation (mpi_fabric.hpp), and the default preset is better
// served by messages (Fabric::one_sided_in_software).
#pragma once
#include <string>

namespace rdsm::fabric {

// `devices_dir`: where the kernel lists RDMA devices (/sys/class/infiniband).
// `ucx_tls`: the UCX_TLS setting, or null when unset; a list that names
// transports (not a "^" list of exclusions) must name an RDMA one (rc, dc,
// ud, ib or all) for the adapter to be used.  False with the reason in *why.
bool rdma_transport_usable(const char *devices_dir, const char *ucx_tls, std::string *why);

// The same for this process: /sys/class/infiniband and its UCX_TLS.
bool rdma_transport_here(std::string *why);

}  // namespace rdsm::fabric
