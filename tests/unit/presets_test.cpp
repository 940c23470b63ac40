#include <gtest/gtest.h>

#include "protocol/presets.hpp"

using namespace rdsm;

TEST(Presets, ScIsTheSequentialEngine) {
  const ProtocolConfig *sc = find_protocol("sc");
  ASSERT_NE(sc, nullptr);
  EXPECT_EQ(sc->consistency, ConsistencyModel::sequential);
  EXPECT_EQ(sc->lock, LockAxis::manager);
  EXPECT_EQ(sc->barrier, BarrierAxis::manager);
  for (const char *name : {"async", "ardmar", "draw", "newgen", "genima", "rdsm", "hw"})
    EXPECT_EQ(find_protocol(name)->consistency, ConsistencyModel::release) << name;
  EXPECT_NE(protocol_names().find("sc"), std::string::npos);
}

TEST(Presets, ScTakesTheLockAndBarrierAxes) {
  ProtocolConfig c = *find_protocol("sc");
  std::string error;
  ASSERT_TRUE(apply_axes(c, "lock=atomic,barrier=atomic", error)) << error;
  EXPECT_EQ(c.lock, LockAxis::atomic);
  EXPECT_EQ(c.barrier, BarrierAxis::atomic);
  EXPECT_EQ(c.consistency, ConsistencyModel::sequential);
  EXPECT_EQ(c.name, "sc+lock=atomic,barrier=atomic");
}

TEST(Presets, ScTakesTheFetchAxis) {
  ProtocolConfig c = *find_protocol("sc");
  EXPECT_EQ(c.fetch, FetchAxis::one_sided);  // RDMA-R unless asked
  std::string error;
  ASSERT_TRUE(apply_axes(c, "fetch=message", error)) << error;
  EXPECT_EQ(c.fetch, FetchAxis::message);
  EXPECT_EQ(c.name, "sc+fetch=message");
  EXPECT_EQ(c.consistency, ConsistencyModel::sequential);
}

TEST(Presets, ScRejectsTheReleaseConsistencyAxes) {
  for (const char *spec : {"diff=one-sided", "home=migrate", "lock=atomic,notices=eager", "detect=scan"}) {
    ProtocolConfig c = *find_protocol("sc");
    std::string error;
    EXPECT_FALSE(apply_axes(c, spec, error)) << spec;
    EXPECT_NE(error.find("protocol sc (sequential consistency"), std::string::npos) << error;
    EXPECT_NE(error.find("fetch=message|one-sided, lock=manager|atomic and barrier=manager|atomic"),
              std::string::npos)
        << error;
  }
}

TEST(Presets, TheDefaultAcrossSoftwareOneSidedHostsTakesMessages) {
  ProtocolConfig c = *find_protocol(kDefaultProtocol);
  std::string error;
  ASSERT_TRUE(apply_axes(c, kSoftwareOneSidedAxes, error)) << error;
  EXPECT_EQ(c.fetch, FetchAxis::message);
  EXPECT_EQ(c.claim, HomeClaimAxis::message);
  EXPECT_EQ(c.diff, DiffAxis::message);
  EXPECT_EQ(c.lock, LockAxis::manager);
  EXPECT_EQ(c.barrier, BarrierAxis::manager);
  EXPECT_EQ(c.notices, NoticeAxis::lazy);
  // What rides on messages stays.
  EXPECT_EQ(c.home, HomeAxis::migrate);
  EXPECT_EQ(c.prefetch, PrefetchAxis::adaptive);
  std::string name = "rdsm+";
  name.append(kSoftwareOneSidedAxes);
  EXPECT_EQ(c.name, name);
}

TEST(Presets, APrintedNameGivesBackItsPresetAndAxes) {
  std::string preset, axes;
  split_protocol_name("sc+fetch=one-sided", "", preset, axes);
  EXPECT_EQ(preset, "sc");
  EXPECT_EQ(axes, "fetch=one-sided");
  // The name's axes first: --axes, applied after them, wins.
  split_protocol_name("genima+home=migrate,prefetch=adaptive", "home=fixed", preset, axes);
  EXPECT_EQ(preset, "genima");
  EXPECT_EQ(axes, "home=migrate,prefetch=adaptive,home=fixed");
  ProtocolConfig c = *find_protocol(preset);
  std::string error;
  ASSERT_TRUE(apply_axes(c, axes, error)) << error;
  EXPECT_EQ(c.home, HomeAxis::fixed);
  EXPECT_EQ(c.prefetch, PrefetchAxis::adaptive);
  split_protocol_name("rdsm", "lock=manager", preset, axes);
  EXPECT_EQ(preset, "rdsm");
  EXPECT_EQ(axes, "lock=manager");
  split_protocol_name("async", "", preset, axes);
  EXPECT_EQ(axes, "");
  // Round trip: the name a configuration prints names that configuration.
  ProtocolConfig d = *find_protocol("sc");
  ASSERT_TRUE(apply_axes(d, "fetch=one-sided,lock=atomic", error)) << error;
  split_protocol_name(d.name, "", preset, axes);
  ProtocolConfig e = *find_protocol(preset);
  ASSERT_TRUE(apply_axes(e, axes, error)) << error;
  EXPECT_EQ(e.name, d.name);
  EXPECT_EQ(e.fetch, FetchAxis::one_sided);
  EXPECT_EQ(e.lock, LockAxis::atomic);
}

TEST(Presets, AChoiceAppliesTheGivenAxesOnTopOfTheNamesAndNamesTheBadPart) {
  ProtocolChoice c;
  std::string error;
  // The given axes are applied after the name's: dense write-ahead beside
  // the rewrites=compare the name sets.
  ASSERT_EQ(choose_protocol("genima+rewrites=compare", "writeahead=dense", c, error), ProtocolChoiceFault::none)
      << error;
  EXPECT_EQ(c.preset, "genima");
  EXPECT_EQ(c.axes, "rewrites=compare,writeahead=dense");
  EXPECT_EQ(c.config.rewrites, RewriteAxis::compare);
  EXPECT_EQ(c.config.write_ahead, WriteAheadAxis::dense);
  ASSERT_EQ(choose_protocol("async", "", c, error), ProtocolChoiceFault::none) << error;
  EXPECT_EQ(c.axes, "");
  EXPECT_EQ(choose_protocol("nope+home=migrate", "", c, error), ProtocolChoiceFault::preset);
  EXPECT_EQ(c.preset, "nope");
  EXPECT_EQ(choose_protocol("sc+home=migrate", "", c, error), ProtocolChoiceFault::name_axes);
  EXPECT_NE(error.find("home"), std::string::npos);
  EXPECT_EQ(choose_protocol("sc+fetch=one-sided", "prefetch=adaptive", c, error), ProtocolChoiceFault::given_axes);
  EXPECT_NE(error.find("prefetch"), std::string::npos);
  EXPECT_EQ(choose_protocol("genima+home=migrate", "home=sideways", c, error), ProtocolChoiceFault::given_axes);
  EXPECT_NE(error.find("sideways"), std::string::npos);
}
