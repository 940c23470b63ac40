// A run of faults at a constant stride of pages: a transpose reading one
// column of blocks of a matrix, or writing one down its rows, touches one
// page per row, each row a few pages long.  Both the strided prefetch
// (page_fetch.cpp) and the strided write-ahead (write_ahead.cpp) follow
// such runs: the third fault at a constant distance of 2..kMaxStride pages
// from the one before starts a run; bringing pages along the stride moves
// the run's next expected fault past them, and a fault there continues the
// run, whose window grows with the pages it has covered.
//
// Rows several pages wide: a transpose of tiles reads one page of every
// row, then the next page of every row (a node's column block spans a few
// pages of each row).  A run that starts on the page after the ones the
// last run of the same stride covered in some row (in any row: the column
// after those), in the same interval, widens that chain of columns; the width so learnt is kept per stride, and the next run that
// starts a chain of that stride (the next transpose) is as wide at once:
// each row's pages come in one read and one mapping, and the runs of the
// later columns never happen.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace rdsm {

class StrideRun {
 public:
  static constexpr size_t kMaxStride = 1024;
  static constexpr size_t kMaxWidth = 8;  // pages per row, at most

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
      if (run) start_columns((ptrdiff_t)page - 2 * s, s);
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

  // Pages to bring from each row of the current run, from the one on the
  // stride: 1, or the width learnt for the stride when the run starts a
  // chain of columns.
  size_t width() const { return width_; }

  // An interval ended: the next run starts a new chain.  Columns read one
  // after another within an interval are one chain (a transpose); the
  // same columns read in later intervals are not (LU reads the next column
  // of blocks at each step, after the last step rewrote what it read).
  void end_chain() { chain_stride_ = 0; }

 private:
  void start_columns(ptrdiff_t first, ptrdiff_t s) {
    uint8_t &learnt = learnt_[s + (ptrdiff_t)kMaxStride];
    if (s == chain_stride_ && (first - chain_first_ - (ptrdiff_t)chain_width_) % s == 0) {
      // The next column of the same rows (from whichever row it starts).
      width_ = 1;
      if (chain_width_ < kMaxWidth) ++chain_width_;
      learnt = (uint8_t)std::max<size_t>(learnt, chain_width_);
      return;
    }
    size_t abs_stride = (size_t)(s < 0 ? -s : s);
    width_ = std::max<size_t>(1, std::min<size_t>(learnt, abs_stride - 1));
    chain_stride_ = s;
    chain_first_ = first;
    chain_width_ = width_;
  }

  size_t last_ = SIZE_MAX - 1, before_ = SIZE_MAX - 3, next_ = SIZE_MAX;
  ptrdiff_t stride_ = 0;
  size_t covered_ = 0;
  size_t width_ = 1;
  ptrdiff_t chain_stride_ = 0, chain_first_ = 0;
  size_t chain_width_ = 0;
  uint8_t learnt_[2 * kMaxStride + 1] = {};  // by stride: the widest chain seen
};

}  // namespace rdsm
