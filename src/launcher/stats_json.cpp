#include "launcher/stats_json.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include "fabric/emu_params.hpp"
#include "launcher/version.hpp"

namespace rdsm::launcher {
namespace {

// Length of the valid UTF-8 sequence at s[i], or 0.
size_t utf8_sequence(const std::string &s, size_t i) {
  unsigned char c = (unsigned char)s[i];
  size_t len;
  unsigned min;
  unsigned cp;
  if (c < 0x80) return 1;
  if ((c & 0xe0) == 0xc0) len = 2, min = 0x80, cp = c & 0x1f;
  else if ((c & 0xf0) == 0xe0) len = 3, min = 0x800, cp = c & 0x0f;
  else if ((c & 0xf8) == 0xf0) len = 4, min = 0x10000, cp = c & 0x07;
  else return 0;
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    unsigned char d = (unsigned char)s[i + k];
    if ((d & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (d & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return len;
}

// A JSON string; bytes that are not UTF-8 become U+FFFD.
std::string str(const std::string &s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    unsigned char c = (unsigned char)s[i];
    size_t len = utf8_sequence(s, i);
    if (len == 0) {
      out += "\\ufffd";
      ++i;
      continue;
    }
    if (len > 1) {
      out.append(s, i, len);
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += (char)c;
    }
    i += len;
  }
  return out + "\"";
}

std::string num(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string num(uint64_t v) { return std::to_string(v); }

// The emu fabric's charges of one node, by parameter (rdsm.h).
std::string emu_charges_json(const rdsm_stats &s) {
  return "{\"host_overhead\": " + num(s.emu_host_overhead) + ", \"occupancy\": " + num(s.emu_occupancy) +
         ", \"bandwidth\": " + num(s.emu_bandwidth) + ", \"latency\": " + num(s.emu_latency) +
         ", \"ni_wait\": " + num(s.emu_ni_wait) + ", \"interrupt\": " + num(s.emu_interrupt) +
         ", \"waited\": " + num(s.emu_waited) + "}";
}

// The network the emu fabric modelled: the preset and settings as given,
// and the values they resolve to (numbers, for tools that compare runs).
std::string emu_json(const RunConfig &cfg) {
  fabric::EmuParams p;
  std::string error;
  if (!fabric::resolve_emu_params(cfg.emu_preset, cfg.emu, &p, error)) return "null";  // checked before the run
  return "{\"preset\": " + str(cfg.emu_preset.empty() ? "none" : cfg.emu_preset) + ", \"settings\": " +
         str(cfg.emu) + ", \"params\": {\"host_overhead_ns\": " + num(p.host_overhead_ns) +
         ", \"occupancy_ns\": " + num(p.occupancy_ns) + ", \"latency_ns\": " + num(p.latency_ns) +
         ", \"bandwidth_bytes_per_second\": " + (p.bandwidth > 0 ? num(p.bandwidth) : "null") +
         ", \"interrupt_ns\": " + num(p.interrupt_ns) + ", \"packet_bytes\": " + num(p.packet_bytes) +
         "}, \"described\": " + str(fabric::describe_emu_params(p)) + "}";
}

// A node's compute threads, one object each (a node of several threads only).
std::string threads_json(const std::vector<ThreadStatsRow> &rows) {
  std::string out = "[";
  for (size_t i = 0; i < rows.size(); ++i) {
    const ThreadStatsRow &r = rows[i];
    out += std::string(i ? ",\n      " : "\n      ") + "{\"thread\": " + std::to_string(i) +
           ", \"total\": " + num(r.total) + ", \"compute\": " + num(r.compute) + ", \"data_wait\": " +
           num(r.data_wait) + ", \"lock_wait\": " + num(r.lock_wait) + ", \"barrier_wait\": " +
           num(r.barrier_wait) + ", \"barrier_protocol\": " + num(r.barrier_protocol) + ", \"faults\": " +
           num(r.faults) + ", \"locks\": " + num(r.locks) + "}";
  }
  return out + "]";
}

std::string node_json(const NodeRecord &n, bool emu) {
  const rdsm_stats &s = n.stats;
  const std::pair<const char *, std::string> fields[] = {
      {"rank", std::to_string(n.rank)},
      {"pid", n.forked ? "null" : std::to_string(n.pid)},
      {"forked", n.forked ? "true" : "false"},
      {"total", num(s.total)},
      {"compute", num(s.compute)},
      {"data_wait", num(s.data_wait)},
      {"lock_wait", num(s.lock_wait)},
      {"barrier_wait", num(s.barrier_wait)},
      {"barrier_protocol", num(s.barrier_protocol)},
      {"handler", num(s.handler)},
      {"handler_page", num(s.handler_page)},
      {"handler_diff", num(s.handler_diff)},
      {"handler_sync", num(s.handler_sync)},
      {"read_faults", num(s.read_faults)},
      {"write_faults", num(s.write_faults)},
      {"pages_fetched", num(s.pages_fetched)},
      {"twins", num(s.twins)},
      {"diffs", num(s.diffs)},
      {"diff_bytes", num(s.diff_bytes)},
      {"messages_sent", num(s.messages_sent)},
      {"message_bytes", num(s.message_bytes)},
      {"one_sided_ops", num(s.one_sided_ops)},
      {"invalidations", num(s.invalidations)},
      {"lock_acquires", num(s.lock_acquires)},
      {"barriers", num(s.barriers)},
      {"diff_ops", num(s.diff_ops)},
      {"migrations", num(s.migrations)},
      {"prefetched", num(s.prefetched)},
      {"prefetch_used", num(s.prefetch_used)},
      {"prefetch_wasted", num(s.prefetch_wasted)},
      {"refreshed", num(s.refreshed)},
      {"written_ahead", num(s.written_ahead)},
      {"written_ahead_unused", num(s.written_ahead_unused)},
      {"diffs_claimed", num(s.diffs_claimed)},
      {"diffs_withheld", num(s.diffs_withheld)},
      {"withheld_unmoved", num(s.withheld_unmoved)},
  };
  std::string out = "    {";
  bool first = true;
  for (const auto &f : fields) {
    out += first ? "" : ", ";
    first = false;
    out += str(f.first) + ": " + f.second;
  }
  if (!n.host.empty()) out += ", \"host\": " + str(n.host);
  if (emu) out += ", \"emu_charges\": " + emu_charges_json(s);
  if (!n.threads.empty()) out += ", \"per_thread\": " + threads_json(n.threads);
  return out + "}";
}

}  // namespace

std::string stats_json(const RunConfig &cfg, const JobResult &result) {
  std::string out = "{\n";
  auto member = [&out](const char *key, const std::string &value) {
    out += "  " + str(key) + ": " + value + ",\n";
  };
  member("rdsm_version", str(kVersion));
  member("program", str(cfg.program));
  std::string args = "[";
  for (size_t i = 0; i < cfg.args.size(); ++i) args += (i ? ", " : "") + str(cfg.args[i]);
  member("args", args + "]");
  // As the job ran them (the default preset may adapt its axes to the fabric).
  const std::string ran = result.ran_protocol(cfg);
  const size_t plus = ran.find('+');
  member("protocol", str(ran.substr(0, plus)));
  member("axes", str(plus == std::string::npos ? "" : ran.substr(plus + 1)));
  member("handler", str(cfg.handler));
  member("memory", str(result.memory));
  member("fabric", str(cfg.fabric));
  const bool emu = cfg.fabric == "emu";
  if (emu) member("emu", emu_json(cfg));
  member("placement", str(cfg.placement));
  member("region_size", num(result.region_bytes ? result.region_bytes : (uint64_t)cfg.region_bytes));
  member("locks", std::to_string(cfg.locks));
  member("threads", std::to_string(cfg.threads));
  member("nodes", std::to_string(cfg.nodes));
  member("forked_jobs", std::to_string(result.forked_jobs));
  member("wall_seconds", num(result.wall_seconds));
  member("exit_status", std::to_string(result.exit_status));
  if (!result.error.empty()) member("error", str(result.error));
  if (!result.races_json.empty()) member("races", result.races_json);
  out += "  \"per_node\": [";
  bool first = true;
  for (const auto &n : result.nodes) {
    if (!n.has_stats) continue;
    out += first ? "\n" : ",\n";
    first = false;
    out += node_json(n, emu);
  }
  out += first ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

bool write_file_atomically(const std::string &path, const std::string &text, std::string *error) {
  std::string tmp = path + ".tmp";
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    *error = "cannot create " + tmp + ": " + strerror(errno);
    return false;
  }
  const char *p = text.data();
  size_t left = text.size();
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = "cannot write " + tmp + ": " + strerror(n < 0 ? errno : EIO);
      close(fd);
      unlink(tmp.c_str());
      return false;
    }
    p += n;
    left -= (size_t)n;
  }
  if (close(fd) != 0) {
    *error = "cannot write " + tmp + ": " + strerror(errno);
    unlink(tmp.c_str());
    return false;
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    *error = "cannot rename " + tmp + " to " + path + ": " + strerror(errno);
    unlink(tmp.c_str());
    return false;
  }
  return true;
}

}  // namespace rdsm::launcher
