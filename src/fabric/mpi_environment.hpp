// Starting and ending MPI for the mpi fabric.
//
// The fabric calls MPI from several threads at once (compute threads doing
// one-sided operations, the handler thread receiving), so it needs
// MPI_THREAD_MULTIPLE.  Open MPI's component choice decides whether one-sided
// operations work at all and whether they need the target to call MPI, so
// the fabric sets the defaults it was tested with before MPI_Init, leaving
// every choice the user made alone.
#pragma once
#include <mpi.h>

namespace rdsm::fabric::mpi {

// Sets the component defaults, initialises MPI with MPI_THREAD_MULTIPLE and
// ends the process with a clear message when that is not provided or when
// the user forced a component known to fail.  Idempotent.
void start_mpi();

// MPI_Finalize, once, if start_mpi initialised MPI.
void end_mpi();

// Ends the process with a message naming the failed call and MPI's reason.
void check(int rc, const char *call);

}  // namespace rdsm::fabric::mpi
