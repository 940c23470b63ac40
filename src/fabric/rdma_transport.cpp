#include "fabric/rdma_transport.hpp"

#include <dirent.h>

#include <cstdlib>
#include <cstring>
#include <functional>

namespace rdsm::fabric {

namespace {
// Whether any comma-separated item of `list` satisfies `pred`.
bool any_item(const char *list, const std::function<bool(const std::string &)> &pred) {
  std::string s = list;
  for (size_t at = 0; at <= s.size();) {
    size_t end = s.find(',', at);
    if (end == std::string::npos) end = s.size();
    if (pred(s.substr(at, end - at))) return true;
    at = end + 1;
  }
  return false;
}

// A UCX transport name that drives an RDMA adapter: rc, rc_verbs, rc_mlx5,
// dc_x, ud_v, ib (the alias of all of them), or all.
bool ucx_rdma_name(const std::string &t) {
  if (t == "all" || t == "ib") return true;
  for (const char *family : {"rc", "dc", "ud"}) {
    const size_t n = strlen(family);
    if (t.compare(0, n, family) == 0 && (t.size() == n || t[n] == '_')) return true;
  }
  return false;
}

// A libfabric provider (or "a;b" stack) that reaches an adapter.
bool fi_adapter_name(const std::string &p) {
  for (const char *soft : {"tcp", "sockets", "udp", "shm"})
    if (p == soft || p.compare(0, strlen(soft) + 1, std::string(soft) + ";") == 0) return false;
  return !p.empty();
}
}  // namespace

bool rdma_transport_usable(const char *devices_dir, const TransportSettings &set, std::string *why) {
  DIR *d = opendir(devices_dir);
  size_t devices = 0;
  if (d) {
    while (const dirent *e = readdir(d))
      if (e->d_name[0] != '.') ++devices;
    closedir(d);
  }
  if (devices == 0) {
    *why = std::string("no RDMA device in ") + devices_dir;
    return false;
  }
  if (set.ucx_tls && *set.ucx_tls && set.ucx_tls[0] != '^' && !any_item(set.ucx_tls, ucx_rdma_name)) {
    *why = std::string("UCX_TLS=") + set.ucx_tls + " names no RDMA transport";
    return false;
  }
  if (set.ompi_osc && *set.ompi_osc && set.ompi_osc[0] != '^' &&
      !any_item(set.ompi_osc, [](const std::string &c) { return c == "ucx" || c == "rdma"; })) {
    *why = std::string("OMPI_MCA_osc=") + set.ompi_osc + " does one-sided operations with messages";
    return false;
  }
  if (set.fi_provider && *set.fi_provider && set.fi_provider[0] != '^' &&
      !any_item(set.fi_provider, fi_adapter_name)) {
    *why = std::string("FI_PROVIDER=") + set.fi_provider + " reaches no RDMA adapter";
    return false;
  }
  return true;
}

bool rdma_transport_here(std::string *why) {
  TransportSettings set;
  set.ucx_tls = getenv("UCX_TLS");
  set.ompi_osc = getenv("OMPI_MCA_osc");
  set.fi_provider = getenv("FI_PROVIDER");
  return rdma_transport_usable("/sys/class/infiniband", set, why);
}

}  // namespace rdsm::fabric
