// rdsm for C++: a header-only layer over the C API of rdsm.h.
//
//   int main(int argc, char **argv) {
//     rdsm::session job(argc, argv);                     // rdsm_init ... rdsm_finalize
//     auto *grid = rdsm::allocate_all<double>(n * n, rdsm::placement::block);
//     std::vector<int, rdsm::allocator<int>> hits(64);    // elements in shared memory
//     rdsm::mutex m(7);                                   // lock id 7
//     { std::lock_guard<rdsm::mutex> g(m); ... }
//     if (std::unique_lock<rdsm::mutex> g(m, std::try_to_lock); g) { ... }
//     rdsm::barrier();
//   }
//
// The rules of rdsm.h hold unchanged: memory is coherent at
// synchronisation (locks, barriers, acquire/release), a pointer is the same
// in every node, and shared memory is never given back before the job ends
// (deallocate is a no-op).  Misuse ends the job with a message naming the
// call, as in C.
#ifndef RDSM_HPP
#define RDSM_HPP

#if __cplusplus < 201703L
#error "rdsm.hpp needs C++17 or newer (e.g. -std=c++17)"
#endif

#include <cstddef>
#include <limits>
#include <new>
#include <type_traits>

#include "rdsm.h"

namespace rdsm {

// ---- life cycle -----------------------------------------------------------

// Joins the job for its lifetime: rdsm_init on construction, rdsm_finalize
// (a final barrier: every node's writes complete) on destruction.  One per
// process, before any other call.
class session {
 public:
  session() { rdsm_init(nullptr, nullptr); }
  session(int &argc, char **&argv) { rdsm_init(&argc, &argv); }
  ~session() { rdsm_finalize(); }
  session(const session &) = delete;
  session &operator=(const session &) = delete;
};

inline int rank() { return rdsm_rank(); }
inline int nodes() { return rdsm_nodes(); }
inline bool initialized() { return rdsm_initialized() != 0; }
inline double wtime() { return rdsm_wtime(); }
inline const char *protocol_name() { return rdsm_protocol_name(); }
inline std::size_t page_size() { return rdsm_page_size(); }

// ---- synchronisation ------------------------------------------------------

inline void barrier() { rdsm_barrier(); }
inline void release() { rdsm_release(); }
inline void acquire() { rdsm_acquire(); }

// A job-wide lock, named by its id (0 .. lock_count()-1; no creation
// needed): Lockable, so std::lock_guard, std::unique_lock (try_to_lock
// too), std::scoped_lock and std::try_lock take it.  Unlocking publishes
// this node's writes to the next holder; locking, or a try_lock that
// returns true, sees what the previous holders published.
class mutex {
 public:
  explicit mutex(int id) : id_(id) {}
  void lock() { rdsm_lock(id_); }
  bool try_lock() { return rdsm_trylock(id_) != 0; }
  void unlock() { rdsm_unlock(id_); }
  int id() const { return id_; }

 private:
  int id_;
};
inline int lock_count() { return rdsm_lock_count(); }

// ---- shared memory ----------------------------------------------------------

enum class placement : int {
  job_default = RDSM_PLACE_DEFAULT,  // --placement of the job (first touch unless set)
  first_touch = RDSM_PLACE_FIRST_TOUCH,
  block = RDSM_PLACE_BLOCK,
  cyclic = RDSM_PLACE_CYCLIC,
  local = RDSM_PLACE_LOCAL,
};

namespace detail {
template <class T>
std::size_t bytes_for(std::size_t count) {
  if (count > std::numeric_limits<std::size_t>::max() / sizeof(T)) throw std::bad_array_new_length();
  return count * sizeof(T);
}
// Shared memory starts zeroed in every node and is never constructed or
// destroyed by anyone in particular: what lives there must be usable as
// zero bytes and copyable byte by byte.
template <class T>
constexpr bool shareable = std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>;
}  // namespace detail

// `count` zeroed T in shared memory, from this node (others learn the
// pointer through shared memory or publish_root after synchronising).
template <class T>
T *allocate(std::size_t count, placement where = placement::job_default) {
  static_assert(detail::shareable<T>, "shared memory holds trivially copyable, trivially destructible types");
  return static_cast<T *>(rdsm_malloc_placed(detail::bytes_for<T>(count), static_cast<rdsm_placement>(where)));
}

// Collective: every node calls it with the same arguments and gets the same
// pointer to `count` zeroed T.
template <class T>
T *allocate_all(std::size_t count, placement where = placement::job_default) {
  static_assert(detail::shareable<T>, "shared memory holds trivially copyable, trivially destructible types");
  return static_cast<T *>(rdsm_malloc_all(detail::bytes_for<T>(count), static_cast<rdsm_placement>(where)));
}

inline bool is_shared(const void *p) { return rdsm_is_shared(p) != 0; }

template <class T>
void publish_root(int slot, T *p) {
  rdsm_publish_root(slot, const_cast<void *>(static_cast<const void *>(p)));
}
template <class T>
T *root(int slot) {
  return static_cast<T *>(rdsm_root(slot));
}

// A standard allocator whose memory is shared: a container's elements live
// in the shared region (its own bookkeeping lives where the container
// object does: put the container in private memory of one node, or size it
// once and share its data() pointer).  Memory is not reused: deallocate
// does nothing, as rdsm never gives shared memory back.
template <class T, placement Where = placement::job_default>
class allocator {
 public:
  using value_type = T;
  template <class U>
  struct rebind {
    using other = allocator<U, Where>;
  };

  allocator() noexcept = default;
  template <class U>
  allocator(const allocator<U, Where> &) noexcept {}

  T *allocate(std::size_t count) {
    return static_cast<T *>(rdsm_malloc_placed(detail::bytes_for<T>(count), static_cast<rdsm_placement>(Where)));
  }
  void deallocate(T *, std::size_t) noexcept {}

  template <class U>
  bool operator==(const allocator<U, Where> &) const noexcept {
    return true;
  }
  template <class U>
  bool operator!=(const allocator<U, Where> &) const noexcept {
    return false;
  }
};

// ---- statistics -------------------------------------------------------------

inline rdsm_stats stats() {
  rdsm_stats s;
  rdsm_get_stats(&s);
  return s;
}
inline void reset_stats() { rdsm_reset_stats(); }

}  // namespace rdsm

#endif  // RDSM_HPP
