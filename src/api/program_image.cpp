#include "api/program_image.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/address_sanitizer.hpp"

namespace rdsm::fj {

namespace {

#if defined(__x86_64__)
constexpr uint32_t kCopyRelocation = R_X86_64_COPY;
#elif defined(__aarch64__)
constexpr uint32_t kCopyRelocation = R_AARCH64_COPY;
#else
#error "fork-join programs across hosts: name this architecture's COPY relocation here"
#endif

// The executable file, mapped read-only for as long as it is read.
class MappedFile {
 public:
  bool open(const char *path, std::string &why) {
    int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      why = std::string("cannot open ") + path + ": " + strerror(errno);
      return false;
    }
    struct stat st{};
    if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
      close(fd);
      why = std::string(path) + " is not an executable file";
      return false;
    }
    size_ = (size_t)st.st_size;
    void *p = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
      why = std::string("cannot map ") + path + ": " + strerror(errno);
      return false;
    }
    data_ = static_cast<const uint8_t *>(p);
    return true;
  }
  ~MappedFile() {
    if (data_) munmap(const_cast<uint8_t *>(data_), size_);
  }
  // `count` objects of T at `offset`, or nullptr if the file is too short.
  template <class T>
  const T *at(uint64_t offset, uint64_t count = 1) const {
    if (offset > size_ || count > (size_ - offset) / sizeof(T)) return nullptr;
    return reinterpret_cast<const T *>(data_ + offset);
  }
  const char *string_at(const Elf64_Shdr &table, uint32_t index) const {
    if (index >= table.sh_size) return nullptr;
    const char *s = at<char>(table.sh_offset + index, table.sh_size - index);
    return s && memchr(s, 0, table.sh_size - index) ? s : nullptr;
  }
  size_t size() const { return size_; }

 private:
  const uint8_t *data_ = nullptr;
  size_t size_ = 0;
};

struct Bases {
  uintptr_t executable = 0, libc = 0;
  bool found_executable = false;
};

int note_base(struct dl_phdr_info *info, size_t, void *arg) {
  auto *b = static_cast<Bases *>(arg);
  if (!b->found_executable) {  // the first object is the executable itself
    b->executable = info->dlpi_addr;
    b->found_executable = true;
  } else if (info->dlpi_name && strstr(info->dlpi_name, "/libc.so")) {
    b->libc = info->dlpi_addr;
  }
  return 0;
}

struct Range {
  uintptr_t begin, end;
};

// Whether a mangled name's first component is the implementation's: an
// identifier that begins with two underscores (reserved to the compiler and
// its libraries: __sanitizer, __asan, __gnu_cxx ...) or namespace std.
// Skips what may come before it: the guard variable's GV, the local
// entity's Z, the nested name's N with its qualifiers, internal linkage's L.
bool mangled_in_implementation(const char *m) {
  if (strncmp(m, "_Z", 2) != 0) return false;
  m += 2;
  if (strncmp(m, "GV", 2) == 0) m += 2;
  if (*m == 'Z') ++m;
  if (*m == 'N')
    for (++m; *m == 'K' || *m == 'V' || *m == 'r';) ++m;
  if (strncmp(m, "St", 2) == 0) return true;
  if (*m == 'L') ++m;
  char *end = nullptr;
  unsigned long length = strtoul(m, &end, 10);
  return end != m && length >= 2 && end[0] == '_' && end[1] == '_';
}

}  // namespace

bool is_runtime_symbol(const char *name) {
  // Mangled names of namespace rdsm: its variables (_ZN4rdsm...), the
  // static locals of its functions (_ZZN4rdsm..., const members _ZZNK4rdsm)
  // and their guard variables (_ZGVZN4rdsm..., _ZGVZNK4rdsm...).
  for (const char *prefix : {"_ZN4rdsm", "_ZZN4rdsm", "_ZZNK4rdsm", "_ZGVZN4rdsm", "_ZGVZNK4rdsm"})
    if (strncmp(name, prefix, strlen(prefix)) == 0) return true;
  // The toolchain's libraries linked into the executable (a sanitizer's
  // runtime, libgcc's CPU model, a static libstdc++) keep each process's
  // own state too: their names are reserved to the implementation.
  return strncmp(name, "__", 2) == 0 || mangled_in_implementation(name);
}

bool ProgramImage::describe(std::string &why) {
  MappedFile file;
  if (!file.open("/proc/self/exe", why)) return false;
  const auto *eh = file.at<Elf64_Ehdr>(0);
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64) {
    why = "the executable is not a 64-bit ELF file";
    return false;
  }
  const auto *sh = file.at<Elf64_Shdr>(eh->e_shoff, eh->e_shnum);
  if (!sh || eh->e_shstrndx >= eh->e_shnum) {
    why = "the executable has no section table";
    return false;
  }
  Bases bases;
  dl_iterate_phdr(note_base, &bases);
  const uintptr_t bias = bases.executable;

  int data = -1, bss = -1, symtab = -1;
  for (int i = 0; i < eh->e_shnum; ++i) {
    const char *name = file.string_at(sh[eh->e_shstrndx], sh[i].sh_name);
    if (!name) continue;
    if (strcmp(name, ".data") == 0) data = i;
    if (strcmp(name, ".bss") == 0) bss = i;
    if (sh[i].sh_type == SHT_SYMTAB) symtab = i;
  }
  if (symtab < 0) {
    why = "the executable has no symbol table (it was stripped), so its globals cannot be told from the "
          "runtime's; link it without -s and do not strip it";
    return false;
  }

  std::vector<Range> keep, drop;
  for (int i : {data, bss})
    if (i >= 0 && sh[i].sh_size > 0) keep.push_back({bias + sh[i].sh_addr, bias + sh[i].sh_addr + sh[i].sh_size});

  // The runtime's globals are not shipped; the program's are named.
  const Elf64_Shdr &st = sh[symtab];
  if (st.sh_link >= eh->e_shnum) {
    why = "the executable's symbol table is malformed";
    return false;
  }
  const auto *syms = file.at<Elf64_Sym>(st.sh_offset, st.sh_size / sizeof(Elf64_Sym));
  if (!syms) {
    why = "the executable's symbol table is malformed";
    return false;
  }
  globals_.clear();
  for (size_t k = 0; k < st.sh_size / sizeof(Elf64_Sym); ++k) {
    const Elf64_Sym &s = syms[k];
    if (ELF64_ST_TYPE(s.st_info) != STT_OBJECT || s.st_size == 0) continue;
    if (s.st_shndx != data && s.st_shndx != bss) continue;
    const char *name = file.string_at(sh[st.sh_link], s.st_name);
    if (!name) continue;
    uintptr_t a = bias + s.st_value;
    if (is_runtime_symbol(name))
      drop.push_back({a, a + s.st_size});
    else
      globals_.push_back({a, (size_t)s.st_size, name});
  }
  // Copies of the libraries' variables (COPY relocations) stay each
  // process's own.
  for (int i = 0; i < eh->e_shnum; ++i) {
    if (sh[i].sh_type != SHT_RELA || sh[i].sh_link >= eh->e_shnum) continue;
    const Elf64_Shdr &dynsym = sh[sh[i].sh_link];
    const auto *rel = file.at<Elf64_Rela>(sh[i].sh_offset, sh[i].sh_size / sizeof(Elf64_Rela));
    const auto *dsyms = file.at<Elf64_Sym>(dynsym.sh_offset, dynsym.sh_size / sizeof(Elf64_Sym));
    if (!rel || !dsyms) continue;
    for (size_t k = 0; k < sh[i].sh_size / sizeof(Elf64_Rela); ++k) {
      if (ELF64_R_TYPE(rel[k].r_info) != kCopyRelocation) continue;
      uint64_t si = ELF64_R_SYM(rel[k].r_info);
      if (si >= dynsym.sh_size / sizeof(Elf64_Sym)) continue;
      uintptr_t a = bias + rel[k].r_offset;
      drop.push_back({a, a + std::max<uint64_t>(dsyms[si].st_size, 1)});
    }
  }
  // Nothing dropped is named as the program's (a copy's symbol may also be
  // in the symbol table).
  globals_.erase(std::remove_if(globals_.begin(), globals_.end(),
                                [&](const Symbol &g) {
                                  return std::any_of(drop.begin(), drop.end(), [&](const Range &d) {
                                    return g.addr >= d.begin && g.addr < d.end;
                                  });
                                }),
                 globals_.end());

  // keep minus drop.
  std::sort(drop.begin(), drop.end(), [](const Range &x, const Range &y) { return x.begin < y.begin; });
  spans_.clear();
  bytes_ = 0;
  for (Range r : keep) {
    uintptr_t at = r.begin;
    for (const Range &d : drop) {
      if (d.end <= at || d.begin >= r.end) continue;
      if (d.begin > at) spans_.push_back({at, d.begin - at});
      at = std::max(at, d.end);
    }
    if (at < r.end) spans_.push_back({at, r.end - at});
  }
  std::sort(spans_.begin(), spans_.end(), [](const Span &x, const Span &y) { return x.addr < y.addr; });
  for (const Span &s : spans_) bytes_ += s.bytes;
  std::sort(globals_.begin(), globals_.end(), [](const Symbol &x, const Symbol &y) { return x.addr < y.addr; });

  layout_.executable_base = bias;
  layout_.library_address = bases.libc;
  layout_.image_bytes = bytes_;
  layout_.executable_bytes = file.size();
  return true;
}

namespace {

// Under AddressSanitizer the program's globals lie between poisoned red
// zones, which a span of the image crosses: the copy goes past the
// sanitizer's checks (a volatile store, so that it is not made a call of
// the checked memcpy again).
#ifdef RDSM_UNDER_ASAN
__attribute__((no_sanitize("address"))) void copy_span(uint8_t *to, const uint8_t *from, size_t bytes) {
  volatile uint8_t *out = to;
  for (size_t i = 0; i < bytes; ++i) out[i] = from[i];
}
#else
void copy_span(uint8_t *to, const uint8_t *from, size_t bytes) { memcpy(to, from, bytes); }
#endif

}  // namespace

void ProgramImage::pack(uint8_t *to) const {
  for (const Span &s : spans_) {
    copy_span(to, reinterpret_cast<const uint8_t *>(s.addr), s.bytes);
    to += s.bytes;
  }
}

void ProgramImage::unpack(const uint8_t *from) const {
  for (const Span &s : spans_) {
    copy_span(reinterpret_cast<uint8_t *>(s.addr), from, s.bytes);
    from += s.bytes;
  }
}

std::vector<std::string> ProgramImage::pointing_into(const std::function<bool(uintptr_t)> &inside,
                                                     size_t limit) const {
  std::vector<std::string> names;
  for (const Span &s : spans_) {
    uintptr_t first = (s.addr + 7) & ~uintptr_t(7);
    for (uintptr_t a = first; a + 8 <= s.addr + s.bytes && names.size() < limit; a += 8) {
      uintptr_t v;
      copy_span(reinterpret_cast<uint8_t *>(&v), reinterpret_cast<const uint8_t *>(a), sizeof v);
      if (!inside(v)) continue;
      auto it = std::upper_bound(globals_.begin(), globals_.end(), a,
                                 [](uintptr_t x, const Symbol &g) { return x < g.addr; });
      std::string name;
      if (it != globals_.begin() && a < std::prev(it)->addr + std::prev(it)->bytes) {
        name = std::prev(it)->name;
        a = std::prev(it)->addr + std::prev(it)->bytes - 8;  // one report per global
      } else {
        char buf[32];
        snprintf(buf, sizeof buf, "%#lx", (unsigned long)a);
        name = std::string("the word at ") + buf;
      }
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }
  return names;
}

}  // namespace rdsm::fj
