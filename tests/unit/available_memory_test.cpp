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
  // A group's limit and what it uses, in the files named.
  void group(const std::string &dir, const char *limit_file, const char *limit, const char *usage_file,
             const char *usage) {
    write(dir + "/" + limit_file, std::string(limit) + "\n");
    write(dir + "/" + usage_file, std::string(usage) + "\n");
  }
  void v2(const std::string &dir, const char *max, const char *current) {
    group("fs" + dir, "memory.max", max, "memory.current", current);
  }
  void v1(const std::string &dir, const char *limit, const char *usage) {
    group("fs/memory" + dir, "memory.limit_in_bytes", limit, "memory.usage_in_bytes", usage);
  }
  size_t available() {
    return available_memory_bytes_from(root + "/meminfo", root + "/cgroup", root + "/fs");
  }
};

constexpr size_t kMemAvailable = 1000000ull * 1024;

TEST(AvailableMemory, IsMemAvailableWithoutALimit) {
  FakeProc p;
  p.write("cgroup", "0::/user.slice/job\n");
  p.v2("/user.slice/job", "max", "5000");
  EXPECT_EQ(p.available(), kMemAvailable);
}

TEST(AvailableMemory, IsWhatTheGroupsLimitLeavesUnderCgroupV2) {
  FakeProc p;
  p.write("cgroup", "0::/a/b\n");
  p.v2("/a/b", "300000000", "100000000");
  EXPECT_EQ(p.available(), 200000000u);
  // A group above with less room left limits it further.
  p.v2("/a", "150000000", "100000000");
  EXPECT_EQ(p.available(), 50000000u);
  // Past its limit already: nothing.
  p.v2("/a", "150000000", "160000000");
  EXPECT_EQ(p.available(), 0u);
}

TEST(AvailableMemory, IsWhatTheGroupsLimitLeavesUnderCgroupV1) {
  FakeProc p;
  p.write("cgroup", "5:devices:/x\n4:memory:/x/y\n0::/\n");
  // No limit: the largest page-aligned number.
  p.v1("/x/y", "9223372036854771712", "2194497536");
  EXPECT_EQ(p.available(), kMemAvailable);
  p.v1("/x/y", "600000000", "500000000");
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
