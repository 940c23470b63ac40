#include "launcher/summary.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "fabric/emu_params.hpp"

namespace rdsm::launcher {
namespace {

// A plain text table: the first column left-aligned, the others right-aligned.
class Table {
 public:
  explicit Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }

  void print(FILE *out) const {
    std::vector<size_t> width(rows_[0].size(), 0);
    for (const auto &row : rows_)
      for (size_t c = 0; c < row.size() && c < width.size(); ++c) width[c] = std::max(width[c], row[c].size());
    for (const auto &row : rows_) {
      std::string line;
      for (size_t c = 0; c < width.size(); ++c) {
        const std::string cell = c < row.size() ? row[c] : "";
        std::string pad(width[c] - cell.size(), ' ');
        if (c == 0) line += cell + pad;
        else line += "  " + pad + cell;
      }
      fprintf(out, "%s\n", line.c_str());
    }
  }

 private:
  std::vector<std::vector<std::string>> rows_;
};

std::string fixed(double v, int decimals) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string kib(double bytes) { return fixed(bytes / 1024.0, 1); }

std::string count(double v) { return fixed(v, 0); }

// The values shown, in the tables' order; double so that the mean row is
// computed alike.
std::vector<double> times_of(const rdsm_stats &s) {
  return {s.total, s.compute, s.data_wait, s.lock_wait, s.barrier_wait, s.barrier_protocol, s.handler};
}

// A compute thread's row of the time table: no handler time of its own.
std::vector<std::string> thread_time_cells(const std::string &label, const ThreadStatsRow &r) {
  std::vector<std::string> row{label};
  for (double x : {r.total, r.compute, r.data_wait, r.lock_wait, r.barrier_wait, r.barrier_protocol})
    row.push_back(fixed(x, 3));
  row.push_back("-");
  return row;
}

std::vector<double> counts_of(const rdsm_stats &s) {
  return {(double)s.read_faults,   (double)s.write_faults,  (double)s.pages_fetched,
          (double)s.twins,         (double)s.diffs,         (double)s.diff_bytes,
          (double)s.messages_sent, (double)s.message_bytes, (double)s.one_sided_ops};
}

// What the protocol's optimisations did: diff operations, home
// migrations, prefetches and how many of them were used, refreshes, pages
// opened ahead of write streams and how many of them stayed unwritten,
// diffs written with the home's page claimed.
std::vector<double> protocol_counts_of(const rdsm_stats &s) {
  return {(double)s.diff_ops,  (double)s.invalidations, (double)s.migrations,
          (double)s.prefetched, (double)s.prefetch_used, (double)s.prefetch_wasted,
          (double)s.refreshed,  (double)s.written_ahead, (double)s.written_ahead_unused,
          (double)s.diffs_claimed};
}

// The emu fabric's charges by parameter, then what the node waited for them.
std::vector<double> emu_charges_of(const rdsm_stats &s) {
  return {s.emu_host_overhead, s.emu_occupancy, s.emu_bandwidth, s.emu_latency,
          s.emu_ni_wait,       s.emu_interrupt, s.emu_waited};
}

std::vector<std::string> plain_count_cells(const std::string &label, const std::vector<double> &v) {
  std::vector<std::string> row{label};
  for (double x : v) row.push_back(count(x));
  return row;
}

// Columns 5 and 7 of the counts are bytes, shown in KiB.
std::vector<std::string> count_cells(const std::string &label, const std::vector<double> &v) {
  std::vector<std::string> row{label};
  for (size_t c = 0; c < v.size(); ++c) row.push_back(c == 5 || c == 7 ? kib(v[c]) : count(v[c]));
  return row;
}

std::vector<std::string> time_cells(const std::string &label, const std::vector<double> &v) {
  std::vector<std::string> row{label};
  for (double x : v) row.push_back(fixed(x, 3));
  return row;
}

// Seconds shown as milliseconds: a test-sized run's charges are a few ms.
std::vector<std::string> ms_cells(const std::string &label, const std::vector<double> &v) {
  std::vector<std::string> row{label};
  for (double x : v) row.push_back(fixed(1e3 * x, 3));
  return row;
}

}  // namespace

void print_summary(FILE *out, const RunConfig &cfg, const JobResult &result) {
  std::string memory = result.memory.empty() ? "" : ", memory " + result.memory;
  fprintf(out, "rdsm: protocol %s, handler %s%s, %d node%s, fabric %s, wall time %.3f s\n", result.ran_protocol(cfg).c_str(),
          cfg.handler.c_str(), memory.c_str(), cfg.nodes, cfg.nodes == 1 ? "" : "s", cfg.fabric.c_str(), result.wall_seconds);
  size_t forked = 0;
  for (const auto &n : result.nodes) forked += n.forked;
  if (forked)
    fprintf(out, "rdsm: fork-join program: %d job%s, up to %zu forked worker%s (rows w1..w%zu, each summed over its jobs)\n",
            result.forked_jobs, result.forked_jobs == 1 ? "" : "s", forked, forked == 1 ? "" : "s", forked);

  size_t with_stats = 0;
  for (const auto &n : result.nodes) with_stats += n.has_stats;
  if (with_stats == 0) {
    fprintf(out, "rdsm: no statistics: no node called rdsm_init and rdsm_finalize\n");
    return;
  }

  Table times({"node", "total(s)", "compute", "data wait", "lock wait", "barrier wait", "barrier proto", "handler"});
  Table counts({"node", "read faults", "write faults", "fetches", "twins", "diffs", "diff KiB", "messages",
                "msg KiB", "one-sided"});
  Table protocol({"node", "diff ops", "invalidations", "migrated in", "prefetched", "used", "wasted", "refreshed",
                  "opened ahead", "unwritten", "claimed"});
  Table emu({"node", "host overhead", "occupancy", "bandwidth", "latency", "NI wait", "interrupt", "waited"});
  Table thread_events({"thread", "faults", "locks"});
  bool any_threads = false;
  std::vector<double> time_sum(7, 0.0), count_sum(9, 0.0), protocol_sum(10, 0.0), emu_sum(7, 0.0);
  for (const auto &n : result.nodes) {
    // Appended rather than "w" + std::to_string(...): GCC 12 at -O3 warns
    // (-Wrestrict) about the inlined operator+(const char *, string &&).
    std::string label = n.forked ? "w" : "";
    label += std::to_string(n.rank);
    if (!n.has_stats) {
      times.add(std::vector<std::string>{label, "-", "-", "-", "-", "-", "-", "-"});
      counts.add(std::vector<std::string>{label, "-", "-", "-", "-", "-", "-", "-", "-", "-"});
      protocol.add(std::vector<std::string>{label, "-", "-", "-", "-", "-", "-", "-", "-", "-"});
      emu.add(std::vector<std::string>{label, "-", "-", "-", "-", "-", "-", "-"});
      continue;
    }
    std::vector<double> t = times_of(n.stats), c = counts_of(n.stats), pc = protocol_counts_of(n.stats),
                        e = emu_charges_of(n.stats);
    for (size_t i = 0; i < t.size(); ++i) time_sum[i] += t[i];
    for (size_t i = 0; i < c.size(); ++i) count_sum[i] += c[i];
    for (size_t i = 0; i < pc.size(); ++i) protocol_sum[i] += pc[i];
    for (size_t i = 0; i < e.size(); ++i) emu_sum[i] += e[i];
    times.add(time_cells(label, t));
    // Its compute threads under it, `0.t1` for thread 1 of node 0.
    for (size_t i = 0; i < n.threads.size(); ++i) {
      std::string thread_label = label + ".t" + std::to_string(i);
      times.add(thread_time_cells(thread_label, n.threads[i]));
      thread_events.add(plain_count_cells(thread_label, {(double)n.threads[i].faults, (double)n.threads[i].locks}));
      any_threads = true;
    }
    counts.add(count_cells(label, c));
    protocol.add(plain_count_cells(label, pc));
    emu.add(ms_cells(label, e));
  }
  for (double &x : time_sum) x /= (double)with_stats;
  for (double &x : count_sum) x /= (double)with_stats;
  for (double &x : protocol_sum) x /= (double)with_stats;
  times.add(time_cells("mean", time_sum));
  counts.add(count_cells("mean", count_sum));
  protocol.add(plain_count_cells("mean", protocol_sum));
  for (double &x : emu_sum) x /= (double)with_stats;
  emu.add(ms_cells("mean", emu_sum));

  fprintf(out, "\ntime (s)\n");
  times.print(out);
  fprintf(out, "\nevents\n");
  counts.print(out);
  if (any_threads) {
    fprintf(out, "\nthread events\n");
    thread_events.print(out);
  }
  fprintf(out, "\nprotocol\n");
  protocol.print(out);
  if (cfg.fabric == "emu") {
    // What the modelled network charged: by parameter for the transfers each
    // node started, and the part its threads waited out.
    fabric::EmuParams p;
    std::string error;
    fprintf(out, "\nemu charges (ms), network %s%s", cfg.emu_preset.empty() ? "none" : cfg.emu_preset.c_str(),
            cfg.emu.empty() ? "" : (" + " + cfg.emu).c_str());
    if (fabric::resolve_emu_params(cfg.emu_preset, cfg.emu, &p, error))
      fprintf(out, "\n(%s)", fabric::describe_emu_params(p).c_str());
    fprintf(out, "\n");
    emu.print(out);
  }
  if (with_stats < result.nodes.size())
    fprintf(out, "(-: %s; the mean is over the %zu node%s that did)\n",
            cfg.fabric == "mpi" ? "no statistics of the node reached rdsm" : "the node did not call rdsm_init",
            with_stats, with_stats == 1 ? "" : "s");
}

}  // namespace rdsm::launcher
