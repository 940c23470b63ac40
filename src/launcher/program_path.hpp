// Finding the program to run the way execvp(3) will, so that a missing or
// non-executable program is reported before any node is started.
#pragma once
#include <string>

namespace rdsm::launcher {

// Returns the path execvp would run for `name`: `name` itself if it contains
// a '/', else the first executable regular file of that name in $PATH.
// Throws UsageError naming the program and the reason when there is none.
std::string find_program(const std::string &name);

}  // namespace rdsm::launcher
