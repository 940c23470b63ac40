// Fork-join jobs: the program model of SPLASH-2 and Splash-3 on rdsm.
//
// The program starts as one process, the master, which does the sequential
// set-up alone, in a job of one node.  CREATE(fn) asks for a worker to run
// fn.  The workers are forked when the master next synchronises (or at once
// for Splash-3's CREATE(fn, P)), so each inherits the master's private
// memory from after its set-up, and master and workers form a job of
// 1 + workers nodes.  The master's allocations are spread over them in
// blocks, each worker copying its part of their data as the job starts
// (seed_homes.hpp; where homes are fixed, those the master never wrote
// follow the placement policy, as later allocations do), and the
// processes take their first synchronisation in worker order, so that a
// SPLASH program's own process numbers match the blocks
// (splash_order.hpp).  WAIT_FOR_END ends that job: its final barrier is each
// worker's last release and the master's acquire, the master copies in the
// pages homed at workers, the workers exit, and the master goes on alone in
// a job of one node over the same memory.  CREATE may be used again after
// that.
//
// The master's memory file outlives its jobs.  What a job keeps for the next
// sits at the front of the file and does not depend on the job's size (the
// fabric reserves rings for kMaxForkJoinNodes): the allocator's segment, the
// synchronisation-object table and the shared data.  Everything else is
// cleared between jobs.
//
// With --threads T the workers are grouped T to a node, node-major: the
// master's node runs the master and the first T-1 functions CREATE handed
// out (on threads of its own), the next node the next T, and so on; a job
// of P workers has ceil(P / T) nodes.
//
// A worker that dies, or exits before its function returned, ends the
// program at once with a message naming it; workers die with the master.
//
// On the mpi fabric the workers are the other ranks of the MPI job instead,
// on any host, and the job lasts the whole program (fork_join_ranks.hpp).
#pragma once
#include <cstddef>
#include <cstdint>

namespace rdsm::fj {

constexpr int kMaxForkJoinNodes = 64;

// MAIN_INITENV: this process becomes the master.  `shared_bytes` (may be 0)
// is the program's estimate of the shared memory it needs.
void init(size_t shared_bytes);
// CREATE(fn): a worker will run fn.
void create(void (*fn)(), const char *call);
// CREATE(fn, P): P-1 workers run fn, then the master runs it too.
void create_and_run(void (*fn)(), long nodes, const char *call);
// Forks the workers CREATE asked for, if any are waiting (master only).
void form_pending_job();
// The master allocated shared data (G_MALLOC), `used_bytes` in all: while
// it is alone, the next job's first worker's memory file is given memory
// for it too (spare_worker_file.hpp).
void shared_data_grew(uint64_t used_bytes);
// WAIT_FOR_END: every worker of every CREATE has finished; their writes are
// visible to the master.
void wait_for_end(const char *call);
// MAIN_END: waits for any workers, then leaves the runtime.
void end();
bool in_fork_join_program();
// The compute threads of the current job: the master and the workers of
// the last CREATEs (1 between jobs); the job's node count in a program
// that is not fork-join.
int job_workers();
// The master runs alone between jobs while its workers wait on other ranks
// (the mpi fabric): a barrier of one process is then passed at once.
bool master_alone();

}  // namespace rdsm::fj
