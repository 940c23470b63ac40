#include "fabric/emu_params.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/options.hpp"

namespace rdsm::fabric {

namespace {
constexpr uint64_t kUs = 1000;
constexpr double kMB = 1e6;

// The seeds' figures.  Where a paper gives only an end-to-end latency, the
// split between occupancy and wire is ours, chosen so that host overhead +
// occupancy + latency (a small message's one-way time) matches it.
const EmuPreset kPresets[] = {
    {"none", "no costs: the base fabric alone, through the emulation layer", {}},
    {"achievable",
     "Bilas et al., Table 1.1, 'achievable' values at 200 MHz (5 ns a cycle): overhead 600 cycles, occupancy "
     "1000 cycles a packet, I/O bus 0.5 MB/MHz, interrupt 500 cycles to issue + 500 to deliver; the study "
     "does not vary link latency (0 here)",
     {3 * kUs, 5 * kUs, 0, 100 * kMB, 5 * kUs, 4096}},
    {"best",
     "Bilas et al., Table 1.1, 'best' values at 200 MHz: overhead 0, occupancy 200 cycles, I/O bandwidth "
     "equal to the 400 MB/s memory bus, interrupts free",
     {0, 1 * kUs, 0, 400 * kMB, 0, 4096}},
    {"myrinet",
     "VMMC on Myrinet, Bilas et al. section 1.3 and Table 1.5: asynchronous send overhead 2 us, 1-word "
     "one-way latency 14 us (split 6 us occupancy + 6 us wire), 96 MB/s, notification 42 us",
     {2 * kUs, 6 * kUs, 6 * kUs, 96 * kMB, 42 * kUs, 4096}},
    {"via",
     "user-level VIA-style delivery, Liss et al.: post a work request 2 us, SEND one-way 22-23 us (split 10 us "
     "occupancy + 10 us wire), signal to a user handler 90 us against 45 us polling round trip (22.5 us a "
     "message), 32-bit 33 MHz PCI (132 MB/s)",
     {2 * kUs, 10 * kUs, 10 * kUs, 132 * kMB, 22500, 4096}},
    {"infiniband-sdr",
     "InfiniBand 4X SDR of the seeds' era: Noronha and Panda, ~5 us point-to-point and 10 Gb/s signalling "
     "(1 GB/s of data; split 1 us overhead + 2 us occupancy + 2 us wire); Liss et al., interrupt delivery "
     "10 us",
     {1 * kUs, 2 * kUs, 2 * kUs, 1000 * kMB, 10 * kUs, 4096}},
    {"rdma",
     "a current RDMA network (InfiniBand HDR / RoCE class, not from the seeds): 0.1 us to post, 0.1 us NI "
     "occupancy, 1 us wire (1.2 us one-way), 25 GB/s (200 Gb/s), 2 us to wake a sleeping handler thread",
     {100, 100, 1 * kUs, 25000 * kMB, 2 * kUs, 4096}},
};

bool parse_number(const std::string &text, double *v, std::string *unit) {
  errno = 0;
  char *end = nullptr;
  double x = strtod(text.c_str(), &end);
  if (end == text.c_str() || errno || !std::isfinite(x) || x < 0) return false;
  *v = x;
  *unit = end;
  return true;
}

bool parse_time(const std::string &name, const std::string &text, uint64_t *out, std::string &error) {
  double v;
  std::string unit;
  if (parse_number(text, &v, &unit)) {
    double scale = unit == "ns" ? 1 : unit == "us" ? 1e3 : unit == "ms" ? 1e6 : unit == "s" ? 1e9 : -1;
    if (unit.empty() && v == 0) scale = 1;
    if (scale > 0 && v * scale <= 1e9) {
      *out = (uint64_t)(v * scale + 0.5);
      return true;
    }
  }
  error = "emu parameter " + name + "=" + text + " is not a time up to 1 s; write a number with ns, us, ms or s (e.g. " +
          name + "=5us)";
  return false;
}

bool parse_bandwidth(const std::string &text, double *out, std::string &error) {
  double v;
  std::string unit;
  if (text == "inf" || text == "0") {
    *out = 0;
    return true;
  }
  if (parse_number(text, &v, &unit) && v > 0) {
    double scale = unit == "B/s" ? 1 : unit == "KB/s" ? 1e3 : unit == "MB/s" ? 1e6 : unit == "GB/s" ? 1e9
                   : unit == "KiB/s" ? 1024.0 : unit == "MiB/s" ? 1048576.0 : unit == "GiB/s" ? 1073741824.0 : -1;
    if (scale > 0 && v * scale >= 1e3) {
      *out = v * scale;
      return true;
    }
  }
  error = "emu parameter bandwidth=" + text +
          " is not a bandwidth of at least 1 KB/s; write a number with B/s, KB/s, MB/s or GB/s (e.g. "
          "bandwidth=1GB/s), or inf for no limit";
  return false;
}

std::string fmt_time(uint64_t ns) {
  char b[48];
  if (ns % 1000 == 0) snprintf(b, sizeof b, "%lluus", (unsigned long long)(ns / 1000));
  else snprintf(b, sizeof b, "%lluns", (unsigned long long)ns);
  return b;
}
}  // namespace

const EmuPreset *emu_presets(size_t *count) {
  *count = sizeof kPresets / sizeof kPresets[0];
  return kPresets;
}

const EmuPreset *find_emu_preset(const std::string &name) {
  for (const EmuPreset &p : kPresets)
    if (name == p.name) return &p;
  return nullptr;
}

std::string emu_preset_names() {
  std::string s;
  for (const EmuPreset &p : kPresets) s += std::string(s.empty() ? "" : ", ") + p.name;
  return s;
}

std::string emu_settings_help() {
  return "host_overhead=TIME (sender CPU per operation), occupancy=TIME (NI per packet), latency=TIME (wire, one "
         "way), bandwidth=RATE (per node, e.g. 1GB/s; inf: none), interrupt=TIME (per message handled in "
         "interrupt mode), packet=SIZE (e.g. 4K); TIME as 500ns, 5us, 1ms";
}

bool resolve_emu_params(const std::string &preset, const std::string &settings, EmuParams *out,
                        std::string &error) {
  EmuParams p;
  if (!preset.empty()) {
    const EmuPreset *found = find_emu_preset(preset);
    if (!found) {
      error = "unknown emu preset '" + preset + "'; the presets are: " + emu_preset_names();
      return false;
    }
    p = found->params;
  }
  size_t at = 0;
  while (!settings.empty() && at <= settings.size()) {
    size_t end = settings.find(',', at);
    if (end == std::string::npos) end = settings.size();
    std::string item = settings.substr(at, end - at);
    at = end + 1;
    size_t eq = item.find('=');
    std::string name = item.substr(0, eq), value = eq == std::string::npos ? "" : item.substr(eq + 1);
    if (eq == std::string::npos || value.empty()) {
      error = "emu setting '" + item + "' is not NAME=VALUE; the settings are " + emu_settings_help();
      return false;
    }
    bool ok = true;
    if (name == "host_overhead") ok = parse_time(name, value, &p.host_overhead_ns, error);
    else if (name == "occupancy") ok = parse_time(name, value, &p.occupancy_ns, error);
    else if (name == "latency") ok = parse_time(name, value, &p.latency_ns, error);
    else if (name == "interrupt") ok = parse_time(name, value, &p.interrupt_ns, error);
    else if (name == "bandwidth") ok = parse_bandwidth(value, &p.bandwidth, error);
    else if (name == "packet") {
      size_t bytes = 0;
      ok = parse_size(value, &bytes) && bytes >= 64 && bytes <= (1u << 30);
      if (ok) p.packet_bytes = bytes;
      else error = "emu parameter packet=" + value + " is not a packet size from 64 bytes to 1G (e.g. packet=4K)";
    } else {
      error = "unknown emu parameter '" + name + "'; the parameters are " + emu_settings_help();
      ok = false;
    }
    if (!ok) return false;
  }
  *out = p;
  return true;
}

std::string describe_emu_params(const EmuParams &p) {
  char bw[48];
  if (p.bandwidth <= 0) snprintf(bw, sizeof bw, "inf");
  else if (p.bandwidth >= 1e9) snprintf(bw, sizeof bw, "%gGB/s", p.bandwidth / 1e9);
  else snprintf(bw, sizeof bw, "%gMB/s", p.bandwidth / 1e6);
  return "host_overhead=" + fmt_time(p.host_overhead_ns) + ",occupancy=" + fmt_time(p.occupancy_ns) +
         ",latency=" + fmt_time(p.latency_ns) + ",bandwidth=" + bw + ",interrupt=" + fmt_time(p.interrupt_ns) +
         ",packet=" + std::to_string(p.packet_bytes);
}

}  // namespace rdsm::fabric
