// The shared region: one range of pages at the same virtual address in
// every node, backed by the node's registered data segment and mapped twice:
//   - the application view at the fixed base address, whose per-page
//     protection the protocol controls (no access / read-only / read-write);
//   - the system view (the segment's own mapping), always read-write, which
//     the runtime and remote nodes use to move page contents.
// How protections are enforced is the backend's business (backend.hpp).
#pragma once
#include <cstddef>
#include <cstdint>

#include <memory>

#include "common/options.hpp"
#include "fabric/fabric.hpp"
#include "memory/backend.hpp"

namespace rdsm {

constexpr size_t kPageBytes = 4096;

class SharedRegion {
 public:
  // Maps the application view of `data` at opt.region_base with no access,
  // under the backend choose_memory_backend(opt) picks.
  SharedRegion(const Options &opt, const fabric::Segment &data);
  ~SharedRegion();
  SharedRegion(const SharedRegion &) = delete;
  SharedRegion &operator=(const SharedRegion &) = delete;

  uint8_t *app() const { return app_; }
  uint8_t *sys() const { return sys_; }
  size_t bytes() const { return bytes_; }
  size_t pages() const { return bytes_ / kPageBytes; }
  bool contains(const void *p) const {
    auto a = reinterpret_cast<uintptr_t>(p), b = reinterpret_cast<uintptr_t>(app_);
    return a >= b && a - b < bytes_;
  }
  size_t page_of(const void *p) const {
    return (reinterpret_cast<uintptr_t>(p) - reinterpret_cast<uintptr_t>(app_)) / kPageBytes;
  }
  uint8_t *app_page(size_t page) const { return app_ + page * kPageBytes; }
  uint8_t *sys_page(size_t page) const { return sys_ + page * kPageBytes; }

  // Sets the protection of pages [first, first+count) in the application view.
  void protect(size_t first, size_t count, Prot prot) {
    if (count) backend_->protect(first, count, prot);
  }

  MemoryBackend memory_backend() const { return kind_; }
  // For the fault path (fault_dispatch.cpp): see ProtectionBackend.
  int fault_signal() const { return backend_->fault_signal(); }
  bool expects_faults() const { return backend_->expects_faults(); }
  bool repair(size_t page, bool write) { return backend_->repair(page, write); }

 private:
  uint8_t *app_ = nullptr;
  uint8_t *sys_ = nullptr;
  size_t bytes_ = 0;
  MemoryBackend kind_ = MemoryBackend::mprotect;
  std::unique_ptr<ProtectionBackend> backend_;
};

// Checks, before any memory is mapped, that the region fits the limits of
// this machine: vm.max_map_count for page-granular protection, and the
// address range.  With the uffd backend the mapping count does not grow
// with the region, so only the address range matters.  Ends the process with a message naming the limit and the
// remedy when it does not.
void preflight_region(const Options &opt);

}  // namespace rdsm
