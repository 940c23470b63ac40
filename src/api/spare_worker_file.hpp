// A memory file for the first worker of a fork-join program's next job,
// given its memory while the master sets up alone.
//
// A forked worker's start is mostly memory the kernel has not given yet:
// the worker's file takes a page for each page of shared data (its share of
// the master's data, copied in, and its copies of the rest, populated ahead
// of its fetches: region_populate.cpp), and a page first written into a
// memory file costs 2-3 us on a virtual machine, several times the copy.
// That is most of the 30-50 ms a SPLASH FFT -m20 or RADIX at 4 M keys
// spends forming its job of 2 processes, which threads do not spend.  The
// master's set-up runs alone on one CPU, so a thread of the master's gives
// the pages of such a file their memory on another CPU while it does:
// whenever the master allocates shared data (G_MALLOC), up to what it has
// allocated.  At CREATE the job's first worker takes the file for its own,
// and its start writes into memory the file already has.
//
// It is speculation: a program run with one process never forks.  When
// the master synchronises while alone (its first BARRIER or LOCK without a
// CREATE before it: one process, or a lock in its set-up), the thread
// stops, so that nothing of it runs beside the program's timed part; the
// file is kept, for a CREATE that may still come, until the program ends
// (freeing it at once cost a one-process run's timed part 4-9 ms, on the
// master, or its first pass's page allocations, on a thread: RADIX's
// parallel phase 1.12-1.19 times as long).  It is made only where a second
// CPU is free for the thread (the process may run on 2 CPUs or more),
// where the protocol keeps copies in the worker's file (not the
// hardware-coherent baseline), and within RDSM_PREPOPULATE (set to off, it
// makes none) and a quarter of the memory available.  The thread is an
// ordinary one: in the idle scheduling class, the wait for it to stop
// could last as long as other programs keep both CPUs busy, and a thread
// may not leave that class again without privilege.  Later workers of a
// job (3 processes and more), and later jobs, start with fresh files as
// before.
#pragma once
#include <cstdint>

namespace rdsm::fj {

class SpareWorkerFile {
 public:
  // The master is alone, having allocated `used` bytes of shared data:
  // starts a file whose data segment is at `data_offset` (as in every node
  // file) and gives it memory up to `used`, at most `budget` bytes.  A
  // no-op where a file is being prepared already.
  void start(uint64_t data_offset, uint64_t used, uint64_t budget);
  // The master allocated shared data: the file gets memory up to `used`
  // (not once paused).
  void grow(uint64_t used);
  // The file for the next job's first worker: a fresh node file whose data
  // pages have their memory up to where the thread got (it stops first).
  // -1 if none is being prepared.
  int take();
  // The master synchronises alone: the thread stops (waited for), the file
  // is kept as far as it got, for take().
  void pause();
  // Bytes of the data segment given memory so far (for tests).
  uint64_t prepared_bytes() const;

  // Closes a file nobody took.
  ~SpareWorkerFile();

 private:
  struct Preparation;
  Preparation *p_ = nullptr;
};

}  // namespace rdsm::fj
