// An environment variable as it was when saved, put back when asked or when
// the saver goes: set to its old value, or unset if it was not set.  (A
// launcher that points a child's TMPDIR elsewhere for one job, a test that
// runs with a TMPDIR of its own.)  Not for a signal handler: setenv is not
// async-signal-safe.
#pragma once
#include <cstdlib>
#include <string>

namespace rdsm {

class SavedEnv {
 public:
  explicit SavedEnv(const char *name) : name_(name) {
    const char *v = getenv(name);
    had_ = v != nullptr;
    if (had_) value_ = v;
  }
  ~SavedEnv() { restore(); }
  SavedEnv(const SavedEnv &) = delete;
  SavedEnv &operator=(const SavedEnv &) = delete;

  void restore() const {
    if (had_)
      setenv(name_.c_str(), value_.c_str(), 1);
    else
      unsetenv(name_.c_str());
  }

 private:
  std::string name_, value_;
  bool had_ = false;
};

}  // namespace rdsm
