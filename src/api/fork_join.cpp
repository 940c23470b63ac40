#include "api/fork_join.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <string>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <thread>
#include <time.h>
#include <unistd.h>
#include <functional>
#include <vector>

#include "api/adopted_homes.hpp"
#include "api/fork_join_ranks.hpp"
#include "api/runtime_teardown.hpp"
#include "api/runtime.hpp"
#include "api/seed_homes.hpp"
#include "api/spare_worker_file.hpp"
#include "api/splash_order.hpp"
#include "api/worker_watch.hpp"
#include "bootstrap/node_file.hpp"
#include "common/available_memory.hpp"
#include "common/clock.hpp"
#include "common/error.hpp"
#include "common/message_signal.hpp"
#include "common/usable_cpus.hpp"
#include "memory/region.hpp"
#include "stats/stats.hpp"

namespace rdsm::fj {

namespace {

constexpr uintptr_t kLowRegionBase = 0x40000000;  // 1 GiB
constexpr uintptr_t kLowRegionTop = 0x100000000;  // 4 GiB

using Worker = WatchedWorker;

// The next job's first worker's memory file, given its memory while the
// master sets up alone (spare_worker_file.hpp).  Never destroyed, as g.
SpareWorkerFile &spare = *new SpareWorkerFile;

// Private to the master; a worker gets a copy at fork and only reads it.
struct State {
  bool on = false;
  bool worker = false;
  pid_t master = 0;
  Options base;  // the environment's options, sized for fork-join jobs
  int file0 = -1;
  std::vector<void (*)()> pending;
  // Compute threads of the current job (the master and the functions CREATE
  // handed out: job_workers()), T to a node, node-major.
  int job_workers = 1;
  bool helpers = false;  // the master's node runs CREATE'd functions on threads of its own
  std::vector<Worker> workers;
  std::vector<int> worker_files;
  SeedPlan seed;  // where the master's data goes at CREATE (seed_homes.hpp)
  // One word per rank, shared with the workers: 1 once the worker has left its job normally (an expected exit).
  std::atomic<uint32_t> *left = nullptr;
  WorkerWatch watch;   // the workers of the current job
  std::thread reaper;  // reaps the last job's workers while the master goes on; joined before the next job
  std::atomic<bool> exiting{false};  // the master is ending the program itself
};
// Never destroyed: exit() may end the program while the watcher runs.
State &g = *new State;

// The master is alone and will be until its first CREATE: a file for the
// first worker is given memory meanwhile, where a CPU is free for it and
// the protocol keeps copies in the workers' files.
void prepare_spare(Runtime &rt) {
  if (usable_cpus() < 2 || rt.protocol->config().coherence == CoherenceAxis::hardware) return;
  const uint64_t budget = std::min<uint64_t>(g.base.prepopulate_bytes, available_memory_bytes() / 4);
  spare.start(rt.protocol->data_segment().fd_offset, rt.allocator->used_bytes(), budget);
}

void check_master(const char *call) {
  if (!g.on) api_error(call, "called before MAIN_INITENV; the master calls MAIN_INITENV first");
  if (g.worker || NodeThreads::local_id() != 0)
    api_error(call, "called by a worker; only the master (the process that ran MAIN_INITENV) may: call %s from the "
              "master", call);
}

// Workers of one fork-join job: kMaxForkJoinNodes nodes of --threads each.
int max_workers() { return kMaxForkJoinNodes * g.base.threads; }

Options job_options(int nodes, int rank, const std::vector<int> &files) {
  Options o = g.base;
  o.nodes = nodes;
  o.rank = rank;
  o.node_fds = format_fd_list(files);
  // A launcher reads only the master's node block; a worker's block is read
  // by the master (its statistics, and its heartbeat, which the master
  // watches as a launcher watches its nodes).
  o.launched = rank == 0 ? g.base.launched : true;
  return o;
}

// Clears the master's file but its node block and what the next job keeps (fork_join.hpp): zeroed rings,
// directories and versions.
struct KeptRange {
  uint64_t begin, end;
};
KeptRange kept_range(Runtime &rt) {
  const fabric::Segment &data = rt.protocol->data_segment();
  uint64_t data_end = data.fd_offset + (data.bytes + 4095) / 4096 * 4096;
  return {rt.allocator->file_offset(), data_end};
}
void clear_all_but(KeptRange k) {
  discard_file_range(g.file0, kNodeBlockBytes, k.begin - kNodeBlockBytes);
  discard_file_range(g.file0, k.end, kNodeFileBytes - k.end);
}

std::string signal_name(int sig) {
  const char *abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "unknown signal";
}

// Describes how a worker ended; empty if it ended normally.
std::string abnormal_end(const Worker &w, int code, int status) {
  char buf[256];
  if (code == CLD_KILLED || code == CLD_DUMPED) {
    snprintf(buf, sizeof buf, "node %d (pid %d) was killed by signal %d (%s)", w.rank, (int)w.pid, status,
             signal_name(status).c_str());
  } else if (status != 0) {
    snprintf(buf, sizeof buf, "node %d (pid %d) exited with status %d", w.rank, (int)w.pid, status);
  } else if (!g.left[w.rank].load()) {
    snprintf(buf, sizeof buf,
             "node %d (pid %d) exited before its CREATE'd function returned (a worker must return, not exit)",
             w.rank, (int)w.pid);
  } else {
    return "";
  }
  return buf;
}

[[noreturn]] void end_program(const std::string &why, int code, int status) {
  for (const Worker &w : g.workers) kill(w.pid, SIGKILL);
  // Reaped before the master goes, so that none outlives the program.
  for (const Worker &w : g.workers) waitpid(w.pid, nullptr, 0);
  fflush(nullptr);
  fprintf(stderr, "rdsm[node 0]: error: %s; ending the program\n", why.c_str());
  _exit(code == CLD_EXITED ? (status ? status : 1) : 128 + status);
}

// A finalized worker has nothing left to give the master but its exit
// status, and its exit (the kernel freeing its memory) takes milliseconds
// the master need not wait for: a thread reaps the workers and ends the
// program if one ended badly after all.  The master joins it before it
// forks the next job's workers and before it leaves.
void reap_in_background(const char *call) {
  std::vector<Worker> leaving = std::move(g.workers);
  g.workers.clear();
  g.reaper = std::thread([leaving = std::move(leaving), call] {
    block_message_signal_here();
    g.watch.finish();  // before the pidfds it polls are closed
    for (const Worker &w : leaving) {
      siginfo_t si{};
      if (waitid(P_PID, (id_t)w.pid, &si, WEXITED) != 0)
        fatal("%s: waiting for node %d failed: %s", call, w.rank, strerror(errno));
      std::string why = abnormal_end(w, si.si_code, si.si_status);
      if (!why.empty()) end_program(why, si.si_code, si.si_status);
      close(w.pidfd);
    }
  });
}

void join_reaper() {
  if (g.reaper.joinable()) g.reaper.join();
}

// Starts watching the workers of the job just formed (worker_watch.hpp).
void start_watcher() {
  g.watch.start(
      g.workers, g.worker_files, g.base.hang_seconds,
      [](const Worker &w, int code, int status) {
        if (g.exiting.load()) return false;  // the master killed its workers on its way out
        std::string why = abnormal_end(w, code, status);
        if (!why.empty()) end_program(why, code, status);
        return true;
      },
      [](const Worker &, const char *why) { end_program(why, CLD_EXITED, 1); });
}

// Runs a node's share of the workers: fns[0] on the calling thread, the
// others on threads of the node (--threads).
void run_on_threads(const std::vector<void (*)()> &fns, bool wait) {
  if (fns.size() > 1) {
    std::vector<std::function<void()>> others;
    for (size_t i = 1; i < fns.size(); ++i) others.push_back([f = fns[i]] { f(); end_turn(); });
    runtime_for("CREATE").threads->start_helpers(others, "CREATE");
    g.helpers = true;
  }
  if (fns.empty() || !fns[0]) return;
  {
    OutsideRdsm program;
    fns[0]();
  }
  end_turn();  // a worker that never synchronised (splash_order.hpp)
  if (wait && g.helpers) {
    runtime_for("CREATE").threads->join_helpers();
    g.helpers = false;
  }
}

// The functions node `rank` runs, T to a node, node-major: worker 0 is the
// master (nullptr: it goes on with the program), worker w >= 1 runs the
// w-th function CREATE handed out.
std::vector<void (*)()> functions_of(int rank) {
  const int t = g.base.threads;
  std::vector<void (*)()> fns;
  for (int w = rank * t; w < std::min(g.job_workers, (rank + 1) * t); ++w) fns.push_back(w ? g.pending[w - 1] : nullptr);
  return fns;
}

[[noreturn]] void run_worker(int rank, int nodes, const std::vector<int> &files, const std::vector<void (*)()> &fns) {
  // Die with the master; if it is already gone, do not start.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != g.master) _exit(1);
  g.worker = true;
  g.watch.close_in_worker();
  abandon_kept_teardown();  // the master's one-node runtime, which the master destroys (form)
  runtime_build(job_options(nodes, rank, files),
                [&](Runtime &rt) { take_seeded_share(g.seed, *rt.protocol, nodes, rank, g.file0, files[rank]); });
  // The master allocated and set up everything so far: shared data this worker will read.
  runtime_for("CREATE").allocator->populate_allocated();
  run_on_threads(fns, true);
  // The job's final barrier: this worker's last release.  Its statistics go
  // to its node block, from which the master passes them on to a launcher
  // (record_worker_stats).  The exit frees the rest.
  runtime_leave(true, {}, Teardown::left_to_exit);
  g.left[rank].store(1);
  fflush(nullptr);
  _exit(0);
}

void form(const char *call) {
  g.job_workers = 1 + (int)g.pending.size();
  if (ranks::active()) {
    std::vector<void (*)()> fns{nullptr};  // worker 0 is the master
    fns.insert(fns.end(), g.pending.begin(), g.pending.end());
    g.pending.clear();
    ranks::start_job(fns, call);
    return;  // the master goes on with the program
  }
  const int nodes = (g.job_workers + g.base.threads - 1) / g.base.threads;
  if (nodes == 1) {
    // Every worker is a thread of the master's node: no job to form.
    spare.pause();
    std::vector<void (*)()> mine = functions_of(0);
    g.pending.clear();
    run_on_threads(mine, false);
    return;
  }
  Runtime &rt = runtime_for(call);
  const uint64_t data_offset = rt.protocol->data_segment().fd_offset;
  materialize_adopted_runs(rt.protocol->region(), data_offset, g.file0);
  // The master's data is spread over the job's nodes by allocation (seed_homes.hpp); what it never wrote goes
  // there too where homes migrate, else to the first node to touch it.
  // Most of what the master wrote is still mapped in its view: read there.
  const SharedRegion &view = rt.protocol->region();
  g.seed = plan_seeded_homes(held_page_runs(g.file0, data_offset, (rt.allocator->used_bytes() + 4095) / 4096, 16,
                                            [&view](uint64_t p) { return view.readable_app_page(p); }),
                             single_node_allocations(), rt.protocol->config().home == HomeAxis::migrate);
  g.seed.data_offset = data_offset;
  const KeptRange kept = kept_range(rt);
  // The one-node runtime comes down once the job has started (below), not
  // before the fork: unmapping its tables and views took 2-3 ms of the
  // master's (SPLASH FFT -m20) that every worker waited for, where the
  // master has that time to spare once it has mapped its copies (a
  // worker's start, copying its share and mapping its copies, is the
  // longer).  The application view moves aside at once; the workers leave
  // their copy of the rest to their exit (run_worker).
  runtime_leave(false, {}, Teardown::background);
  clear_all_but(kept);
  const int prepared = spare.take();  // the first worker's, if the master's set-up gave it memory
  g.worker_files = create_node_files(nodes - 1 - (prepared >= 0));
  if (prepared >= 0) g.worker_files.insert(g.worker_files.begin(), prepared);
  std::vector<int> files{g.file0};
  files.insert(files.end(), g.worker_files.begin(), g.worker_files.end());
  join_reaper();  // the last job's workers are gone before this job's words are reset
  for (int r = 0; r < kMaxForkJoinNodes; ++r) g.left[r].store(0);
  fflush(nullptr);  // or every worker would print the master's buffered output again
  for (int r = 1; r < nodes; ++r) {
    pid_t pid = fork();
    if (pid < 0)
      fatal("%s: cannot fork worker %d of %d: %s (check `ulimit -u` and free memory)", call, r, nodes - 1,
            strerror(errno));
    if (pid == 0) run_worker(r, nodes, files, functions_of(r));
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pidfd < 0) fatal("%s: pidfd_open failed: %s (Linux 5.3 or newer is needed)", call, strerror(errno));
    g.workers.push_back({pid, pidfd, r});
  }
  std::vector<void (*)()> mine = functions_of(0);
  g.pending.clear();
  // The master's part of the workers' shares (seed_homes.hpp), before the job's first meeting.
  for (int r = 1; r < nodes; ++r) copy_seeded_pages(g.seed, nodes, r, g.file0, files[r], SharePart::master);
  start_watcher();
  // The master's statistics cover all its jobs (a launcher reports them).
  runtime_build(
      job_options(nodes, 0, files),
      [&](Runtime &job) { place_seeded(g.seed, *job.protocol); },
      true);
  // Maps the workers' copies here too (Protocol::populate_copies): the master reads those pages from them.
  runtime_for(call).allocator->populate_allocated();
  settle_background_teardown();  // the one-node runtime (above), once the worker's start no longer waits for the master
  run_on_threads(mine, false);  // the master goes on as thread 0
}

static_assert(kMaxForkJoinNodes <= kMaxForkedRanks, "the master's node block holds every worker's statistics");

// Adds the workers' statistics of the job that just ended to the master's
// node block, where a launcher finds them (summed per rank over the jobs).
void record_worker_stats(int nodes) {
  if (!g.base.launched) return;
  NodeBlock *master = map_node_block(g.file0);
  master->forked_ranks = std::max(master->forked_ranks, (uint32_t)nodes);
  master->forked_jobs++;
  for (const Worker &w : g.workers) {
    NodeBlock *b = map_node_block(g.worker_files[w.rank - 1]);
    if (b->state.load(std::memory_order_acquire) == kNodeFinalized) {
      stats_accumulate(master->forked[w.rank], b->stats);
      // Its threads' rows (--threads), by thread of its node.
      const uint32_t rows = std::min<uint32_t>(b->thread_rows, kMaxNodeThreads);
      for (uint32_t t = 0; t < rows; ++t) thread_row_accumulate(master->forked_threads[w.rank][t], b->threads[t]);
      master->forked_thread_rows[w.rank] = std::max(master->forked_thread_rows[w.rank], rows);
    }
    unmap_node_block(b);
  }
  unmap_node_block(master);
}

// Waits until every worker of the job has finalized (its node block, which
// the watcher has mapped, says so) or has ended.
void wait_workers_finalized() {
  for (size_t i = 0; i < g.workers.size() && i < g.watch.blocks().size(); ++i) {
    for (;;) {
      if (g.watch.blocks()[i]->state.load(std::memory_order_acquire) == kNodeFinalized) break;
      pollfd ended{g.workers[i].pidfd, POLLIN, 0};
      if (poll(&ended, 1, 0) > 0) {
        // Gone before it finalized: the program ends here, before the
        // master goes on, rather than when the reaper gets to it.
        siginfo_t si{};
        if (waitid(P_PID, (id_t)g.workers[i].pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid != 0) {
          std::string why = abnormal_end(g.workers[i], si.si_code, si.si_status);
          if (!why.empty()) end_program(why, si.si_code, si.si_status);
        }
        break;
      }
      struct timespec nap = {0, 20000};
      nanosleep(&nap, nullptr);
    }
  }
}

// The master's threads have returned; their writes are the node's.
void join_master_helpers() {
  if (!g.helpers) return;
  runtime_for("WAIT_FOR_END").threads->join_helpers();
  g.helpers = false;
}

void back_to_one_node(const char *call) {
  KeptRange kept{};
  uint64_t data_offset = 0;
  auto adopt = [](size_t first, size_t count, int home) {  // mapped, not copied (adopted_homes.hpp)
    return home >= 1 && home <= (int)g.worker_files.size() && adopt_home_run(first, count, g.worker_files[home - 1]);
  };
  runtime_leave(false, [&](Runtime &job) {
    kept = kept_range(job);
    data_offset = job.protocol->data_segment().fd_offset;
    job.protocol->gather_homes((job.allocator->used_bytes() + 4095) / 4096, adopt);
  }, Teardown::background);  // the rest of it goes on a thread once the next job is built
  // A worker that has recorded its statistics is past the job's last
  // fabric barrier and no longer touches the master's memory file: it only
  // tears down its own runtime and exits, which takes it milliseconds.  The
  // master clears its file and goes on as one node meanwhile.
  wait_workers_finalized();
  clear_all_but(kept);
  g.job_workers = 1;
  runtime_build(job_options(1, 0, {g.file0}), {}, true);
  map_adopted_runs(runtime_for(call).protocol->region(), data_offset);  // before the files close
  g.watch.request_stop();  // the reaper waits for it
  record_worker_stats((int)g.workers.size() + 1);
  // The job's runtime comes down once the workers have exited (runtime_teardown.hpp).
  std::vector<int> exits;
  for (const Worker &w : g.workers) {
    const int fd = fcntl(w.pidfd, F_DUPFD_CLOEXEC, 0);  // the reaper closes its own
    if (fd >= 0) exits.push_back(fd);
  }
  reap_in_background(call);
  tear_down_kept_in_background(std::move(exits), std::move(g.worker_files));
  g.worker_files.clear();
}

// The master calling exit() ends the program, as it does with threads: the
// workers go with it, and a launcher sees an ordinary end.
void master_exits() {
  if (!g.on || g.worker || getpid() != g.master) return;
  InsideRdsm inside;  // the runtime's code, run by exit()
  if (ranks::active()) {
    // Between jobs the workers can still be told to leave; during one, the
    // job ends with the master's rank, as with any rank that exits.
    if (!ranks::in_job()) ranks::end_program();
    return;
  }
  g.exiting.store(true);
  for (const Worker &w : g.workers) kill(w.pid, SIGKILL);
  join_reaper();
  runtime_record_end();
}

}  // namespace

bool in_fork_join_program() { return g.on; }
int job_workers() {
  if (ranks::active()) return ranks::job_workers();
  return g.on ? g.job_workers : runtime_for("BARRIER").fabric->nodes();
}
bool master_alone() { return ranks::active() && !ranks::in_job(); }

void init(size_t shared_bytes) {
  if (g.on) api_error("MAIN_INITENV", "called twice; call it once, in the master, before the other macros");
  if (runtime_if_initialized())
    api_error("MAIN_INITENV", "called after rdsm_init; a fork-join (SPLASH) program uses MAIN_INITENV instead");
  Options base = options_from_environment();
  if (base.launched && base.nodes != 1) {
    // Node 0 explains; the others wait for the launcher to end the job, so
    // that their exit cannot end it before the explanation is printed.
    if (base.rank != 0)
      for (;;) pause();
    set_diagnostic_node(0);
    fatal("this is a fork-join (SPLASH) program: its master forks the workers (CREATE), so start one process: "
          "`rdsm run -n 1 PROGRAM ...` or the program alone (the program's own option sets how many workers)");
  }
  // Each job of a fork-join program starts a protocol of its own, which
  // learns the pages the jobs before it allocated (placed at the master)
  // but could not learn their minipages (which node holds each, and which
  // bytes of its page it is): such a program runs at page granularity.
  if (base.minipages != MinipageMode::off) {
    warn("RDSM_MINIPAGES is ignored in a fork-join (SPLASH) program: each of its jobs starts the protocol anew, "
         "and minipages do not outlive a job; its shared memory is kept at page granularity");
    base.minipages = MinipageMode::off;
  }
  // Some SPLASH programs keep shared pointers in 32-bit integers: unless told
  // otherwise, the region goes below 4 GiB.
  if (!getenv("RDSM_REGION_BASE")) base.region_base = kLowRegionBase;
  // The default region then ends at 4 GiB; the program's own estimate
  // (MAIN_INITENV's argument) raises one asked for that is smaller.
  if (base.region_bytes == 0) {
    base.region_bytes = default_region_bytes(base);
    if (base.region_base < kLowRegionTop)
      base.region_bytes = std::min(base.region_bytes, (size_t)(kLowRegionTop - base.region_base));
  }
  if (shared_bytes > base.region_bytes) base.region_bytes = (shared_bytes + (2u << 20) - 1) / (2u << 20) * (2u << 20);
  if (base.fabric == "mpi") {
    // The workers are the other ranks of the MPI job (fork_join_ranks.hpp):
    // rank 0 comes back as the master, the others only when the program ends.
    g.base = base;
    g.on = true;
    g.worker = mpi_launch_rank() > 0;
    ranks::init(base);
    g.master = getpid();
    atexit(master_exits);
    return;
  }
  base.ring_reserve = kMaxForkJoinNodes;
  g.base = base;
  g.file0 = base.launched ? parse_fd_list(base.node_fds, 1)[0] : create_node_files(1)[0];
  void *words = mmap(nullptr, kMaxForkJoinNodes * sizeof(uint32_t), PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (words == MAP_FAILED) fatal("fork-join: cannot map %zu bytes: %s", kMaxForkJoinNodes * sizeof(uint32_t), strerror(errno));
  g.left = static_cast<std::atomic<uint32_t> *>(words);
  g.master = getpid();
  g.on = true;
  atexit(master_exits);
  runtime_build(job_options(1, 0, {g.file0}));
  prepare_spare(runtime_for("MAIN_INITENV"));
}

void create(void (*fn)(), const char *call) {
  check_master(call);
  if (!fn) api_error(call, "NULL function");
  if (!g.workers.empty() || g.helpers)
    api_error(call, "called while the workers of an earlier CREATE run; call WAIT_FOR_END before creating more");
  if ((int)g.pending.size() + 1 >= max_workers())
    api_error(call,
              "more than %d workers; a fork-join job has at most %d nodes%s: create at most %d workers (run the "
              "program with fewer processes)",
              max_workers() - 1, kMaxForkJoinNodes, g.base.threads > 1 ? " of --threads each" : "",
              max_workers() - 1);
  g.pending.push_back(fn);
}

void create_and_run(void (*fn)(), long nodes, const char *call) {
  check_master(call);
  if (nodes < 1 || nodes > max_workers())
    api_error(call, "%ld processes asked for; a fork-join job has 1 to %d: ask for 1 to %d processes", nodes,
              max_workers(), max_workers());
  for (long i = 1; i < nodes; ++i) create(fn, call);
  form_pending_job();
  OutsideRdsm program;
  fn();
}

void form_pending_job() {
  if (!g.on || g.worker) return;
  if (g.pending.empty()) {
    // The master synchronises with no worker to fork (the program runs as
    // one process, or a job is running already): the first worker's file
    // is not given more memory beside what comes next.
    spare.pause();
    return;
  }
  form("CREATE");
}

void shared_data_grew(uint64_t used_bytes) {
  if (g.on && !g.worker) spare.grow(used_bytes);
}

void wait_for_end(const char *call) {
  check_master(call);
  form_pending_job();
  join_master_helpers();
  if (ranks::active()) {
    ranks::end_job();
    g.job_workers = 1;
    return;
  }
  if (g.workers.empty()) {
    g.job_workers = 1;
    return;
  }
  back_to_one_node(call);
}

void end() {
  check_master("MAIN_END");
  wait_for_end("MAIN_END");
  join_reaper();
  if (ranks::active()) {
    ranks::end_program();
    fflush(nullptr);
    return;
  }
  // MAIN_END exits right after (splash/c.m4.rdsm): the exit frees the runtime
  // faster than unmapping it first (8-13 ms of SPLASH FFT -m20, Ocean -n1026).
  runtime_leave(true, {}, Teardown::left_to_exit);
  fflush(nullptr);
}

}  // namespace rdsm::fj
