#include "fabric/mpi_environment.hpp"

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include "common/error.hpp"
#include "common/fault_inject.hpp"
#include "fabric/rank_link.hpp"

namespace rdsm::fabric::mpi {

namespace {
bool g_started_here = false;

// Open MPI reads MCA parameters from OMPI_MCA_<name> when MPI_Init runs;
// a value already there (from the user, or from mpirun --mca) wins.
void default_mca(const char *name, const char *value) {
  std::string var = std::string("OMPI_MCA_") + name;
  if (!getenv(var.c_str())) setenv(var.c_str(), value, 0);
}

bool names_component(const char *list, const char *component) {
  if (!list || list[0] == '^') return false;  // "^x" excludes x
  std::string s = std::string(",") + list + ",";
  return s.find(std::string(",") + component + ",") != std::string::npos;
}
}  // namespace

void check(int rc, const char *call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "error %d", rc);
  fatal("mpi fabric: %s failed: %s", call, text);
}

void start_mpi() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) {
    int level = 0;
    MPI_Query_thread(&level);
    if (level != MPI_THREAD_MULTIPLE)
      fatal("mpi fabric: MPI was initialised without MPI_THREAD_MULTIPLE; let rdsm_init initialise MPI, or call "
            "MPI_Init_thread with MPI_THREAD_MULTIPLE");
    return;
  }
  // Open MPI 4.1's default one-sided component (osc rdma) crashes in
  // MPI_Compare_and_swap; osc ucx works.  The messages keep Open MPI's
  // default pml (pml ucx declines to run without an InfiniBand or RoCE
  // device unless told otherwise).  MPICH ignores these variables.
  if (names_component(getenv("OMPI_MCA_osc"), "rdma") && !names_component(getenv("OMPI_MCA_osc"), "ucx"))
    fatal("mpi fabric: OMPI_MCA_osc=%s selects Open MPI's osc rdma, whose MPI_Compare_and_swap crashes; use osc "
          "ucx (unset OMPI_MCA_osc, or --mca osc ucx)",
          getenv("OMPI_MCA_osc"));
  default_mca("osc", "ucx");
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
  g_started_here = true;
  if (provided != MPI_THREAD_MULTIPLE)
    fatal("mpi fabric: the MPI library provides thread level %d, not MPI_THREAD_MULTIPLE (%d), which the fabric "
          "needs (its handler thread and the compute threads call MPI at the same time); use an MPI built with "
          "thread support",
          provided, MPI_THREAD_MULTIPLE);
  // Errors end the process with a message rather than returning codes the
  // fabric could not act on anyway.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  int rank = 0;
  if (MPI_Comm_rank(MPI_COMM_WORLD, &rank) == MPI_SUCCESS) link_rank(rank);
}

namespace {
// MPICH 4.0 over UCX can wait in MPI_Finalize for ever: a rank that has
// closed its connections waits for the others in a PMI barrier, where it
// no longer answers the close of a connection that another rank is still
// waiting for (pmodels/mpich#6596, fixed after 4.0).  Seen across the
// emulated hosts in about one 4-rank job of three, after the program had
// printed its result.  The rank's work is done by then (its last barrier
// is behind it), so under MPICH a finalize that has not returned after
// this long ends the rank with a warning instead of leaving the job hung
// (hydra then ends the job normally).  Not under Open MPI: its mpirun
// takes a rank that ends without finalizing for a failure, and crashed
// doing so here.
constexpr int kFinalizeGraceSeconds = 10;

bool library_is_mpich() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  return MPI_Get_library_version(version, &len) == MPI_SUCCESS && strstr(version, "MPICH") != nullptr;
}

class FinalizeGuard {
 public:
  explicit FinalizeGuard(int rank)
      : thread_([this, rank] {
          std::unique_lock<std::mutex> lock(mu_);
          if (cv_.wait_for(lock, std::chrono::seconds(kFinalizeGraceSeconds), [this] { return returned_; })) return;
          fprintf(stderr,
                  "rdsm: warning: rank %d: MPI_Finalize has not returned after %d s; the rank's work is done, so it "
                  "ends here (MPICH 4.0 over UCX can wait for ever in MPI_Finalize: pmodels/mpich#6596)\n",
                  rank, kFinalizeGraceSeconds);
          fflush(stderr);
          _exit(0);
        }) {}
  ~FinalizeGuard() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      returned_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool returned_ = false;
  std::thread thread_;
};
}  // namespace

void end_mpi() {
  if (!g_started_here) return;
  g_started_here = false;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  rank_done();
  if (!library_is_mpich()) {
    MPI_Finalize();
    return;
  }
  FinalizeGuard guard(rank);
  fault_point("mpi_finalize");
  MPI_Finalize();
}

}  // namespace rdsm::fabric::mpi
