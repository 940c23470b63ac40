// rdsm: the command line tool.  `rdsm run -n N prog args...` runs a program
// as a job of N nodes; see `rdsm run --help`.
#include <cstdio>

#include "launcher/cli.hpp"
#include "launcher/install_paths.hpp"
#include "launcher/job.hpp"
#include "launcher/mpi_launch.hpp"
#include "launcher/python_tools.hpp"
#include "launcher/stats_json.hpp"
#include "launcher/summary.hpp"
#include "launcher/version.hpp"
#include "races/race_job.hpp"
#include "races/race_report.hpp"
#include "stats/trace.hpp"

using namespace rdsm::launcher;

namespace {

// Races listed on stderr; the --stats file has every one.
constexpr size_t kRacesListed = 100;

int run(const RunConfig &given) {
  RunConfig cfg = given;
  // Under the mpi fabric node 0 merges the trace's parts (they may be on
  // other hosts), and races are refused (cli.cpp).
  const bool mpi = cfg.fabric == "mpi";
  const bool merge_trace = !mpi && !cfg.trace_file.empty();
  // Parts left by an earlier job that died with its launcher are not this job's.
  if (merge_trace) rdsm::trace::remove_parts(cfg.trace_file);
  if (cfg.races) {
    std::string error;
    if (!rdsm::races::make_log_dir(&cfg.races_dir, &error)) {
      fprintf(stderr, "rdsm: error: --races: %s\n", error.c_str());
      return 1;
    }
  }
  JobResult result = mpi ? run_mpirun(cfg) : run_job(cfg);
  // A race report is no failure: the exit status stays the program's.
  std::string race_text;
  if (cfg.races) {
    if (result.end == JobEnd::success) {
      rdsm::races::RaceReport report = rdsm::races::make_race_report(cfg.races_dir);
      race_text = rdsm::races::race_report_text(report, kRacesListed);
      result.races_json = rdsm::races::race_report_json(report);
    }
    rdsm::races::remove_log_dir(cfg.races_dir);
  }
  int status = result.exit_status;
  if (merge_trace) {
    if (!rdsm::trace::merge_parts(cfg.trace_file)) {
      if (status == 0) status = 1;
    } else if (!cfg.quiet) {
      fprintf(stderr, "rdsm: timeline trace in %s (open it in https://ui.perfetto.dev)\n", cfg.trace_file.c_str());
    }
  }
  if (!cfg.stats_file.empty()) {
    std::string error;
    if (!write_file_atomically(cfg.stats_file, stats_json(cfg, result), &error)) {
      fprintf(stderr, "rdsm: error: cannot write the statistics: %s\n", error.c_str());
      if (status == 0) status = 1;
    }
  }
  if (result.end == JobEnd::success && !cfg.quiet) print_summary(stderr, cfg, result);
  fputs(race_text.c_str(), stderr);  // also with --quiet: it was asked for
  return status;
}

}  // namespace

int main(int argc, char **argv) {
  if (int status = run_python_tool(argc, argv); status >= 0) return status;
  CommandLine cl;
  try {
    cl = parse_command_line(argc, argv);
  } catch (const UsageError &e) {
    fprintf(stderr, "rdsm: error: %s\n", e.what());
    return 2;
  }
  switch (cl.action) {
    case Action::help: fputs(general_help().c_str(), stdout); return 0;
    case Action::run_help: fputs(run_help().c_str(), stdout); return 0;
    case Action::version: printf("rdsm %s\nuser guide: %s\n", kVersion, guide_path().c_str()); return 0;
    case Action::run: return run(cl.run);
  }
  return 0;
}
