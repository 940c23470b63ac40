// The private globals of a fork-join program, as its master ships them to
// workers that run on other hosts (fork_join_ranks.cpp).
//
// On one host a worker is forked, so it gets a copy of everything the
// master's sequential set-up wrote.  A worker on another host is a process
// of its own, started by the MPI launcher with the same executable; at each
// CREATE it gets what fork would have given it of the master's globals: the
// executable's .data and .bss, except
//   - the runtime's own state (rdsm's globals: every symbol of namespace
//     rdsm, which a test of the library's symbol table keeps true), and
//   - variables of the shared libraries that the executable holds a copy of
//     (COPY relocations: stdout, optind, environ, ...): each process's own.
// The heap, the stack and memory from mmap are not shipped.  Pointers in
// the shipped globals stay meaningful only because every rank loads the
// same executable and libraries at the same addresses (the process is
// started again without address-space randomisation: fixed_layout.cpp), and
// pointers into shared memory are the same everywhere anyway.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace rdsm::fj {

// Where a process has its code and libraries: ranks whose layouts differ
// cannot share pointers into them.
struct ProgramLayout {
  uint64_t executable_base = 0;  // where the executable is loaded
  uint64_t library_address = 0;  // an address inside the C library
  uint64_t image_bytes = 0;      // the size of the shipped globals
  uint64_t executable_bytes = 0; // the size of the executable file
};

class ProgramImage {
 public:
  // Reads this process's executable.  False, with `why`, where it cannot
  // (no symbol table: a stripped program cannot tell its globals from the
  // runtime's).
  bool describe(std::string &why);

  size_t bytes() const { return bytes_; }
  const ProgramLayout &layout() const { return layout_; }
  // Copies the globals into `to` (bytes() of them) / back from `from`.
  void pack(uint8_t *to) const;
  void unpack(const uint8_t *from) const;
  // The globals that hold, at an aligned word, a value `inside` accepts (a
  // pointer into memory the workers do not get).  Names, at most `limit`.
  std::vector<std::string> pointing_into(const std::function<bool(uintptr_t)> &inside, size_t limit) const;

 private:
  struct Span {
    uintptr_t addr;
    size_t bytes;
  };
  struct Symbol {
    uintptr_t addr;
    size_t bytes;
    std::string name;
  };
  std::vector<Span> spans_;        // sorted, disjoint
  std::vector<Symbol> globals_;    // the program's named globals in them, sorted
  size_t bytes_ = 0;
  ProgramLayout layout_;
};

// Whether a symbol name is one of the runtime's own (namespace rdsm) or
// the toolchain's (names reserved to the implementation): not shipped.
bool is_runtime_symbol(const char *name);

}  // namespace rdsm::fj
