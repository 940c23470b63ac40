// A run of faults at a constant stride of pages: a transpose reading one
// column of blocks of a matrix, or writing one down its rows, touches one
// page per row, each row a few pages long.  Both the strided prefetch
// (page_fetch.cpp) and the strided write-ahead (write_ahead.cpp) follow
// such runs: the third fault at a constant distance of 2..kMaxStride pages
// from the one before starts a run; bringing pages along the stride moves
// the run's next expected fault past them, and a fault there continues the
// run, whose window grows with the pages it has covered.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace rdsm {

class StrideRun {
 public:
  static constexpr size_t kMaxStride = 1024;

  // A fault at `page`: the run's stride if the fault starts or continues
  // one, else 0.
  ptrdiff_t observe(size_t page) {
    if (stride_ != 0 && page == next_) {
      ++covered_;
    } else {
      ptrdiff_t s = (ptrdiff_t)page - (ptrdiff_t)last_;
      bool run = ((s > 1 && s <= (ptrdiff_t)kMaxStride) || (s < -1 && s >= -(ptrdiff_t)kMaxStride)) &&
                 (ptrdiff_t)last_ - (ptrdiff_t)before_ == s;
      stride_ = run ? s : 0;
      covered_ = run ? 3 : 0;
    }
    before_ = last_;
    last_ = page;
    next_ = stride_ != 0 ? (size_t)((ptrdiff_t)page + stride_) : SIZE_MAX;
    return stride_;
  }

  // How many pages to bring along the stride now: twice what the run has
  // covered, at least `lo`, at most `hi`.
  size_t window(size_t lo, size_t hi) const { return std::min(hi, std::max(lo, 2 * covered_)); }

  // `n` pages along the stride after `page` were brought in: the run's next
  // fault is expected past them.
  void advanced(size_t page, size_t n) {
    covered_ += n;
    next_ = (size_t)((ptrdiff_t)page + stride_ * (ptrdiff_t)(n + 1));
  }

  ptrdiff_t stride() const { return stride_; }

 private:
  size_t last_ = SIZE_MAX - 1, before_ = SIZE_MAX - 3, next_ = SIZE_MAX;
  ptrdiff_t stride_ = 0;
  size_t covered_ = 0;
};

}  // namespace rdsm
