// The rows of a strided prefetch window (Hlrc::prefetch_strided), fetched
// together by Hlrc::fetch_runs, and the scratch that does it without
// allocating (it runs in the signal handler): sized once, for the largest
// window a stride run opens.  Hlrc::fetch_pages batches its copy counts
// in it too, that many pages at a time.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fabric/fabric.hpp"

namespace rdsm {

struct FetchRun {
  size_t first = 0, n = 0;  // pages [first, first + n) of one row, all lacking here
  size_t got = 0;           // fetched: the leading ones new enough at the home
};

struct FetchRunsScratch {
  // A window's rows plus the rest of the faulting row and of the two rows
  // before it, each at most kMaxWidth pages (StrideRun's).
  static constexpr size_t kMaxRuns = 67, kMaxWidth = 8, kMaxPages = kMaxRuns * kMaxWidth;
  FetchRun runs[kMaxRuns];
  std::vector<fabric::Fabric::BatchOp> ops;  // one batch: a count per uncounted page, a version read per row
  std::vector<uint64_t> words;               // the counts' words before the adds
  std::vector<size_t> counted;               // their pages
  std::vector<size_t> firsts;                // those the home may write untracked (first_copy_log.cpp)
  std::vector<uint64_t> tags;                // their log entries
  std::vector<uint32_t> versions;            // every row's version vectors, page after page
  void size_for(int nodes) {
    ops.resize(kMaxPages + kMaxRuns);
    words.resize(kMaxPages);
    counted.resize(kMaxPages);
    firsts.resize(kMaxPages);
    tags.resize(kMaxPages);
    versions.resize(kMaxPages * (size_t)nodes);
  }
};

}  // namespace rdsm
