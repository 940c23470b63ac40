// The environment a node reads, and its error messages.
#include <gtest/gtest.h>

#include <cstdlib>

#include "common/fault_inject.hpp"
#include "common/options.hpp"

using namespace rdsm;

TEST(ParseSize, AcceptsSuffixes) {
  size_t v = 0;
  EXPECT_TRUE(parse_size("4096", &v));
  EXPECT_EQ(v, 4096u);
  EXPECT_TRUE(parse_size("512M", &v));
  EXPECT_EQ(v, size_t(512) << 20);
  EXPECT_TRUE(parse_size("2GiB", &v));
  EXPECT_EQ(v, size_t(2) << 30);
  EXPECT_TRUE(parse_size("64k", &v));
  EXPECT_EQ(v, size_t(64) << 10);
}

TEST(ParseSize, RejectsGarbage) {
  size_t v = 0;
  for (const char *bad : {"", "M", "12X", "1.5G", "-", "4G4"}) EXPECT_FALSE(parse_size(bad, &v)) << bad;
}

TEST(Options, DefaultsWithoutLauncher) {
  unsetenv("RDSM_NODES");
  unsetenv("RDSM_PROTOCOL");
  Options o = options_from_environment();
  EXPECT_FALSE(o.launched);
  EXPECT_EQ(o.nodes, 1);
  EXPECT_EQ(o.protocol, "rdsm");
  EXPECT_FALSE(o.protocol_named);
}

TEST(Options, AProtocolSetIsNamed) {
  setenv("RDSM_PROTOCOL", "rdsm", 1);
  Options o = options_from_environment();
  unsetenv("RDSM_PROTOCOL");
  EXPECT_EQ(o.protocol, "rdsm");
  EXPECT_TRUE(o.protocol_named);
}

TEST(Options, PrepopulateTakesOnOffOrASize) {
  unsetenv("RDSM_PREPOPULATE");
  EXPECT_EQ(options_from_environment().prepopulate_bytes, kDefaultPrepopulateBytes);
  setenv("RDSM_PREPOPULATE", "off", 1);
  EXPECT_EQ(options_from_environment().prepopulate_bytes, 0u);
  setenv("RDSM_PREPOPULATE", "2G", 1);
  EXPECT_EQ(options_from_environment().prepopulate_bytes, size_t(2) << 30);
  setenv("RDSM_PREPOPULATE", "on", 1);
  EXPECT_EQ(options_from_environment().prepopulate_bytes, kDefaultPrepopulateBytes);
  unsetenv("RDSM_PREPOPULATE");
  EXPECT_EXIT(
      {
        setenv("RDSM_PREPOPULATE", "lots", 1);
        options_from_environment();
      },
      ::testing::ExitedWithCode(2), "RDSM_PREPOPULATE=lots is not a choice");
}

TEST(Options, MinipagesTakeAModeAndViews) {
  unsetenv("RDSM_MINIPAGES");
  unsetenv("RDSM_MINIPAGE_VIEWS");
  EXPECT_EQ(options_from_environment().minipages, MinipageMode::off);
  EXPECT_EQ(options_from_environment().minipage_views, kDefaultMinipageViews);
  const std::pair<const char *, MinipageMode> modes[] = {{"off", MinipageMode::off},
                                                         {"on", MinipageMode::on},
                                                         {"explicit", MinipageMode::explicit_only},
                                                         {"adaptive", MinipageMode::adaptive}};
  for (const auto &[name, mode] : modes) {
    setenv("RDSM_MINIPAGES", name, 1);
    EXPECT_EQ(options_from_environment().minipages, mode) << name;
  }
  setenv("RDSM_MINIPAGE_VIEWS", "64", 1);
  EXPECT_EQ(options_from_environment().minipage_views, 64);
  unsetenv("RDSM_MINIPAGES");
  unsetenv("RDSM_MINIPAGE_VIEWS");
  EXPECT_EXIT(
      {
        setenv("RDSM_MINIPAGES", "sometimes", 1);
        options_from_environment();
      },
      ::testing::ExitedWithCode(2), "RDSM_MINIPAGES=sometimes is not a choice");
}

TEST(Options, BadValuesNameTheVariable) {
  EXPECT_EXIT(
      {
        setenv("RDSM_HANDLER", "sometimes", 1);
        options_from_environment();
      },
      ::testing::ExitedWithCode(2), "RDSM_HANDLER=sometimes");
  EXPECT_EXIT(
      {
        setenv("RDSM_REGION_SIZE", "lots", 1);
        options_from_environment();
      },
      ::testing::ExitedWithCode(2), "RDSM_REGION_SIZE=lots");
  EXPECT_EXIT(
      {
        setenv("RDSM_NODES", "4", 1);
        unsetenv("RDSM_RANK");
        options_from_environment();
      },
      ::testing::ExitedWithCode(2), "RDSM_RANK");
}

TEST(FaultSpec, AcceptsPointNodeCountAndAction) {
  std::string error;
  for (const char *good : {"fetch:0", "barrier:1:3", "lock_held:2:1:die", "refresh:0:5:stop", "barrier:3:7:delay"})
    EXPECT_TRUE(parse_fault_spec(good, error)) << good << ": " << error;
}

TEST(FaultSpec, NamesWhatIsWrong) {
  std::string error;
  EXPECT_FALSE(parse_fault_spec("nowhere:0", error));
  EXPECT_NE(error.find("unknown point"), std::string::npos) << error;
  EXPECT_FALSE(parse_fault_spec("fetch:x", error));
  EXPECT_NE(error.find("not a node number"), std::string::npos) << error;
  EXPECT_FALSE(parse_fault_spec("fetch:0:0", error));
  EXPECT_NE(error.find("count of 1 or more"), std::string::npos) << error;
  EXPECT_FALSE(parse_fault_spec("fetch:0:1:freeze", error));
  EXPECT_NE(error.find("use die, stop, delay or hang"), std::string::npos) << error;
}

// Whether waiting threads may keep their CPU (spinning, idle work) depends
// on the compute threads this host runs: every node's on shm, one node's
// on other fabrics.
TEST(HostComputeThreads, CountsTheNodesThisHostRuns) {
  Options o;
  o.nodes = 4;
  o.threads = 2;
  EXPECT_EQ(host_compute_threads(o), 8);
  o.threads = 1;
  EXPECT_EQ(host_compute_threads(o), 4);
  o.fabric = "mpi";
  o.threads = 3;
  EXPECT_EQ(host_compute_threads(o), 3);
}
