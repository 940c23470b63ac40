#include "races/allocation_sites.hpp"

#include <climits>
#include <cstring>
#include <dlfcn.h>
#include <link.h>
#include <mutex>
#include <string>
#include <unistd.h>

#include "races/race_job.hpp"
#include "races/race_log_format.hpp"

namespace rdsm::races {

namespace {
struct Noted {
  uintptr_t base;
  uint64_t size;
  uintptr_t pc;
};

std::mutex g_mu;  // compute threads of a node allocate concurrently (--threads)
std::vector<Noted> g_noted;

template <class T>
void put(std::vector<uint8_t> &out, T v) {
  size_t at = out.size();
  out.resize(at + sizeof v);
  memcpy(out.data() + at, &v, sizeof v);
}

void put_text(std::vector<uint8_t> &out, const std::string &s) {
  size_t n = std::min<size_t>(s.size(), 0xffff);
  put<uint16_t>(out, (uint16_t)n);
  out.insert(out.end(), s.begin(), s.begin() + (ptrdiff_t)n);
}

// The file of the module holding `pc`: the program itself has no name in
// the loader's list (and its argv[0] may be a bare name found on PATH), so
// it is named by /proc/self/exe.
std::string module_file(const Dl_info &info, const link_map *map) {
  if (map && map->l_name && map->l_name[0]) return map->l_name;
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) return std::string(exe, (size_t)n);
  return info.dli_fname ? info.dli_fname : "";
}
}  // namespace

void *note_allocation(void *base, size_t size, const void *pc) {
  if (!enabled() || !base) return base;
  std::lock_guard<std::mutex> g(g_mu);
  g_noted.push_back({reinterpret_cast<uintptr_t>(base), size, reinterpret_cast<uintptr_t>(pc)});
  return base;
}

void encode_allocations(std::vector<uint8_t> &out) {
  std::lock_guard<std::mutex> g(g_mu);
  for (const Noted &n : g_noted) {
    Dl_info info{};
    link_map *map = nullptr;
    // dladdr finds the module (the program or a shared library) of any
    // address in it; a symbol name only where the module exports one.
    bool found = dladdr1(reinterpret_cast<void *>(n.pc), &info, reinterpret_cast<void **>(&map), RTLD_DL_LINKMAP) != 0;
    put<uint8_t>(out, kAllocation);
    put<uint64_t>(out, n.base);
    put<uint64_t>(out, n.size);
    put<uint64_t>(out, n.pc);
    put<uint64_t>(out, found ? reinterpret_cast<uintptr_t>(info.dli_fbase) : 0);
    put<uint64_t>(out, found ? reinterpret_cast<uintptr_t>(info.dli_saddr) : 0);
    put_text(out, found ? module_file(info, map) : std::string());
    put_text(out, found && info.dli_sname ? info.dli_sname : "");
  }
}

}  // namespace rdsm::races
