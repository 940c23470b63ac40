// mutex_try [ROUNDS]: rdsm::mutex as a standard Lockable type.
//
//  busy     node 0 holds one mutex across a barrier: every other node's
//           std::unique_lock(m, std::try_to_lock) must not own it, and
//           std::try_lock(mine, m) must fail on m (returning 1) and leave
//           mine unlocked.  Then node 0 writes a value under it and
//           unlocks; the others take it with try_to_lock in turn and must
//           see what the previous holder wrote.
//  counter  ROUNDS rounds (default 300) of a try_to_lock on one mutex, a
//           std::try_lock of two, and a std::scoped_lock of the two (which
//           locks one and tries the other): each increments the counters of
//           the mutexes it holds, which must end equal to the number of
//           holds, exactly.
// Prints PASS on node 0, or FAIL naming what went wrong (and exits 1).
#include <sched.h>

#include <concepts>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "rdsm.hpp"

namespace {
// The standard's Lockable requirements, as a concept.
template <class M>
concept lockable = requires(M m) {
  m.lock();
  { m.try_lock() } -> std::same_as<bool>;
  m.unlock();
};
static_assert(lockable<rdsm::mutex>);

int rank_;

[[noreturn]] void fail(const char *what, long got, long want) {
  std::printf("FAIL mutex_try (node %d, %s): %s: got %ld, want %ld\n", rank_, rdsm::protocol_name(), what, got,
              want);
  std::fflush(stdout);
  std::exit(1);
}

// Where the counter of a mutex lives: a page of its own.
long &counter(long *pages, int which) { return pages[(std::size_t)which * rdsm::page_size() / sizeof(long)]; }
}  // namespace

int main(int argc, char **argv) {
  rdsm::session job(argc, argv);
  rank_ = rdsm::rank();
  const int nodes = rdsm::nodes();
  const long rounds = argc > 1 ? std::atol(argv[1]) : 300;
  const std::size_t page_longs = rdsm::page_size() / sizeof(long);
  long *baton = rdsm::allocate_all<long>(page_longs, rdsm::placement::local);  // node 0's: cached elsewhere
  long *pages = rdsm::allocate_all<long>(2 * page_longs, rdsm::placement::cyclic);
  long *totals = rdsm::allocate_all<long>(2, rdsm::placement::block);
  volatile long *ready = rdsm::allocate_all<long>((std::size_t)nodes, rdsm::placement::block);
  rdsm::mutex first(30), second(31), total(32);

  // ---- busy
  std::unique_lock<rdsm::mutex> zero(first, std::defer_lock);
  if (rank_ == 0) zero.lock();
  rdsm::barrier();
  if (rank_ != 0) {
    std::unique_lock<rdsm::mutex> g(first, std::try_to_lock);
    if (g.owns_lock()) fail("try_to_lock owns a mutex node 0 holds", 1, 0);
    // A mutex of this node's own, which std::try_lock takes and must give
    // back when it finds `first` busy.
    rdsm::mutex mine(40 + rank_);
    int failed = std::try_lock(mine, first);
    if (failed != 1) fail("std::try_lock(mine, first) with first held elsewhere", failed, 1);
    if (!mine.try_lock()) fail("a mutex std::try_lock gave back is free", 0, 1);
    mine.unlock();
  }
  // Every node caches the value and says so with a release (which takes
  // nothing in), so that only the try's acquire can show it node 0's write.
  if (*baton != 0) fail("a fresh value", *baton, 0);
  ready[rank_] = 1;
  rdsm::release();
  if (rank_ == 0) {
    for (int n = 1; n < nodes; ++n)
      while (!ready[n]) {
        sched_yield();
        rdsm::acquire();
      }
    *baton = 100;
    zero.unlock();
  } else {
    for (;;) {
      std::unique_lock<rdsm::mutex> g(first, std::try_to_lock);
      if (!g.owns_lock()) {
        sched_yield();  // let the holder run where nodes outnumber cores
        continue;
      }
      if (*baton < 100 || *baton >= 100 + nodes - 1) fail("the value the previous holder wrote", *baton, 100);
      *baton += 1;
      break;
    }
  }
  rdsm::barrier();
  if (*baton != 100 + nodes - 1) fail("the value at the end", *baton, 100 + nodes - 1);

  // ---- counter
  long held_first = 0, held_second = 0;
  for (long i = 0; i < rounds; ++i) {
    if (std::unique_lock<rdsm::mutex> g(first, std::try_to_lock); g.owns_lock()) {
      counter(pages, 0) += 1;
      ++held_first;
    }
    if (std::try_lock(first, second) == -1) {
      std::lock_guard<rdsm::mutex> a(first, std::adopt_lock), b(second, std::adopt_lock);
      counter(pages, 0) += 1;
      counter(pages, 1) += 1;
      ++held_first, ++held_second;
    }
    {
      std::scoped_lock both(second, first);
      counter(pages, 0) += 1;
      counter(pages, 1) += 1;
      ++held_first, ++held_second;
    }
  }
  {
    std::lock_guard<rdsm::mutex> g(total);
    totals[0] += held_first;
    totals[1] += held_second;
  }
  rdsm::barrier();
  if (counter(pages, 0) != totals[0]) fail("the first mutex's counter", counter(pages, 0), totals[0]);
  if (counter(pages, 1) != totals[1]) fail("the second mutex's counter", counter(pages, 1), totals[1]);
  if (rank_ == 0)
    std::printf("PASS mutex_try: %d nodes, %s: %ld holds of the first mutex, %ld of the second\n", nodes,
                rdsm::protocol_name(), totals[0], totals[1]);
  return 0;
}
