// The timeline trace's part files: what a node writes when it leaves the
// runtime (trace.cpp) and the merge reads (trace_json.cpp).  A part file is
// a sequence of sections, one per time the node left (a fork-join master
// leaves once per job): a PartHeader, then per thread a PartSlot followed by
// its Events.
#pragma once
#include <cstdint>
#include <string>

#include "stats/trace.hpp"

namespace rdsm::trace {

constexpr uint32_t kMaxSlots = 64;             // threads per node
constexpr uint64_t kSlotEvents = 1ull << 20;   // records per thread (32 MiB of address space)
constexpr uint32_t kPartMagic = 0x52545244;    // "DRTR"

struct PartHeader {
  uint32_t magic;
  int32_t rank;
  int32_t pid;
  uint32_t slots;
  uint64_t dropped;  // records lost: buffers full, or more threads than slots
  uint32_t flags;    // kPartOpsRecorded
  uint32_t reserved;
};
// The node's fabric counted its one-sided operations (trace::operations_recorded).
constexpr uint32_t kPartOpsRecorded = 1;

struct PartSlot {
  int32_t tid;
  uint32_t reserved;
  uint64_t events;
  char name[32];
};

inline std::string part_prefix(const std::string &path) { return path + ".part."; }
inline std::string part_path(const std::string &path, int rank) { return part_prefix(path) + std::to_string(rank); }

}  // namespace rdsm::trace
