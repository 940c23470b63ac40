// The per-node memory file of a job on one host.
//
// Every node owns one memfd.  Whoever starts the job (the launcher, or a
// program that runs alone) creates all of them before the nodes exist, so
// every node inherits every file: no name is ever created in /dev/shm and
// the memory goes away with the last process that holds it, however the job
// ends.  The file is large and sparse; pages cost memory only when touched.
//
// Layout of node i's file:
//   [0, kNodeBlockBytes)            NodeBlock: job state and final statistics,
//                                   read by the launcher after the node ends
//   [kNodeBlockBytes, ...)          the fabric's own area and registered segments
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/options.hpp"
#include "rdsm.h"
#include "stats/thread_stats.hpp"

namespace rdsm {

// Room for a fork-join master's block: its workers' thread rows make up
// most of it (1 MiB at kMaxForkedRanks x kMaxNodeThreads).  Pages of the
// sparse file cost memory only where written.
constexpr size_t kNodeBlockBytes = 2 << 20;
constexpr uint64_t kNodeFileBytes = 1ull << 40;  // virtual size of every node file
constexpr uint64_t kNodeBlockMagic = 0x7264736d6e6f6465ull;  // "rdsmnode"

enum NodeState : uint32_t {
  kNodeStarted = 0,      // process exists, has not joined
  kNodeInitialized = 1,  // rdsm_init done
  kNodeFinalized = 2,    // rdsm_finalize done, statistics below are valid
};

// A fork-join (SPLASH) program runs as one launched node that forks its
// workers into jobs of its own; their statistics reach the launcher through
// the master's block, summed per rank over every job.
constexpr int kMaxForkedRanks = 64;

struct NodeBlock {
  uint64_t magic;
  std::atomic<uint32_t> state;
  int32_t pid;
  // Ticks while the node is in a job (heartbeat.hpp); 0 when nobody ticks
  // it (before rdsm_init, between a fork-join master's jobs, after the end).
  std::atomic<uint64_t> heartbeat;
  char protocol[32];
  char handler[16];
  char memory[16];  // the memory backend the node runs, once its region exists
  uint64_t region_bytes;  // the size of its shared region, once it exists
  rdsm_stats stats;  // valid once state == kNodeFinalized
  // A node of several compute threads: one row per thread (0 otherwise),
  // valid with `stats`.
  uint32_t thread_rows;
  ThreadStatsRow threads[kMaxNodeThreads];
  // Fork-join master only: ranks 1 .. forked_ranks-1 are its workers.
  uint32_t forked_ranks;
  uint32_t forked_jobs;
  rdsm_stats forked[kMaxForkedRanks];
  // With --threads: each worker's thread rows (how many, and the rows by
  // thread of its node), summed per rank and thread over the jobs, so they
  // add up to forked[rank] as a launched node's add up to `stats`.
  uint32_t forked_thread_rows[kMaxForkedRanks];
  ThreadStatsRow forked_threads[kMaxForkedRanks][kMaxNodeThreads];
};
static_assert(sizeof(NodeBlock) <= kNodeBlockBytes);

// Creates `count` node files (memfd, not close-on-exec, so children and the
// programs they exec inherit them).  Ends the process with a clear message
// when the system refuses.
std::vector<int> create_node_files(int count);
// "3,4,5" <-> {3,4,5}
std::string format_fd_list(const std::vector<int> &fds);
std::vector<int> parse_fd_list(const std::string &text, int expected_count);

// Gives back the memory of bytes [off, off+len) of a node file: they read
// as zero afterwards.
void discard_file_range(int fd, uint64_t off, uint64_t len);

// The runs of pages of bytes [off, off + pages * 4096) of a node file that
// hold something other than zeros, as {first page, count} relative to
// `off`: the other pages were never touched, or hold only zeros, and read
// the same in any node's file.  Gaps shorter than `min_gap` pages are
// counted in the runs around them, so a sparse file gives few runs.
// `in_place`, if given, names where a page can be read already without a
// fault (its mapping in the application view), or nullptr: the pages are
// read through a mapping of their own otherwise, which costs a page-table
// fault per few pages (SPLASH Ocean -n1026: 17 ms of its CREATE for
// 18,554 pages, against about 1 ms read in place).
struct PageRun {
  uint64_t first, count;
};
using PageInPlace = std::function<const uint8_t *(uint64_t page)>;
std::vector<PageRun> held_page_runs(int fd, uint64_t off, uint64_t pages, uint64_t min_gap,
                                    const PageInPlace &in_place = {});

// Maps the NodeBlock of a node file read-write.
NodeBlock *map_node_block(int fd);
void unmap_node_block(NodeBlock *b);

}  // namespace rdsm
