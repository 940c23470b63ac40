// Fatal errors and diagnostics.  Every message starts with "rdsm" and the
// node, names the cause and, where there is one, what to do about it.
#pragma once
#include <cstdarg>

namespace rdsm {

// Prints "rdsm[node N]: <message>" to stderr and ends this process with
// exit status 2.  The launcher sees the exit and ends the other nodes.
[[noreturn]] void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
// Same, naming the API call that was misused: "rdsm_lock: lock id 70000 ...".
[[noreturn]] void api_error(const char *call, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
// Prints a warning line, once per distinct call site is up to the caller.
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
// Prints a line saying what rdsm chose by itself, and why.
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
// Node id shown in messages; -1 until known.
void set_diagnostic_node(int node);

// Async-signal-safe: writes the message with write(2) and _exit(2)s.
[[noreturn]] void fatal_signal_safe(const char *msg);

}  // namespace rdsm
