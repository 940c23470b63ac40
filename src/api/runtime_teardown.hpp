// A fork-join master that goes on alone after WAIT_FOR_END does not wait
// for its old job's runtime to come down: unmapping the other nodes' files
// and the per-page tables costs milliseconds (SPLASH FFT -m20: 5 of them),
// and nothing the program does next needs it done.  Nor does it at CREATE
// for its one-node runtime, which it destroys once the job has started.
// The application view goes at once, since the next job maps its own at
// the same address; the rest goes on a thread, started once the next job
// is built (unmapping while the new job maps its region would hold both up
// on the process's address-space lock).
//
// That thread waits for the workers to have exited before it unmaps
// anything.  Started at once, it took the master's core while the workers'
// exits held the other (on a machine with as many cores as nodes): the
// master, preempted when it woke a thread of its own, waited for the next
// scheduler tick, up to 4 ms, and then for the address-space lock the
// thread's unmapping held; SPLASH RADIX -n4194304's WAIT_FOR_END took 1.5-5
// ms of its 29 ms at 2 processes.  Once the workers are gone their cores
// are free, and the master, alone again, needs only one.
#pragma once
#include <memory>
#include <vector>

namespace rdsm {

struct Runtime;

// Unmaps the runtime's application view now and keeps the rest for
// tear_down_kept_in_background.
void keep_for_teardown(std::unique_ptr<Runtime> rt);
// Destroys the kept runtime on a thread of its own, once every process
// whose pidfd is in `exits` has ended (or a second has passed), then closes
// `exits` and `files` (the workers' memory files: closing the last
// reference frees their memory, milliseconds of the kernel's time that the
// program need not wait for; the kernel closes whatever is left if the
// program exits first).
void tear_down_kept_in_background(std::vector<int> exits, std::vector<int> files);
// Waits until the kept runtime is gone (destroying it here if no thread
// took it) and every background thread has ended: before the process
// leaves a runtime, or ends.  No background thread may run when the
// process forks (the child would get a C library caught in the middle of a
// thread's exit); a kept runtime may.
void settle_background_teardown();

// In a child just forked: the kept runtime is the parent's, which the
// parent destroys; the child leaves its copy of the mappings to its exit.
void abandon_kept_teardown();

}  // namespace rdsm
