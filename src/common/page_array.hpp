// Per-page metadata for a region far larger than what a program touches.
//
// The default region is a sparse reservation of many GiB (millions of
// pages), and each node keeps a few dozen bytes of state per page.  A
// PageArray is zero-filled anonymous memory reserved without commit: making
// one costs no time, and only the entries of pages a node uses cost memory.
// An entry whose "nothing yet" value is not zero is stored as Biased<T, E>,
// whose zero bits read as E, so the fresh array already holds E everywhere.
#pragma once
#include <cstddef>
#include <cstring>
#include <sys/mman.h>
#include <utility>

#include "common/error.hpp"

namespace rdsm {

template <class T>
class PageArray {
 public:
  PageArray() = default;
  PageArray(const PageArray &) = delete;
  PageArray &operator=(const PageArray &) = delete;
  ~PageArray() { release(); }

  // `count` entries, all zero bits.
  void reset(size_t count) {
    release();
    if (count == 0) return;
    void *p = mmap(nullptr, count * sizeof(T), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED) fatal("cannot reserve %zu MiB of address space for page metadata", (count * sizeof(T)) >> 20);
    data_ = static_cast<T *>(p);
    count_ = count;
  }

  T &operator[](size_t i) { return data_[i]; }
  const T &operator[](size_t i) const { return data_[i]; }
  T *data() { return data_; }
  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }

 private:
  void release() {
    if (data_) munmap(data_, count_ * sizeof(T));
    data_ = nullptr;
    count_ = 0;
  }

  T *data_ = nullptr;
  size_t count_ = 0;
};

// A T whose all-zero bits mean Empty: stored as value ^ Empty.
template <class T, T Empty>
struct Biased {
  T bits;
  operator T() const { return T(bits ^ Empty); }
  Biased &operator=(T v) {
    bits = T(v ^ Empty);
    return *this;
  }
};

}  // namespace rdsm
