// Whether a host carries one-sided operations in hardware: an RDMA device
// listed by the kernel, and a UCX transport list that lets it be used.
#include "fabric/rdma_transport.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <sys/stat.h>
#include <unistd.h>


using namespace rdsm;

namespace {
struct DevicesDir {
  std::string path;
  DevicesDir() {
    char tmpl[] = "/tmp/rdsm-rdma-test.XXXXXX";
    const char *p = mkdtemp(tmpl);
    if (p) path = p;
  }
  ~DevicesDir() {
    std::remove((path + "/mlx5_0").c_str());
    rmdir(path.c_str());
  }
  void add_device() { mkdir((path + "/mlx5_0").c_str(), 0700); }
};
}  // namespace

TEST(RdmaTransport, NoDeviceMeansSoftware) {
  DevicesDir d;
  ASSERT_FALSE(d.path.empty());
  std::string why;
  EXPECT_FALSE(fabric::rdma_transport_usable(d.path.c_str(), {}, &why));
  EXPECT_NE(why.find("no RDMA device"), std::string::npos) << why;
  EXPECT_FALSE(fabric::rdma_transport_usable((d.path + "/missing").c_str(), {}, &why));
}

TEST(RdmaTransport, ADeviceIsUsedUnlessTheTransportsAreToldOtherwise) {
  DevicesDir d;
  d.add_device();
  std::string why;
  auto usable = [&](const char *ucx, const char *osc, const char *fi) {
    fabric::TransportSettings set;
    set.ucx_tls = ucx;
    set.ompi_osc = osc;
    set.fi_provider = fi;
    return fabric::rdma_transport_usable(d.path.c_str(), set, &why);
  };
  EXPECT_TRUE(usable(nullptr, nullptr, nullptr));
  EXPECT_TRUE(usable("", "", ""));
  for (const char *tls : {"rc,sm,self", "all", "ib", "dc_x,self", "sm,ud_verbs", "^tcp"})
    EXPECT_TRUE(usable(tls, nullptr, nullptr)) << tls;
  for (const char *tls : {"tcp,self", "tcp", "sm,self,tcp", "rcx,tcp"}) {
    EXPECT_FALSE(usable(tls, nullptr, nullptr)) << tls;
    EXPECT_NE(why.find("names no RDMA transport"), std::string::npos) << why;
  }
  for (const char *osc : {"ucx", "rdma", "ucx,pt2pt", "^pt2pt"}) EXPECT_TRUE(usable(nullptr, osc, nullptr)) << osc;
  for (const char *osc : {"pt2pt", "sm"}) {
    EXPECT_FALSE(usable(nullptr, osc, nullptr)) << osc;
    EXPECT_NE(why.find("with messages"), std::string::npos) << why;
  }
  for (const char *fi : {"verbs", "verbs;ofi_rxm", "psm3", "efa"}) EXPECT_TRUE(usable(nullptr, nullptr, fi)) << fi;
  for (const char *fi : {"tcp", "tcp;ofi_rxm", "sockets", "udp;ofi_rxd"}) {
    EXPECT_FALSE(usable(nullptr, nullptr, fi)) << fi;
    EXPECT_NE(why.find("reaches no RDMA adapter"), std::string::npos) << why;
  }
}
