// The workers' pages a fork-join master goes on with after WAIT_FOR_END.
//
// The job leaves each page's current contents in its home's memory file.
// Copying the workers' pages into the master's file (Protocol::
// gather_homes) cost SPLASH FFT -m20 4.5 ms of its 55 ms parallel time.
// Instead the long runs of
// pages that one worker homes are mapped from that worker's file straight
// into the master's application view, over the master's own mapping, where
// the program reads and writes them in place, as the pages of a remote
// home.  Their contents move into the master's file only when a next job
// needs the file to hold everything (CREATE), or never.  Short runs are
// still copied: each mapped run costs the process up to two more mappings,
// within a small budget (vm.max_map_count).
#pragma once
#include <cstddef>
#include <cstdint>

namespace rdsm {

class SharedRegion;

// Whether the run [first, first + count) of pages homed at the node whose
// memory file is `fd` is taken (long enough, and within the budget); if
// so, the caller does not copy it.
bool adopt_home_run(size_t first, size_t count, int fd);
// Maps the taken runs over the application view of `region`, the master's
// job of one node that follows; the data segment starts at `data_offset`
// of every node's memory file.
void map_adopted_runs(SharedRegion &region, uint64_t data_offset);
// Copies the mapped runs' current contents into the master's own file
// `file0` (through the region's system view) and maps that file back over
// them: the file holds the whole shared state again, as a job's start
// needs (seed_homes.hpp).
void materialize_adopted_runs(SharedRegion &region, uint64_t data_offset, int file0);

}  // namespace rdsm
