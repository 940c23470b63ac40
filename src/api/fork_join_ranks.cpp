#include "api/fork_join_ranks.hpp"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

#include "common/address_sanitizer.hpp"
#ifdef RDSM_UNDER_ASAN
#include <sanitizer/allocator_interface.h>
#endif

#include "api/fixed_layout.hpp"
#include "api/fork_join.hpp"
#include "api/program_image.hpp"
#include "api/runtime.hpp"
#include "common/error.hpp"

namespace rdsm::fj::ranks {

namespace {

// Under an MPI launcher, how long ranks other than 0 wait for rank 0 to
// explain why the program cannot run before they end.
constexpr unsigned kRefusalWaitSeconds = 3;

enum : uint64_t { kRun = 1, kEnd = 2 };

// The master's word to the workers, at the front of a shared block homed at
// it; the master's globals follow.
struct JobDescriptor {
  uint64_t kind;
  uint64_t job;      // counts the jobs
  uint64_t workers;  // processes of the job: the ranks
  ProgramLayout layout;
  uint64_t functions[kMaxForkJoinNodes];
};

struct State {
  bool active = false;
  bool ended = false;
  int rank = 0, nodes = 1;
  int job_workers = 1;
  bool in_job = false;
  bool warned_heap = false;
  ProgramImage image;
  JobDescriptor *descriptor = nullptr;  // in shared memory
  uint64_t learnt_pages = 0;            // a worker knows the homes of the pages below
};
// Never destroyed: the master may end the program from an exit handler.
State &g = *new State;

uint8_t *image_area() { return reinterpret_cast<uint8_t *>(g.descriptor + 1); }

// Before the job exists: rank 0 explains and ends the program; the others
// end too, silently, once it has had the time to (MPICH's launcher does not
// end them when rank 0 exits before MPI_Init).
[[noreturn]] void refuse(const std::string &why) {
  if (mpi_launch_rank() > 0) {
    sleep(kRefusalWaitSeconds);
    _exit(2);
  }
  fatal("%s", why.c_str());
}

// The master's private heap (brk), whose addresses mean nothing on a
// worker; left as it is if there is none.
void heap_range(uintptr_t &lo, uintptr_t &hi) {
  FILE *maps = fopen("/proc/self/maps", "re");
  if (!maps) return;
  char line[512];
  while (fgets(line, sizeof line, maps)) {
    if (!strstr(line, "[heap]")) continue;
    unsigned long a, b;
    if (sscanf(line, "%lx-%lx", &a, &b) == 2) {
      lo = a;
      hi = b;
    }
    break;
  }
  fclose(maps);
}

void warn_about_heap_pointers() {
  if (g.warned_heap) return;
  uintptr_t lo = 0, hi = 0;
  heap_range(lo, hi);
  std::vector<std::string> names = g.image.pointing_into(
      [lo, hi](uintptr_t v) {
#ifdef RDSM_UNDER_ASAN
        // AddressSanitizer's malloc takes no memory from brk.
        if (__sanitizer_get_ownership(reinterpret_cast<const void *>(v))) return true;
#endif
        return v >= lo && v < hi;
      },
      6);
  if (names.empty()) return;
  g.warned_heap = true;
  std::string list;
  for (const std::string &n : names) list += (list.empty() ? "" : ", ") + n;
  warn("CREATE: the global%s %s hold%s a pointer into the master's private heap (malloc), which the workers on "
       "other ranks do not get: there %s points to the worker's own memory.  A worker must not use it; allocate "
       "what a worker reads with G_MALLOC",
       names.size() > 1 ? "s" : "", list.c_str(), names.size() > 1 ? "" : "s", names.size() > 1 ? "each" : "it");
}

// A worker's layout against the master's: pointers in the shipped globals
// must mean the same here.
void check_layout(const ProgramLayout &master) {
  const ProgramLayout &mine = g.image.layout();
  if (mine.executable_bytes != master.executable_bytes || mine.image_bytes != master.image_bytes)
    fatal("rank %d runs another build of the program than rank 0 (an executable of %" PRIu64 " bytes against %" PRIu64
          "): a fork-join program's ranks share the master's globals, so every host must run the same executable",
          g.rank, mine.executable_bytes, master.executable_bytes);
  if (mine.executable_base != master.executable_base || mine.library_address != master.library_address) {
    if (!layout_fixed())
      fatal("rank %d loads the program at %#" PRIx64 ", rank 0 at %#" PRIx64 ": address-space randomisation is on "
            "and the kernel did not let the rank turn it off for itself (personality(ADDR_NO_RANDOMIZE), refused in "
            "some containers); start the ranks without it: `mpirun ... setarch $(uname -m) -R PROGRAM ...`, or set "
            "the sysctl kernel.randomize_va_space=0",
            g.rank, mine.executable_base, master.executable_base);
    fatal("rank %d loads the program or the C library at other addresses than rank 0 (program %#" PRIx64 " against %#"
          PRIx64 ", C library %#" PRIx64 " against %#" PRIx64 "): the hosts of a fork-join program must have the "
          "same executable and the same libraries installed",
          g.rank, mine.executable_base, master.executable_base, mine.library_address, master.library_address);
  }
}

[[noreturn]] void leave_and_exit() {
  runtime_finish();
  fflush(nullptr);
  exit(0);
}

// A worker rank: runs the master's jobs until it says the program ends.
[[noreturn]] void serve() {
  Runtime &rt = runtime_for("MAIN_INITENV");
  for (;;) {
    rt.protocol->barrier();  // a job starts, or the program ends
    JobDescriptor d;
    memcpy(&d, g.descriptor, sizeof d);
    if (d.kind == kEnd) leave_and_exit();
    if (d.kind != kRun) fatal("internal error: a fork-join job descriptor of kind %" PRIu64, d.kind);
    check_layout(d.layout);
    release_worker_output();
    g.image.unpack(image_area());
    // What the master allocated since the last job: its homes, and memory
    // for this node's copies of it.
    const uint64_t pages = (rt.allocator->used_bytes() + 4095) / 4096;
    if (pages > g.learnt_pages) rt.protocol->learn_homes(g.learnt_pages, pages - g.learnt_pages);
    g.learnt_pages = pages;
    rt.allocator->populate_allocated();
    g.job_workers = (int)d.workers;
    g.in_job = true;
    reinterpret_cast<void (*)()>(d.functions[g.rank])();
    fflush(stdout);
    rt.protocol->barrier();  // the job's end: this worker's writes reach the master
    g.in_job = false;
    g.job_workers = 1;
  }
}

}  // namespace

bool active() { return g.active; }
bool in_job() { return g.in_job; }
int job_workers() { return g.job_workers; }

void init(const Options &base) {
  if (base.threads > 1)
    refuse("a fork-join (SPLASH) program on the mpi fabric runs one process per rank, with one thread each; run "
           "it without --threads (RDSM_THREADS), with as many ranks as processes");
  std::string why;
  if (!g.image.describe(why))
    refuse("a fork-join (SPLASH) program on the mpi fabric ships the master's globals to the workers of other "
           "ranks, but " + why);
  runtime_build(base);
  Runtime &rt = runtime_for("MAIN_INITENV");
  g.active = true;
  g.rank = rt.fabric->rank();
  g.nodes = rt.fabric->nodes();
  // Homed at the master, which writes it before every job.
  g.descriptor = static_cast<JobDescriptor *>(
      rt.allocator->allocate_collective(sizeof(JobDescriptor) + g.image.bytes(), RDSM_PLACE_LOCAL));
  if (g.rank != 0) serve();
}

void start_job(const std::vector<void (*)()> &fns, const char *call) {
  Runtime &rt = runtime_for(call);
  const int processes = (int)fns.size();
  if (processes != g.nodes)
    api_error(call,
              "the program runs %d processes (the master and %d CREATE'd workers), but its MPI job has %d ranks; "
              "on the mpi fabric each process of a fork-join program is a rank: start it with %d (`mpirun -n %d "
              "...` or `rdsm run --fabric mpi -n %d ...`)",
              processes, processes - 1, g.nodes, processes, processes, processes);
  JobDescriptor &d = *g.descriptor;
  d.kind = kRun;
  d.job += 1;
  d.workers = (uint64_t)processes;
  d.layout = g.image.layout();
  for (int w = 0; w < processes; ++w) d.functions[w] = reinterpret_cast<uint64_t>(fns[w]);
  g.image.pack(image_area());
  warn_about_heap_pointers();
  g.job_workers = processes;
  g.in_job = true;
  rt.protocol->barrier();  // the workers start
}

void end_job() {
  if (!g.in_job) return;
  runtime_for("WAIT_FOR_END").protocol->barrier();  // every worker has returned
  g.in_job = false;
  g.job_workers = 1;
}

void end_program() {
  if (g.ended) return;
  g.ended = true;
  g.descriptor->kind = kEnd;
  runtime_for("MAIN_END").protocol->barrier();  // the workers leave
  runtime_finish();
}

}  // namespace rdsm::fj::ranks
