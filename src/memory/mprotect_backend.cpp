// The portable backend: page protections are the MMU's, set with mprotect.
#include <cerrno>
#include <csignal>
#include <sys/mman.h>

#include "common/error.hpp"
#include "memory/backend.hpp"

namespace rdsm {

namespace {

int prot_flags(Prot p) {
  switch (p) {
    case Prot::none: return PROT_NONE;
    case Prot::read: return PROT_READ;
    case Prot::read_write: return PROT_READ | PROT_WRITE;
  }
  return PROT_NONE;
}

class MprotectBackend final : public ProtectionBackend {
 public:
  explicit MprotectBackend(uint8_t *app) : app_(app) {}

  void protect(size_t first, size_t count, Prot prot) override {
    if (mprotect(app_ + first * 4096, count * 4096, prot_flags(prot)) == 0) return;
    if (errno == ENOMEM)
      fatal_signal_safe(
          "mprotect failed with ENOMEM: the process ran out of memory mappings (vm.max_map_count). "
          "Raise it (as root: sysctl -w vm.max_map_count=1048576), use a smaller region, or use the "
          "uffd memory backend (--memory uffd), which needs no mapping per page");
    fatal_signal_safe("mprotect of the shared region failed");
  }

  int fault_signal() const override { return SIGSEGV; }

 private:
  uint8_t *app_;
};

}  // namespace

std::unique_ptr<ProtectionBackend> make_mprotect_backend(uint8_t *app, size_t) {
  return std::make_unique<MprotectBackend>(app);
}

}  // namespace rdsm
