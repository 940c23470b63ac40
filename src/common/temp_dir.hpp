// A private directory of this user's under $TMPDIR (or /tmp), for files a
// job shares between its processes for as long as it runs.
//
// Its maker holds a lock on a file in it (".owner", flock) until it removes
// the directory or dies, however it dies: a launcher killed with SIGKILL
// cannot remove what it made, so the next one to make a directory of the
// same name removes those whose lock nobody holds.  A lock, not a pid:
// pids repeat and differ between pid namespaces sharing one /tmp, while a
// lock is let go exactly when the last process holding it is gone.
#pragma once
#include <string>

namespace rdsm {

// Makes $TMPDIR/<name>.XXXXXX (mkdtemp) and locks it, after removing the
// directories of that name nobody holds.  Returns its path, or "" with
// errno set and *tried (if given) the path it tried.
std::string make_temp_dir(const char *name, std::string *tried = nullptr);

// Removes the directory and all it holds, subdirectories included, and
// lets go of its lock if this process holds it.
void remove_temp_dir(const std::string &dir);

}  // namespace rdsm
