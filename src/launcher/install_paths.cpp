#include "launcher/install_paths.hpp"

#include <climits>
#include <cstdlib>
#include <unistd.h>

#if !defined(RDSM_GUIDE_DIR) || !defined(RDSM_INSTALLED_GUIDE_DIR)
#error "RDSM_GUIDE_DIR (the source tree's docs/) and the installed guide's directory must be defined"
#endif

namespace rdsm::launcher {

std::string own_directory() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  buf[n] = '\0';
  std::string path(buf);
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string guide_path() {
  for (const std::string &dir : {own_directory() + "/" + RDSM_INSTALLED_GUIDE_DIR, std::string(RDSM_GUIDE_DIR)}) {
    std::string index = dir + "/README.md";
    // Shown to users: without the bin/../ of the relative installed path.
    if (char *real = realpath(index.c_str(), nullptr)) {
      std::string found(real);
      free(real);
      return found;
    }
  }
  return "docs/README.md of the rdsm sources (share/doc/rdsm/docs/ when installed)";
}

}  // namespace rdsm::launcher
