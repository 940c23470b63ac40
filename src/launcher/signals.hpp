// Names and plain-language descriptions of signals, for messages about how a
// node ended.
#pragma once
#include <string>

namespace rdsm::launcher {

// "SIGSEGV"; "signal 40" for one without a name.
std::string signal_name(int sig);
// How a node killed by `sig` ended, e.g. "was killed by signal 9 (SIGKILL)"
// or "was killed by signal 11, a segmentation fault (SIGSEGV)".
std::string describe_signal_death(int sig, bool core_dumped);

}  // namespace rdsm::launcher
