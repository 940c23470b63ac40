// SPLASH processes take their first synchronisation of a forked job in
// GET_PID order.
//
// A SPLASH program numbers its processes itself: each takes `id = next++`
// under a lock as it starts, so the numbers follow the order in which the
// processes first take that lock.  The master's data is homed in blocks by
// the job's worker numbers (seed_homes.hpp: worker k homes the k-th part),
// and the program divides its arrays by its own numbers, so the two agree
// only when the processes took the lock in worker order.  Usually the
// master, which forms the job inside its first LOCK, is first; when a
// worker is, every process starts on another's blocks and pays for it:
// the pages of its blocks one epoch late, by migration, or for good where
// every process writes every page (RADIX's keys).
//
// So in a forked job of several nodes, worker w's first SPLASH
// synchronisation call waits until workers 0 .. w-1 have made theirs
// (their turn passed), then:
//   - a LOCK takes the lock, then passes the turn on: the next worker asks
//     for the lock after w holds it, and the lock serves in that order;
//   - any other call passes the turn on first, then acts: a barrier or a
//     wait cannot hold up the workers after it.
// The master's first call is the one that forms the job (its LOCK,
// BARRIER or WAIT_FOR_END); a worker whose function returns without any
// call passes its turn then.  The wait is bounded (kTurnWaitNs): a worker
// whose predecessor computes a long time before its first call, or blocks
// in its first LOCK on a lock held across a wait, goes on after a while,
// unordered.
// Jobs on MPI ranks and jobs of one node (threads only) are not ordered:
// their homes do not follow worker numbers.
#pragma once

#include "api/runtime.hpp"

namespace rdsm::fj {

// Before the calling thread's SPLASH synchronisation call acts: on its
// first call in an ordered job, waits for its turn.  Returns whether the
// caller must pass the turn on (pass_turn) once the call may be followed.
bool take_turn(Runtime &rt);
// Passes the caller's turn on to the next worker.
void pass_turn(Runtime &rt);
// Both at once, for a call that may be followed at once (all but LOCK).
void first_turn(Runtime &rt);
// Where no synchronisation call acts (a worker's function returned; the
// master's WAIT_FOR_END or MAIN_END formed the job): the caller's turn, if
// it has not had it, passes now (after it came).
void end_turn();

}  // namespace rdsm::fj
