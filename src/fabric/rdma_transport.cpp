#include "fabric/rdma_transport.hpp"

#include <dirent.h>

#include <cstdlib>
#include <cstring>

namespace rdsm::fabric {

namespace {
// A UCX transport name that drives an RDMA adapter: rc, rc_verbs, rc_mlx5,
// dc_x, ud_v, ib (the alias of all of them), or all.
bool rdma_transport_name(const std::string &t) {
  if (t == "all" || t == "ib") return true;
  for (const char *family : {"rc", "dc", "ud"}) {
    const size_t n = strlen(family);
    if (t.compare(0, n, family) == 0 && (t.size() == n || t[n] == '_')) return true;
  }
  return false;
}
}  // namespace

bool rdma_transport_usable(const char *devices_dir, const char *ucx_tls, std::string *why) {
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
  if (ucx_tls && *ucx_tls && ucx_tls[0] != '^') {
    std::string list = ucx_tls;
    bool named = false;
    for (size_t at = 0; at <= list.size() && !named;) {
      size_t end = list.find(',', at);
      if (end == std::string::npos) end = list.size();
      named = rdma_transport_name(list.substr(at, end - at));
      at = end + 1;
    }
    if (!named) {
      *why = std::string("UCX_TLS=") + ucx_tls + " names no RDMA transport";
      return false;
    }
  }
  return true;
}

bool rdma_transport_here(std::string *why) {
  return rdma_transport_usable("/sys/class/infiniband", getenv("UCX_TLS"), why);
}

}  // namespace rdsm::fabric
