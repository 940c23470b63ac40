// A private directory of this user's under $TMPDIR (or /tmp), for files a
// job shares between its processes for as long as it runs.
#pragma once
#include <cstdlib>
#include <string>

namespace rdsm {

// Makes $TMPDIR/<name>.XXXXXX (mkdtemp).  Returns its path, or "" with
// errno set and *tried (if given) the path it tried.
inline std::string make_temp_dir(const char *name, std::string *tried = nullptr) {
  const char *tmp = getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/" + name + ".XXXXXX";
  if (mkdtemp(templ.data())) return templ;
  if (tried) *tried = templ;
  return "";
}

}  // namespace rdsm
