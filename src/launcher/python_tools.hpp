// `rdsm bench` and `rdsm report` are Python tools kept in the source tree's
// tools/ directory; the launcher hands the command over to them.
#pragma once

namespace rdsm::launcher {

// If argv[1] names a Python tool, replaces this process with it (returning
// only on failure, with the exit status to use); otherwise returns -1.
int run_python_tool(int argc, char **argv);

}  // namespace rdsm::launcher
