// The memory a node may still be given: MemAvailable, lowered to what the
// limits of its control group and the groups above it leave (v2 and v1).
#include "common/available_memory.hpp"

#include <cstdlib>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <gtest/gtest.h>

namespace rdsm {
namespace {

struct FakeProc {
  std::string root;
  FakeProc() {
    char tmpl[] = "/tmp/rdsm-avail-XXXXXX";
    root = mkdtemp(tmpl);
    write("meminfo", "MemTotal:       24000000 kB\nMemFree:  1 kB\nMemAvailable:    1000000 kB\n");
  }
  ~FakeProc() { (void)!system(("rm -rf " + root).c_str()); }
  void write(const std::string &rel, const std::string &text) {
    const std::string path = root + "/" + rel;
    for (size_t at = path.find('/', root.size() + 1); at != std::string::npos; at = path.find('/', at + 1))
      mkdir(path.substr(0, at).c_str(), 0755);
    std::ofstream(path) << text;
  }
  size_t available() {
    return available_memory_bytes_from(root + "/meminfo", root + "/cgroup", root + "/fs");
  }
};

constexpr size_t kMemAvailable = 1000000ull * 1024;

TEST(AvailableMemory, IsMemAvailableWithoutALimit) {
  FakeProc p;
  p.write("cgroup", "0::/user.slice/job\n");
  p.write("fs/user.slice/job/memory.max", "max\n");
  p.write("fs/user.slice/job/memory.current", "5000\n");
  EXPECT_EQ(p.available(), kMemAvailable);
}

TEST(AvailableMemory, IsWhatTheGroupsLimitLeavesUnderCgroupV2) {
  FakeProc p;
  p.write("cgroup", "0::/a/b\n");
  p.write("fs/a/b/memory.max", "300000000\n");
  p.write("fs/a/b/memory.current", "100000000\n");
  EXPECT_EQ(p.available(), 200000000u);
  // A group above with less room left limits it further.
  p.write("fs/a/memory.max", "150000000\n");
  p.write("fs/a/memory.current", "100000000\n");
  EXPECT_EQ(p.available(), 50000000u);
  // Past its limit already: nothing.
  p.write("fs/a/memory.current", "160000000\n");
  EXPECT_EQ(p.available(), 0u);
}

TEST(AvailableMemory, IsWhatTheGroupsLimitLeavesUnderCgroupV1) {
  FakeProc p;
  p.write("cgroup", "5:devices:/x\n4:memory:/x/y\n0::/\n");
  // No limit: the largest page-aligned number.
  p.write("fs/memory/x/y/memory.limit_in_bytes", "9223372036854771712\n");
  p.write("fs/memory/x/y/memory.usage_in_bytes", "2194497536\n");
  EXPECT_EQ(p.available(), kMemAvailable);
  p.write("fs/memory/x/y/memory.limit_in_bytes", "600000000\n");
  p.write("fs/memory/x/y/memory.usage_in_bytes", "500000000\n");
  EXPECT_EQ(p.available(), 100000000u);
  // The devices controller's group is not a memory limit.
  p.write("fs/x/memory.max", "1\n");
  EXPECT_EQ(p.available(), 100000000u);
}

TEST(AvailableMemory, IsZeroWhenTheKernelDoesNotSay) {
  FakeProc p;
  p.write("meminfo", "MemTotal: 5 kB\n");
  EXPECT_EQ(p.available(), 0u);
  EXPECT_EQ(available_memory_bytes_from(p.root + "/none", p.root + "/none", p.root), 0u);
}

TEST(AvailableMemory, OfThisProcessIsSomething) { EXPECT_GT(available_memory_bytes(), 0u); }

}  // namespace
}  // namespace rdsm
