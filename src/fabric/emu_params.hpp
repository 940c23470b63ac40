// The costs the emu fabric charges, after the communication parameters of
// the Bilas et al. SVM study (host overhead, NI occupancy, I/O bandwidth,
// interrupt cost; Table 1.1) plus the wire latency the study leaves out.
//
// A transfer of `bytes` from node A to node B, issued at time t:
//   the sender's CPU is busy host_overhead;
//   A's NI is busy nic_busy(bytes) = packets * occupancy + bytes / bandwidth,
//     from when it is free (one NI per node, shared by all its threads);
//   B's NI is busy as long, starting latency after A's NI started (the
//     transfer streams through the wire: cut-through), or when B's NI is free;
//   the data is at B when B's NI is done, and a message's handler starts
//     then, plus `interrupt` when the handler runs in interrupt mode.
// A blocking get (or atomic) is a request of no data and a reply of the data.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace rdsm::fabric {

struct EmuParams {
  uint64_t host_overhead_ns = 0;  // sender CPU per operation
  uint64_t occupancy_ns = 0;      // NI time per packet, at each end
  uint64_t latency_ns = 0;        // wire, one way
  double bandwidth = 0;           // bytes per second through each node's NI; 0: unlimited
  uint64_t interrupt_ns = 0;      // per message whose handler runs in interrupt mode (issue + delivery)
  uint64_t packet_bytes = 4096;   // occupancy is charged per packet of this size

  uint64_t packets(size_t bytes) const { return bytes <= packet_bytes ? 1 : (bytes + packet_bytes - 1) / packet_bytes; }
  // Time one NI is busy with a transfer of `bytes`.
  uint64_t nic_busy(size_t bytes) const {
    uint64_t t = packets(bytes) * occupancy_ns;
    if (bandwidth > 0) t += (uint64_t)((double)bytes * 1e9 / bandwidth + 0.5);
    return t;
  }
  // True when the NIs cost nothing (no claim of shared NI state needed).
  bool free_nics() const { return occupancy_ns == 0 && bandwidth <= 0; }
};

// A named set of values and where the figures come from.
struct EmuPreset {
  const char *name;
  const char *source;
  EmuParams params;
};

// The presets, in the order `rdsm run --help` lists them; nullptr-terminated
// lookup by name.
const EmuPreset *emu_presets(size_t *count);
const EmuPreset *find_emu_preset(const std::string &name);
std::string emu_preset_names();

// The parameters named by a preset (empty: none, every cost 0) and then
// "name=value,..." settings on top; false with a one-line reason in `error`.
bool resolve_emu_params(const std::string &preset, const std::string &settings, EmuParams *out,
                        std::string &error);

// "host_overhead=3us,occupancy=5us,..." (every parameter, in the syntax the
// settings accept).
std::string describe_emu_params(const EmuParams &p);

// The parameter names and their units, for help texts.
std::string emu_settings_help();

}  // namespace rdsm::fabric
