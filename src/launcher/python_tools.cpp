#include "launcher/python_tools.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

#include "launcher/install_paths.hpp"

#if !defined(RDSM_TOOLS_DIR) || !defined(RDSM_INSTALLED_TOOLS_DIR) || !defined(RDSM_INSTALLED_PROGRAMS_DIR)
#error "RDSM_TOOLS_DIR (the source tree's tools/) and the installed tools and programs directories must be defined"
#endif

namespace rdsm::launcher {

namespace {
struct Tool {
  const char *command;
  const char *script;
};
const Tool kTools[] = {{"bench", "rdsm_bench.py"}, {"report", "rdsm_report.py"}, {"sim", "rdsm_sim.py"}};
}  // namespace

int run_python_tool(int argc, char **argv) {
  if (argc < 2) return -1;
  for (const Tool &t : kTools) {
    if (strcmp(argv[1], t.command) != 0) continue;
    // An installed launcher uses the installed tools and the programs
    // installed with them; one in a build tree, the source tree's tools
    // and the build's programs.
    const std::string here = own_directory();
    std::string script = here + "/" + RDSM_INSTALLED_TOOLS_DIR + "/" + t.script;
    std::string programs = here + "/" + RDSM_INSTALLED_PROGRAMS_DIR;
    if (access(script.c_str(), R_OK) != 0) {
      script = std::string(RDSM_TOOLS_DIR) + "/" + t.script;
      programs = here;
    }
    if (access(script.c_str(), R_OK) != 0) {
      fprintf(stderr, "rdsm: error: `rdsm %s` needs %s, which is not there (%s)\n", t.command, script.c_str(),
              strerror(errno));
      return 2;
    }
    setenv("RDSM_BUILD_DIR", programs.c_str(), 0);
    setenv("RDSM_LAUNCHER", (here + "/rdsm").c_str(), 0);  // the tools ask it for its presets
    std::vector<char *> args;
    args.push_back(const_cast<char *>("python3"));
    args.push_back(const_cast<char *>(script.c_str()));
    for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
    args.push_back(nullptr);
    execvp("python3", args.data());
    fprintf(stderr, "rdsm: error: `rdsm %s` needs python3: %s (install the Debian package python3)\n", t.command,
            strerror(errno));
    return 127;
  }
  return -1;
}

}  // namespace rdsm::launcher
