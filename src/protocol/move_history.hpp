// What home migration (home_migration.cpp) remembers of each page: its
// writers epoch by epoch and its moves so far, and the job's count of moves
// made and regretted.  Every node keeps the same history, derived from the
// same notices in the same order, so every node takes the same decisions.
#pragma once
#include <cstddef>
#include <cstdint>

#include "common/page_array.hpp"

namespace rdsm {

struct MoveHistory {
  static constexpr int16_t kNoWriter = -1, kManyWriters = -2;
  PageArray<Biased<int16_t, kNoWriter>> last_writer;   // the single writer of the page's last written epoch
  PageArray<Biased<int16_t, kNoWriter>> epoch_writer;  // scratch: the writer(s) of this epoch
  PageArray<Biased<int16_t, kNoWriter>> often_writer;  // a node seen writing it in two intervals of an epoch
  PageArray<uint8_t> moves;                            // how often the page's home has moved
  PageArray<uint8_t> on_trial;                         // moved, and written by no other node since
  size_t made = 0, regretted = 0, budget = 64;         // regretted: another node wrote it after
  bool stopped = false;                                // too many moves regretted: homes stay where they are

  void reset(size_t pages) {
    last_writer.reset(pages);
    epoch_writer.reset(pages);
    often_writer.reset(pages);
    moves.reset(pages);
    on_trial.reset(pages);
  }

  // The move rule, for a page node w alone wrote in the epoch, from its
  // writer in its last written epoch, whether w wrote the whole aligned
  // group around it, its moves so far and its often writer
  // (withhold_likely_moves guesses by it too).
  static bool moves_to_writer(int16_t last, int16_t w, bool whole_group, uint8_t moves, int16_t often);
};

}  // namespace rdsm
