// The race logs (`rdsm run --races`): what each node of a job writes
// (race_recorder.cpp) and what the analysis reads (race_analysis.cpp).
//
// A node's log is one file, race.JOB.RANK in the job's race directory: a
// LogHeader, then records, each a one-byte tag and its fields, in this
// order: the intervals the node closed, in increasing id (so in
// non-decreasing epoch), possibly cut short by a truncation record; then
// the allocations the process made; then the end record, written only by a
// node that left the job normally.  Numbers are in the host's byte order
// (the logs never leave the host that wrote them).
//
//   interval    u32 id, u32 epoch, u32 pages, u32 clock[nodes], then per
//               page: u32 page, u32 runs, runs x (u16 offset, u16 length),
//               or, where that is shorter, u32 kMaskForm and the page's
//               mask (bit i: byte i changed), or kMaskRef + k: the same
//               mask as the interval's k-th (a sweep writes the same
//               pattern into page after page), or kStrided and u16 first,
//               length, stride, count: runs of one length at one stride (a
//               red-black sweep's every other word) -- the bytes the node changed
//               in each page it wrote in the interval, and the vector clock
//               of what it knew, by synchronisation, when the interval
//               began
//   truncated   u32 epoch, u32 interval, u64 cap -- the log reached its cap
//               here; nothing after this interval was recorded
//   allocation  u64 base, u64 size, u64 pc, u64 module base, u64 symbol
//               address, u16 length + module path, u16 length + symbol --
//               a shared allocation and the return address of its call
//   end         nothing more
#pragma once
#include <cstdint>
#include <string>

namespace rdsm::races {

constexpr char kLogMagic[8] = {'R', 'D', 'S', 'M', 'R', 'A', 'C', 'E'};
constexpr uint32_t kLogVersion = 1;

struct LogHeader {
  char magic[8];
  uint32_t version;
  uint32_t job;    // the process's job count when the job began (fork-join programs form several)
  uint32_t rank;
  uint32_t nodes;
  uint64_t page_bytes;
  uint64_t region_base;  // the application's address of page 0
};

enum RecordTag : uint8_t { kInterval = 'I', kTruncated = 'T', kAllocation = 'A', kEnd = 'E' };
constexpr uint32_t kMaskForm = 0xffffffffu;
constexpr uint32_t kStrided = 0xfffffffeu;
constexpr uint32_t kMaskRef = 0x80000000u;  // + k, k < kStrided - kMaskRef

inline std::string log_name(uint32_t job, int rank) {
  return "race." + std::to_string(job) + "." + std::to_string(rank);
}

}  // namespace rdsm::races
