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
  EXPECT_FALSE(fabric::rdma_transport_usable(d.path.c_str(), nullptr, &why));
  EXPECT_NE(why.find("no RDMA device"), std::string::npos) << why;
  EXPECT_FALSE(fabric::rdma_transport_usable((d.path + "/missing").c_str(), nullptr, &why));
}

TEST(RdmaTransport, ADeviceIsUsedUnlessUcxIsToldOtherwise) {
  DevicesDir d;
  d.add_device();
  std::string why;
  EXPECT_TRUE(fabric::rdma_transport_usable(d.path.c_str(), nullptr, &why));
  EXPECT_TRUE(fabric::rdma_transport_usable(d.path.c_str(), "", &why));
  for (const char *tls : {"rc,sm,self", "all", "ib", "dc_x,self", "sm,ud_verbs", "^tcp"})
    EXPECT_TRUE(fabric::rdma_transport_usable(d.path.c_str(), tls, &why)) << tls;
  for (const char *tls : {"tcp,self", "tcp", "sm,self,tcp", "rcx,tcp"}) {
    EXPECT_FALSE(fabric::rdma_transport_usable(d.path.c_str(), tls, &why)) << tls;
    EXPECT_NE(why.find("names no RDMA transport"), std::string::npos) << why;
  }
}
