#include "launcher/program_path.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/cli.hpp"

namespace rdsm::launcher {
namespace {

// 0 if `path` can be executed, else the errno that explains why not.
int check_executable(const std::string &path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return errno;
  if (S_ISDIR(st.st_mode)) return EISDIR;
  if (!S_ISREG(st.st_mode)) return EACCES;
  if (access(path.c_str(), X_OK) != 0) return errno;
  return 0;
}

std::string reason(int err) {
  switch (err) {
    case ENOENT: return "no such file; check the path";
    case EISDIR: return "it is a directory; name the program file";
    case EACCES:
      return "it is not executable (permission denied); make it executable (chmod +x) or name another file";
    default: return strerror(err);
  }
}

}  // namespace

std::string find_program(const std::string &name) {
  if (name.empty()) throw UsageError("the program name is empty");
  if (name.find('/') != std::string::npos) {
    int err = check_executable(name);
    if (err) throw UsageError("cannot run program '" + name + "': " + reason(err));
    return name;
  }
  // Like execvp: an unset PATH means the system default, an empty element
  // the current directory.
  const char *env_path = getenv("PATH");
  std::string path_list;
  if (env_path) {
    path_list = env_path;
  } else {
    size_t n = confstr(_CS_PATH, nullptr, 0);
    if (n > 0) {
      path_list.resize(n);
      confstr(_CS_PATH, path_list.data(), n);
      path_list.resize(n - 1);
    } else {
      path_list = "/bin:/usr/bin";
    }
  }
  std::string denied;  // first match that exists but cannot be run
  size_t start = 0;
  while (true) {
    size_t end = path_list.find(':', start);
    std::string dir = path_list.substr(start, end == std::string::npos ? std::string::npos : end - start);
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    int err = check_executable(candidate);
    if (err == 0) return candidate;
    if (err != ENOENT && err != ENOTDIR && denied.empty()) denied = candidate + ": " + reason(err);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  if (!denied.empty()) throw UsageError("cannot run program '" + name + "': " + denied);
  throw UsageError("program '" + name + "' not found in PATH (give a path such as ./" + name +
                   " for a program in the current directory)");
}

}  // namespace rdsm::launcher
