// A job's private temporary directory: what a killed maker left behind is
// removed by the next maker; what a live one holds is not.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "common/saved_env.hpp"
#include "common/temp_dir.hpp"

using namespace rdsm;

namespace {
bool exists(const std::string &path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

// A child that makes a directory, tells its path through the pipe and
// waits to be killed.
pid_t maker(std::string *path) {
  int p[2];
  if (pipe(p) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    close(p[0]);
    std::string dir = make_temp_dir("rdsm-test");
    if (write(p[1], dir.c_str(), dir.size() + 1) < 0) _exit(1);
    for (;;) pause();
  }
  close(p[1]);
  char buf[4096] = {0};
  size_t got = 0;
  ssize_t n;
  while (got < sizeof buf - 1 && (n = read(p[0], buf + got, sizeof buf - 1 - got)) > 0) {
    got += (size_t)n;
    if (memchr(buf, 0, got) && buf[got - 1] == 0) break;
  }
  close(p[0]);
  *path = buf;
  return pid;
}

void kill_and_reap(pid_t pid) {
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

// A root of this test's own as $TMPDIR while it lives; the caller's $TMPDIR
// back afterwards, and the root must then be empty.
struct TestTmpdir {
  char root[32] = "/tmp/rdsm-temp-dir-test.XXXXXX";
  bool made = false;
  SavedEnv saved{"TMPDIR"};
  TestTmpdir() {
    made = mkdtemp(root) != nullptr;
    if (made) setenv("TMPDIR", root, 1);
  }
  ~TestTmpdir() {
    if (!made) return;
    saved.restore();
    EXPECT_EQ(rmdir(root), 0) << "something was left in " << root;
  }
};
}  // namespace

TEST(TempDir, TheNextMakerRemovesWhatAKilledOneLeft) {
  TestTmpdir tmp;
  ASSERT_TRUE(tmp.made);
  const char *root = tmp.root;

  std::string killed, alive;
  pid_t a = maker(&killed), b = maker(&alive);
  ASSERT_GT(a, 0);
  ASSERT_GT(b, 0);
  ASSERT_FALSE(killed.empty());
  ASSERT_FALSE(alive.empty());
  EXPECT_TRUE(exists(killed + "/.owner"));
  // A directory of an older rdsm (no owner file) is nobody's to judge.
  std::string legacy = std::string(root) + "/rdsm-test.legacy";
  ASSERT_EQ(mkdir(legacy.c_str(), 0700), 0);
  kill_and_reap(a);

  std::string mine = make_temp_dir("rdsm-test");
  ASSERT_FALSE(mine.empty());
  EXPECT_FALSE(exists(killed)) << "the killed maker's directory is still there";
  EXPECT_TRUE(exists(alive)) << "a live maker's directory was removed";
  EXPECT_TRUE(exists(legacy));
  // Its own directory is held while this process lives.
  std::string other = make_temp_dir("rdsm-test");
  EXPECT_TRUE(exists(mine));

  kill_and_reap(b);
  remove_temp_dir(mine);
  EXPECT_FALSE(exists(mine));
  remove_temp_dir(other);
  std::string last = make_temp_dir("rdsm-test");
  EXPECT_FALSE(exists(alive)) << "the second killed maker's directory is still there";
  remove_temp_dir(last);
  rmdir(legacy.c_str());
}

// Another program's files may be in the directory, in subdirectories of
// their own (an MPI's session directory): they go with it, and a symbolic
// link goes without what it points to.
TEST(TempDir, RemovesSubdirectoriesAndNotWhatALinkPointsTo) {
  TestTmpdir tmp;
  ASSERT_TRUE(tmp.made);
  const char *root = tmp.root;
  std::string outside = std::string(root) + "/outside";
  ASSERT_EQ(mkdir(outside.c_str(), 0700), 0);
  std::string kept = outside + "/kept";
  FILE *f = fopen(kept.c_str(), "w");
  ASSERT_NE(f, nullptr);
  fclose(f);

  // What a killed maker left, nested, is swept by the next maker; a live
  // maker's, by its own removal.
  std::string killed;
  pid_t a = maker(&killed);
  ASSERT_GT(a, 0);
  ASSERT_FALSE(killed.empty());
  std::string mine = make_temp_dir("rdsm-test");
  ASSERT_FALSE(mine.empty());
  for (const std::string &dir : {killed, mine}) {
    std::string deep = dir + "/ompi.host.0";
    ASSERT_EQ(mkdir(deep.c_str(), 0700), 0);
    ASSERT_EQ(mkdir((deep + "/jf.1").c_str(), 0700), 0);
    FILE *g = fopen((deep + "/jf.1/contact.txt").c_str(), "w");
    ASSERT_NE(g, nullptr);
    fclose(g);
    ASSERT_EQ(symlink(outside.c_str(), (deep + "/link").c_str()), 0);
  }
  kill_and_reap(a);
  std::string next = make_temp_dir("rdsm-test");
  EXPECT_FALSE(exists(killed)) << "the killed maker's nested directory is still there";
  remove_temp_dir(mine);
  EXPECT_FALSE(exists(mine));
  EXPECT_TRUE(exists(kept)) << "a file a link pointed to was removed";
  remove_temp_dir(next);

  unlink(kept.c_str());
  rmdir(outside.c_str());
}
