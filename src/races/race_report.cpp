#include "races/race_report.hpp"

#include <cinttypes>
#include <cstdio>

#include "races/call_sites.hpp"
#include "races/race_job.hpp"

namespace rdsm::races {

namespace {

std::string hex(uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

std::string plural(uint64_t n, const char *one, const char *many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string epoch_text(uint32_t epoch) {
  return "epoch " + std::to_string(epoch) +
         (epoch == 0 ? " (before the first barrier)" : " (after barrier " + std::to_string(epoch) + ")");
}

std::string json_string(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if ((unsigned char)c < 0x20) {
      char buf[8];
      snprintf(buf, sizeof buf, "\\u%04x", (unsigned char)c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

size_t index_of(const RaceReport &r, const Allocation *a) { return (size_t)(a - r.findings.allocations.data()); }

}  // namespace

RaceReport make_race_report(const std::string &dir) {
  RaceReport r;
  r.findings = analyse_race_logs(dir);
  r.sites = describe_call_sites(r.findings.allocations);
  return r;
}

std::string race_report_text(const RaceReport &report, size_t limit) {
  const RaceFindings &f = report.findings;
  std::string s;
  const bool jobs = f.jobs > 1;  // name the job only when there are several
  if (f.races.empty()) {
    s += "rdsm: race report: no data race: no two nodes wrote the same bytes in intervals unordered by "
         "synchronisation (" +
         plural(f.intervals, "interval", "intervals") + " writing " + plural(f.page_writes, "page", "pages") +
         " checked" + (f.jobs > 1 ? ", in " + std::to_string(f.jobs) + " jobs" : "") + ")\n";
  } else {
    s += "rdsm: race report: " + plural(f.races.size(), "data race", "data races") +
         ": bytes that two nodes wrote in intervals no lock, barrier or rdsm_acquire ordered (" +
         plural(f.intervals, "interval", "intervals") + " checked)\n";
    for (size_t i = 0; i < f.races.size() && i < limit; ++i) {
      const Race &r = f.races[i];
      s += "rdsm: race " + std::to_string(i + 1) + ": " + plural(r.bytes, "byte", "bytes") + " at " + hex(r.address) +
           ", written by nodes " + std::to_string(r.node_a) + " and " + std::to_string(r.node_b) + " in " +
           (jobs ? "job " + std::to_string(r.job) + ", " : "") + epoch_text(r.epoch) + "; ";
      if (r.allocation) {
        const Allocation &a = *r.allocation;
        s += "offset " + std::to_string(r.address - a.base) + " of the " + std::to_string(a.size) +
             "-byte allocation at " + hex(a.base) + " made by " + report.sites[index_of(report, &a)] + "\n";
      } else {
        s += "in no allocation rdsm knows of\n";
      }
    }
    if (f.races.size() > limit)
      s += "rdsm: ... and " + plural(f.races.size() - limit, "more race", "more races") +
           " (the --stats file lists every one)\n";
  }
  for (const std::string &gap : f.gaps) s += "rdsm: race report: incomplete: " + gap + "\n";
  return s;
}

std::string race_report_json(const RaceReport &report) {
  const RaceFindings &f = report.findings;
  std::string s = "{\"count\": " + std::to_string(f.races.size()) + ", \"complete\": " +
                  (f.gaps.empty() ? "true" : "false") + ", \"jobs\": " + std::to_string(f.jobs) +
                  ", \"intervals\": " + std::to_string(f.intervals) + ", \"page_writes\": " +
                  std::to_string(f.page_writes) + ", \"gaps\": [";
  for (size_t i = 0; i < f.gaps.size(); ++i) s += (i ? ", " : "") + json_string(f.gaps[i]);
  s += "], \"races\": [";
  for (size_t i = 0; i < f.races.size(); ++i) {
    const Race &r = f.races[i];
    s += std::string(i ? ", " : "") + "{\"job\": " + std::to_string(r.job) + ", \"epoch\": " +
         std::to_string(r.epoch) + ", \"nodes\": [" + std::to_string(r.node_a) + ", " + std::to_string(r.node_b) +
         "], \"address\": " + json_string(hex(r.address)) + ", \"bytes\": " + std::to_string(r.bytes) +
         ", \"allocation\": ";
    if (r.allocation) {
      const Allocation &a = *r.allocation;
      s += "{\"base\": " + json_string(hex(a.base)) + ", \"size\": " + std::to_string(a.size) +
           ", \"offset\": " + std::to_string(r.address - a.base) + ", \"made_by\": " +
           json_string(report.sites[index_of(report, &a)]) + "}";
    } else {
      s += "null";
    }
    s += "}";
  }
  return s + "]}";
}

void report_and_remove(const std::string &dir) {
  RaceReport r = make_race_report(dir);
  std::string text = race_report_text(r, 100);
  fflush(stdout);
  fputs(text.c_str(), stderr);
  remove_log_dir(dir);
}

}  // namespace rdsm::races
