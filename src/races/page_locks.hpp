// One spin lock per page, for what two threads of a node may do to one page
// at once while races are recorded: the application's side making or
// dropping the twin of a home page, and the handler applying another node's
// diff to that page and its twin (race_recording.cpp).  Without races no
// array is reserved and a Hold does nothing.
//
// Async-signal-safe (a write fault may twin a page in the signal handler):
// a lock is held only for a page copy or a comparison, never across a wait.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "common/futex.hpp"
#include "common/page_array.hpp"

namespace rdsm::races {

class PageLocks {
 public:
  void reset(size_t pages) { bits_.reset(pages); }
  bool on() const { return !bits_.empty(); }

  class Hold {
   public:
    Hold(PageLocks &locks, size_t page) : word_(locks.on() ? &locks.bits_[page] : nullptr) {
      if (!word_) return;
      std::atomic_ref<uint8_t> w(*word_);
      while (w.exchange(1, std::memory_order_acquire))
        while (w.load(std::memory_order_relaxed)) cpu_relax();
    }
    ~Hold() {
      if (word_) std::atomic_ref<uint8_t>(*word_).store(0, std::memory_order_release);
    }
    Hold(const Hold &) = delete;
    Hold &operator=(const Hold &) = delete;

   private:
    uint8_t *word_;
  };

 private:
  PageArray<uint8_t> bits_;
};

}  // namespace rdsm::races
