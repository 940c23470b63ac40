// Where the launcher finds what is installed with it: relative to its own
// executable in an installed tree (which may have been moved), else in the
// source tree it was built from.
#pragma once
#include <string>

namespace rdsm::launcher {

// The directory of this executable: a build tree, or an installed bin/.
std::string own_directory();

// The index of the user guide (docs/README.md): the installed copy, else
// the source tree's; a description of where to find it if neither is there.
std::string guide_path();

}  // namespace rdsm::launcher
