#include "launcher/signals.hpp"

#include <csignal>

namespace rdsm::launcher {
namespace {

struct SignalInfo {
  int sig;
  const char *name;
  const char *crash;  // a program error: what went wrong, else nullptr
};

const SignalInfo kSignals[] = {
    {SIGHUP, "SIGHUP", nullptr},
    {SIGINT, "SIGINT", nullptr},
    {SIGQUIT, "SIGQUIT", nullptr},
    {SIGILL, "SIGILL", "an illegal instruction"},
    {SIGTRAP, "SIGTRAP", "a trace/breakpoint trap"},
    {SIGABRT, "SIGABRT", "an abort"},
    {SIGBUS, "SIGBUS", "a bus error"},
    {SIGFPE, "SIGFPE", "an arithmetic exception"},
    {SIGKILL, "SIGKILL", nullptr},
    {SIGUSR1, "SIGUSR1", nullptr},
    {SIGSEGV, "SIGSEGV", "a segmentation fault"},
    {SIGUSR2, "SIGUSR2", nullptr},
    {SIGPIPE, "SIGPIPE", nullptr},
    {SIGALRM, "SIGALRM", nullptr},
    {SIGTERM, "SIGTERM", nullptr},
    {SIGSTKFLT, "SIGSTKFLT", nullptr},
    {SIGCHLD, "SIGCHLD", nullptr},
    {SIGCONT, "SIGCONT", nullptr},
    {SIGSTOP, "SIGSTOP", nullptr},
    {SIGTSTP, "SIGTSTP", nullptr},
    {SIGTTIN, "SIGTTIN", nullptr},
    {SIGTTOU, "SIGTTOU", nullptr},
    {SIGURG, "SIGURG", nullptr},
    {SIGXCPU, "SIGXCPU", "the CPU time limit"},
    {SIGXFSZ, "SIGXFSZ", "the file size limit"},
    {SIGVTALRM, "SIGVTALRM", nullptr},
    {SIGPROF, "SIGPROF", nullptr},
    {SIGWINCH, "SIGWINCH", nullptr},
    {SIGIO, "SIGIO", nullptr},
    {SIGPWR, "SIGPWR", nullptr},
    {SIGSYS, "SIGSYS", "a bad system call"},
};

const SignalInfo *find(int sig) {
  for (const auto &s : kSignals)
    if (s.sig == sig) return &s;
  return nullptr;
}

}  // namespace

std::string signal_name(int sig) {
  if (const SignalInfo *s = find(sig)) return s->name;
  if (sig >= SIGRTMIN && sig <= SIGRTMAX) return "SIGRTMIN+" + std::to_string(sig - SIGRTMIN);
  return "signal " + std::to_string(sig);
}

std::string describe_signal_death(int sig, bool core_dumped) {
  const SignalInfo *s = find(sig);
  std::string text;
  text = "was killed by signal " + std::to_string(sig);
  if (s && s->crash)
    text += std::string(", ") + s->crash + " (" + s->name + ")";
  else
    text += " (" + signal_name(sig) + ")";
  if (core_dumped) text += ", core dumped";
  return text;
}

}  // namespace rdsm::launcher
