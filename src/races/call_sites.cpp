#include "races/call_sites.hpp"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <map>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace rdsm::races {

namespace {

std::string hex(uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

std::string base_name(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Whether the module's addresses are offsets from where it was loaded (a
// position-independent program or a shared library), not fixed ones.
bool loaded_anywhere(const std::string &module) {
  int fd = open(module.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return true;
  Elf64_Ehdr h{};
  bool dyn = read(fd, &h, sizeof h) != (ssize_t)sizeof h || memcmp(h.e_ident, ELFMAG, SELFMAG) != 0 ||
             h.e_type == ET_DYN;
  close(fd);
  return dyn;
}

// Runs addr2line on `module` for `addresses`; returns its output, empty if
// it could not run.
std::string run_addr2line(const std::string &module, const std::vector<std::string> &addresses) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return "";
  std::vector<std::string> args = {"addr2line", "-a", "-f", "-C", "-i", "-e", module};
  args.insert(args.end(), addresses.begin(), addresses.end());
  std::vector<char *> argv;
  for (std::string &a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  int err = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) {
    close(out[0]);
    close(out[1]);
    return "";
  }
  close(out[1]);
  std::string text;
  char buf[4096];
  for (;;) {
    ssize_t n = read(out[0], buf, sizeof buf);
    if (n > 0) {
      text.append(buf, (size_t)n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;
  }
  close(out[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? text : "";
}

// From addr2line's frames for one address (innermost first, function then
// file:line), the first that is the program's own: rdsm's C++ header and
// the standard library's (an rdsm::allocator in a std::vector) are inlined
// into their callers, which are what the user wrote.  Without line
// information, the function alone.
std::string pick_frame(const std::vector<std::pair<std::string, std::string>> &frames) {
  std::string function_only;
  for (const auto &[function, where] : frames) {
    const bool named = !function.empty() && function != "??";
    if (function_only.empty() && named) function_only = function + " (no line information: build with -g)";
    std::string place = where.substr(0, where.find(" (discriminator"));
    if (place.empty() || place[0] == '?') continue;
    if (place.size() >= 2 && place.compare(place.size() - 2, 2, ":0") == 0) continue;
    std::string path = place.substr(0, place.rfind(':'));
    if (base_name(path) == "rdsm.hpp" || path.compare(0, 13, "/usr/include/") == 0) continue;
    return (named ? function + " at " : std::string()) + base_name(place);
  }
  return function_only;
}

}  // namespace

std::vector<std::string> describe_call_sites(const std::vector<Allocation> &allocations) {
  std::vector<std::string> out(allocations.size());
  // The allocations of each module, resolved by one run of addr2line.
  std::map<std::string, std::vector<size_t>> by_module;
  for (size_t i = 0; i < allocations.size(); ++i)
    if (!allocations[i].module.empty() && allocations[i].pc) by_module[allocations[i].module].push_back(i);
  for (const auto &[module, which] : by_module) {
    const bool relative = loaded_anywhere(module);
    std::vector<std::string> addresses;
    for (size_t i : which) {
      const Allocation &a = allocations[i];
      // The return address is just past the call: one byte back is inside
      // it, on the call's line.
      addresses.push_back(hex((relative ? a.pc - a.module_base : a.pc) - 1));
    }
    std::string text = run_addr2line(module, addresses);
    std::vector<std::vector<std::pair<std::string, std::string>>> frames;
    size_t at = 0;
    std::string pending;  // a function line waiting for its location
    bool have_function = false;
    while (at < text.size()) {
      size_t nl = text.find('\n', at);
      if (nl == std::string::npos) nl = text.size();
      std::string line = text.substr(at, nl - at);
      at = nl + 1;
      if (!have_function && line.compare(0, 2, "0x") == 0) {
        frames.emplace_back();
        continue;
      }
      if (frames.empty()) continue;
      if (!have_function) {
        pending = line;
        have_function = true;
      } else {
        frames.back().emplace_back(pending, line);
        have_function = false;
      }
    }
    for (size_t k = 0; k < which.size(); ++k)
      if (k < frames.size()) out[which[k]] = pick_frame(frames[k]);
  }
  for (size_t i = 0; i < allocations.size(); ++i) {
    if (!out[i].empty()) continue;
    const Allocation &a = allocations[i];
    if (!a.symbol.empty())
      out[i] = a.symbol + "+" + hex(a.pc - a.symbol_addr) + " in " + base_name(a.module);
    else if (!a.module.empty())
      out[i] = base_name(a.module) + "+" + hex(a.pc - a.module_base);
    else
      out[i] = "an unknown call (" + hex(a.pc) + ")";
  }
  return out;
}

}  // namespace rdsm::races
