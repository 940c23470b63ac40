// Where a fork-join program's data gets its homes at CREATE.
//
// Before CREATE the master is the only node: it allocates the shared arrays
// and usually initialises them (a SPLASH-2 program's keys, matrix, grid,
// signal).  Homing all of it at the master makes the master the home of
// every page the workers will work on: their writes are remote (twin, diff,
// a home move at the next barrier if they write alone), and where every
// node writes parts of the same pages (a radix sort's permutation into the
// array the master filled) one node diffs all of them while the master
// waits at the barrier.
//
// So each allocation the master made while alone (single_node_allocations)
// is placed as a whole, as follows:
//   - asked for a placement (block, cyclic, local): that placement, as a
//     program started on all its nodes would have had it;
//   - first touch (the default), and the master wrote something other than
//     zeros to it: block, in as many contiguous parts as the job has nodes,
//     the way SPLASH-2 programs divide an array among their processes; a
//     page that one node alone writes moves to it at a barrier anyway
//     (home=migrate), so a guess that does not fit costs what homing it at
//     the master did;
//   - first touch, and nothing written (it reads as zero everywhere): block
//     too where homes migrate, else left to the first node to touch each
//     page.  An array every process writes parts of all over, and each
//     reads its own block of next (RADIX's destination keys), keeps its
//     pages where first touch put them, shared page by page, so that half
//     the next phase's reads are remote, for good: block homes them at
//     their readers, and the writes that every page's second writer diffs
//     either way go there.  (SPLASH RADIX at 2 processes, -n4194304,
//     parallel seconds, medians of 11 alternated runs: 0.0399 -> 0.0362
//     with its processes making their own keys, -o; 0.0407 -> 0.0391 with
//     the master making them; FFT, LU and OCEAN unchanged within 1%.)  An
//     array one process alone writes pays the guess that does not fit once,
//     as above; under home=fixed it would pay it for good, so there the
//     first toucher (the writer) takes the page.
// Pages the master wrote outside such allocations (its small blocks, carved
// from chunks) stay at the master.
//
// The content of a page homed at a worker must be in that worker's memory
// file before anyone can ask the home for it: each worker copies its share
// from the master's file while its runtime starts (copy_seeded_pages),
// before the job's first meeting, in parallel with the other workers; the
// master, which would otherwise wait for them there, copies the first
// 1/nodes of every worker's share meanwhile (SPLASH FFT -m20 and RADIX at 2
// processes: from CREATE to the end 0.98 of the time with the worker
// copying all of it, 16 runs alternated).
#pragma once
#include <cstdint>
#include <vector>

#include "api/shared_allocator.hpp"
#include "bootstrap/node_file.hpp"
#include "protocol/protocol.hpp"
#include "rdsm.h"

namespace rdsm {

struct SeededRange {
  uint64_t first, count;  // pages, placed together
  rdsm_placement placement;
};

struct SeedPlan {
  std::vector<SeededRange> placed;  // in page order
  std::vector<PageRun> held;        // the master's pages holding data (held_page_runs)
  uint64_t data_offset = 0;         // of the data segment in every node file
};

// The placements, in page order; `held` and `spans` in page order, as
// held_page_runs and single_node_allocations give them.
// `block_unwritten`: the job's homes migrate (unwritten allocations go in
// blocks too, above).
SeedPlan plan_seeded_homes(std::vector<PageRun> held, const std::vector<AllocationSpan> &spans,
                           bool block_unwritten);

// Node `node`'s share of the held pages: the page runs the plan homes
// there, in page order.
std::vector<PageRun> seeded_share(const SeedPlan &plan, int nodes, int node);

// The master's part at CREATE, before the job's first meeting: places
// every range of the plan.
void place_seeded(const SeedPlan &plan, Protocol &protocol);

// Who copies which part of a worker's share (above).
enum class SharePart { master, worker, all };

// Copies `part` of node `node`'s share from the master's file into `to_fd`,
// at the plan's data offset in both.  Ends the process with a message on
// failure.
void copy_seeded_pages(const SeedPlan &plan, int nodes, int node, int from_fd, int to_fd, SharePart part);

// A worker's part, at the same time: copies its part of its share into its own file.
void take_seeded_share(const SeedPlan &plan, const Protocol &protocol, int nodes, int node, int from_fd, int to_fd);

}  // namespace rdsm
