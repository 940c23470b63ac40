// A fork-join (SPLASH) program started by an MPI launcher: before main,
// each rank makes its address space the same as the others'.
//
// The master ships its private globals to the workers of other ranks
// (program_image.hpp), and those globals hold pointers: to functions and
// strings of the executable, to variables of the C library.  With address-
// space randomisation every process loads the executable and its libraries
// somewhere else, and every such pointer would be wrong on a worker.  So
// each rank starts itself again, once, with randomisation off for itself
// (personality(ADDR_NO_RANDOMIZE), what `setarch -R` does), before main and
// before MPI_Init; the same executable and libraries then load at the same
// addresses on every rank of every host that has them installed alike.
// Where the kernel does not allow it, the job goes on and the first CREATE
// compares the ranks' layouts and explains (fork_join_ranks.cpp).
//
// The ranks other than 0 also run main up to MAIN_INITENV, where they turn
// into workers: what they print before it is the master's output a second
// time, so their standard output is held back until their first job.
#include "api/fixed_layout.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <stdio_ext.h>
#include <string>
#include <sys/personality.h>
#include <unistd.h>
#include <vector>

#include "common/options.hpp"

namespace rdsm::fj {

namespace {

constexpr const char *kRestartedVariable = "RDSM_FIXED_LAYOUT";
int g_held_stdout = -1;  // the real standard output of a rank > 0, while held back

// The command line this process was started with.
std::vector<std::string> own_arguments() {
  std::vector<std::string> args;
  int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return args;
  std::string all;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) all.append(buf, (size_t)n);
  close(fd);
  for (size_t at = 0; at < all.size();) {
    size_t end = all.find('\0', at);
    if (end == std::string::npos) end = all.size();
    args.push_back(all.substr(at, end - at));
    at = end + 1;
  }
  return args;
}

void restart_without_randomisation() {
  if (layout_fixed() || getenv(kRestartedVariable)) return;  // already, or tried once: the kernel kept it on
  int current = personality(0xffffffff);
  if (current == -1) return;
  std::vector<std::string> args = own_arguments();
  if (args.empty()) return;
  if (personality((unsigned long)current | ADDR_NO_RANDOMIZE) == -1) return;
  setenv(kRestartedVariable, "1", 1);
  std::vector<char *> argv;
  for (std::string &a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  execv("/proc/self/exe", argv.data());
  // Not restarted: go on as we are (CREATE explains if the layouts differ).
  personality((unsigned long)current);
}

void hold_back_output() {
  int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null < 0) return;
  g_held_stdout = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (g_held_stdout < 0 || dup2(null, STDOUT_FILENO) < 0) {
    if (g_held_stdout >= 0) close(g_held_stdout);
    g_held_stdout = -1;
  }
  close(null);
}

__attribute__((constructor)) void fix_layout_under_mpi() {
  if (mpi_launch_size() < 2) return;
  restart_without_randomisation();
  if (mpi_launch_rank() > 0) hold_back_output();
}

}  // namespace

bool layout_fixed() {
  int current = personality(0xffffffff);
  return current != -1 && (current & ADDR_NO_RANDOMIZE);
}

void release_worker_output() {
  if (g_held_stdout < 0) return;
  // What the program buffered before is the master's output again: dropped.
  __fpurge(stdout);
  dup2(g_held_stdout, STDOUT_FILENO);
  close(g_held_stdout);
  g_held_stdout = -1;
}

}  // namespace rdsm::fj
