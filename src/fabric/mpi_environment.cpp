#include "fabric/mpi_environment.hpp"

#include <cstdlib>
#include <cstring>
#include <string>

#include "common/error.hpp"
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

void end_mpi() {
  if (!g_started_here) return;
  g_started_here = false;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  rank_done();
  MPI_Finalize();
}

}  // namespace rdsm::fabric::mpi
