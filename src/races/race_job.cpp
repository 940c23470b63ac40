#include "races/race_job.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#include "common/error.hpp"
#include "common/temp_dir.hpp"

namespace rdsm::races {

namespace {
bool g_enabled = false;
std::string g_dir;
pid_t g_dir_owner = 0;  // the process that made g_dir, 0 if it was given
uint32_t g_jobs = 0;

void remove_own_dir_at_exit() {
  if (g_dir_owner == getpid() && !g_dir.empty()) remove_log_dir(g_dir);
}
}  // namespace

void enable(const std::string &dir) {
  g_enabled = true;
  if (!dir.empty()) g_dir = dir;
}

bool enabled() { return g_enabled; }

const std::string &log_dir() {
  if (g_dir.empty()) {
    std::string error;
    if (!make_log_dir(&g_dir, &error)) fatal("--races: %s", error.c_str());
    g_dir_owner = getpid();
    atexit(remove_own_dir_at_exit);
  }
  return g_dir;
}

bool owns_log_dir() { return g_dir_owner != 0 && g_dir_owner == getpid(); }

uint32_t next_job() { return ++g_jobs; }

bool make_log_dir(std::string *dir, std::string *error) {
  std::string tried;
  *dir = make_temp_dir("rdsm-races", &tried);
  if (dir->empty()) {
    *error = "cannot make a directory for the race logs (" + tried + "): " + strerror(errno) +
             "; set TMPDIR to a writable directory";
    return false;
  }
  return true;
}

void remove_log_dir(const std::string &dir) { remove_temp_dir(dir); }

}  // namespace rdsm::races
