// Fork-join (SPLASH) programs on the mpi fabric: the workers are ranks of
// the MPI job, on any host, instead of processes the master forks.
//
// Every rank runs the program from its start, as an MPI launcher starts
// them.  At MAIN_INITENV all of them form one job for the whole program.
// Rank 0 goes on as the master and does the sequential set-up, alone; its
// shared allocations are homed at it, as a forked job's are.  Every other
// rank turns into a worker and waits for jobs, never returning from
// MAIN_INITENV.  A CREATE'd job starts with a barrier of every rank: before
// it the master writes, into shared memory, the functions to run and a copy
// of its private globals (program_image.hpp); after it each worker takes
// the globals over, as a forked worker inherits them, and runs its
// function.  WAIT_FOR_END is the job's closing barrier; MAIN_END (or the
// master's exit between jobs) is a last one that tells the workers to
// leave, after which every rank leaves the runtime.
//
// A job has exactly one process per rank, and one thread per node.
#pragma once
#include <vector>

#include "common/options.hpp"

namespace rdsm::fj::ranks {

// Whether this program runs its workers on MPI ranks (set by init).
bool active();
// MAIN_INITENV on the mpi fabric: rank 0 returns; other ranks never do.
void init(const Options &base);
// Starts a job: fns[w] runs on rank w (fns[0], the master's, is not used).
void start_job(const std::vector<void (*)()> &fns, const char *call);
// Whether a job is running (between start_job and end_job).
bool in_job();
// The processes of the running job, 1 between jobs.
int job_workers();
// WAIT_FOR_END: every worker has returned; their writes are visible here.
void end_job();
// The workers leave, then the master leaves the runtime (once).
void end_program();

}  // namespace rdsm::fj::ranks
