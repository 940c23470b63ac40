// What a flush of one-sided diffs to one home keeps of its runs writes
// while whole-page writes are on (whole_page_writes.cpp): the pages it
// registered as a runs writer, with the home's word each registration
// answered, and the writes to repeat once a whole-page write of another
// node that may have covered them has ended; and its hold on the home's
// parked word.
#pragma once
#include <cstdint>
#include <vector>

#include "fabric/fabric.hpp"

namespace rdsm {

struct RunsFlush {
  struct HeldPage {
    uint32_t page;
    uint64_t word;  // the home's word when this node registered
  };
  std::vector<HeldPage> held;
  std::vector<fabric::Fabric::Piece> repeat_pieces;
  std::vector<uint32_t> repeat_masked;  // pages written by a masked write to repeat ...
  std::vector<uint64_t> repeat_masks;   // ... and their masks, one page's worth each
  std::vector<uint32_t> repeat_pages;
  int8_t parked = 0;  // the home's parked word: 0 not asked yet, 1 held, -1 the home is not parked

  void clear() {  // the runs' state; the hold is given back by let_go_of_parked
    held.clear();
    repeat_pieces.clear();
    repeat_masked.clear();
    repeat_masks.clear();
    repeat_pages.clear();
  }
};

}  // namespace rdsm
